import type { Tx, TenantScope } from './client.ts';

/** Moves an open tenant transaction to another scope (a partner acting inside a merchant it just created). */
export async function switchScope(tx: Tx, scope: TenantScope) {
  await tx.$queryRawUnsafe(
    `SELECT set_config('app.workspace_id', $1, true), set_config('app.modes', $2, true)`,
    scope.workspaceId,
    scope.modes.join(','),
  );
}
