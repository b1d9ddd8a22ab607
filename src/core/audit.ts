import type { Auth } from './auth/authenticate.ts';
import type { Tx } from './db/client.ts';
import { newId } from './ids.ts';

/** Actions that emit no event (API keys, email sends) are still recorded here. */
export function audit(tx: Tx, auth: Auth, action: string, targetId: string | null, requestId?: string) {
  return tx.auditLog.create({
    data: {
      id: newId('auditLog'),
      workspaceId: auth.workspaceId,
      mode: auth.mode,
      actorKeyId: auth.apiKeyId,
      actorMember: auth.memberId,
      action,
      targetId,
      requestId: requestId ?? null,
    },
  });
}
