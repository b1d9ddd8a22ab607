// Which workspace a caller may read or change by id (workspaces and members ask it): below both.
import type { Tx } from '../db/client.ts';
import { DomainError, errorsFor } from '../errors.ts';

const err = errorsFor('workspace');

/** Own workspace, or 403 for a partner's merchant read without the on-behalf-of header, else 404. */
export async function visible(
  tx: Tx,
  auth: { workspaceId: string; isPlatformAdmin: boolean; onBehalfOf: boolean },
  id: string,
) {
  const ws = await tx.workspace.findFirst({ where: { id } });
  if (!ws) throw err.notFound('workspace');
  if (ws.id !== auth.workspaceId)
    throw new DomainError('insufficient_scope', 'Use X-Svc-On-Behalf-Of to act on a merchant workspace');
  return ws;
}
