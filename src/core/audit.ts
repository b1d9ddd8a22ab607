import type { Auth } from './auth/authenticate.ts';
import type { Tx } from './db/client.ts';
import { sql, sqlOf, type AnyTx } from './db/sql.ts';
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

/** The same entry on either SQL path (a transaction held on a raw connection: an upload's). */
export async function auditIn(tx: AnyTx, auth: Auth, action: string, targetId: string | null, requestId?: string) {
  await sqlOf(tx).query(
    sql`INSERT INTO audit_log (id, "workspaceId", mode, "actorKeyId", "actorMember", action, "targetId", "requestId")
      VALUES (${newId('auditLog')}, ${auth.workspaceId}, ${auth.mode}, ${auth.apiKeyId}, ${auth.memberId}, ${action},
        ${targetId}, ${requestId ?? null})`,
  );
}
