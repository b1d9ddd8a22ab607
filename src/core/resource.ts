import type { Mode } from './db/client.ts';

/** The tenant a row belongs to: one workspace and one mode (every tenant table's two columns). */
export interface RowScope {
  workspaceId: string;
  mode: Mode;
}

/** Just `{ workspaceId, mode }` of an auth, a tenant scope or a row: the filter every tenant query starts from. */
export const scoped = (s: RowScope): RowScope => ({ workspaceId: s.workspaceId, mode: s.mode });

/** A Prisma model delegate (`tx.customer`, `tx.payout`, ...), as far as a scoped lookup needs it. */
interface FindFirst<T> {
  findFirst(args: { where: RowScope & { id: string } }): PromiseLike<T | null>;
}

/**
 * One row by id in the caller's workspace and mode, or the resource's not-found error: another
 * tenant's id reads exactly like an unknown one.
 */
export async function findScoped<T>(
  model: FindFirst<T>,
  scope: RowScope,
  id: string,
  notFound: () => Error,
): Promise<T> {
  const row = await model.findFirst({ where: { id, workspaceId: scope.workspaceId, mode: scope.mode } });
  if (!row) throw notFound();
  return row;
}
