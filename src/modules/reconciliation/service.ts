/**
 * Reads of reconciliation imports, rows, batches and runs (docs/reconciliation.md, Import pipeline): one
 * workspace and mode, another's ids answer 404, lists keyset-paged newest first.
 */
import type { Auth } from '../../core/auth/authenticate.ts';
import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant } from '../../core/db/client.ts';
import { errorsFor } from '../../core/errors.ts';
import type { ListSpec } from '../../core/list-spec.ts';
import { keysetList, type Connection, type PageArgs } from '../../core/pagination.ts';
import type { ReconBatch, ReconImport, ReconRow, ReconRun } from '../../generated/prisma/client.ts';
import { findScoped, scoped } from '../../core/resource.ts';
import type { BatchRow, ImportRow, RowRow, RunRow } from './fields.ts';
import { batchList, importList, rowList, runList } from './list.ts';
import type { ListBatchesArgs, ListImportsArgs, ListRowsArgs, ListRunsArgs } from './schema.ts';

const err = errorsFor('reconciliation');
export const READ = 'svc:reconciliation:read';

export const withAccount = <T>(auth: { accountId: string }, row: T): T & { accountId: string } => ({
  ...row,
  accountId: auth.accountId,
});

/** A Prisma delegate of a reconciliation table, as far as its reads need it. */
interface Model<T> {
  findFirst(args: { where: { id: string; workspaceId: string; mode: string } }): PromiseLike<T | null>;
  findMany(args: { where: object; orderBy: object; take: number }): Promise<T[]>;
}
type Tables = Parameters<Parameters<typeof inTenant>[1]>[0];

async function getOne<T>(ctx: Context, id: string, what: string, model: (tx: Tables) => Model<T>) {
  const auth = authorize(ctx, READ);
  const row = await inTenant(tenant(auth), (tx) => findScoped(model(tx), auth, id, () => err.notFound(what)));
  return withAccount(auth, row);
}

async function listOf<A extends PageArgs, T extends { id: string; createdAt: Date }>(
  ctx: Context,
  args: A,
  spec: ListSpec<A, 'createdAt'>,
  model: (tx: Tables) => Model<T>,
): Promise<Connection<T & { accountId: string }>> {
  const auth: Auth = authorize(ctx, READ);
  spec.check(args);
  return keysetList(
    {
      args: spec.paged(args),
      workspaceId: auth.workspaceId,
      filters: spec.values(args),
      limit: spec.limit,
      column: spec.position,
    },
    (ks) =>
      inTenant(tenant(auth), (tx) =>
        model(tx).findMany({
          where: { ...scoped(auth), AND: [...spec.prisma(args), ks.where] },
          orderBy: ks.orderBy,
          take: ks.take,
        }),
      ).then((rows) => rows.map((r) => withAccount(auth, r))),
  );
}

export const getImport = (ctx: Context, id: string): Promise<ImportRow> =>
  getOne(ctx, id, 'reconciliation_import', (tx) => tx.reconImport);
export const getRow = (ctx: Context, id: string): Promise<RowRow> =>
  getOne(ctx, id, 'reconciliation_row', (tx) => tx.reconRow);
export const getBatch = (ctx: Context, id: string): Promise<BatchRow> =>
  getOne(ctx, id, 'settlement_batch', (tx) => tx.reconBatch);
export const getRun = (ctx: Context, id: string): Promise<RunRow> =>
  getOne(ctx, id, 'reconciliation_run', (tx) => tx.reconRun);

export const listImports = (ctx: Context, args: ListImportsArgs): Promise<Connection<ImportRow>> =>
  listOf<ListImportsArgs, ReconImport>(ctx, args, importList, (tx) => tx.reconImport);
export const listRows = (ctx: Context, args: ListRowsArgs): Promise<Connection<RowRow>> =>
  listOf<ListRowsArgs, ReconRow>(ctx, args, rowList, (tx) => tx.reconRow);
export const listBatches = (ctx: Context, args: ListBatchesArgs): Promise<Connection<BatchRow>> =>
  listOf<ListBatchesArgs, ReconBatch>(ctx, args, batchList, (tx) => tx.reconBatch);
export const listRuns = (ctx: Context, args: ListRunsArgs): Promise<Connection<RunRow>> =>
  listOf<ListRunsArgs, ReconRun>(ctx, args, runList, (tx) => tx.reconRun);
