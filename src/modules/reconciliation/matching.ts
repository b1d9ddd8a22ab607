/**
 * Runs asked for, and reads of matches and exceptions (docs/reconciliation.md, Runs): one workspace and mode,
 * another's ids answer 404, lists keyset-paged newest first. The run itself is the `reconciliation-run` job's.
 */
import { audit } from '../../core/audit.ts';
import type { Auth } from '../../core/auth/authenticate.ts';
import { clock } from '../../core/clock.ts';
import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant, type Tx } from '../../core/db/client.ts';
import { errorsFor } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { keysetList, type Connection } from '../../core/pagination.ts';
import { findScoped, scoped } from '../../core/resource.ts';
import { nextState } from '../../core/state-machine.ts';
import type { ExceptionRow, MatchRow, RunRow } from './fields.ts';
import { exceptionList, matchList } from './list.ts';
import type { CreateRunInput, ListExceptionsArgs, ListMatchesArgs } from './matching-schema.ts';
import { READ, withAccount } from './service.ts';
import { runMachine } from './states.ts';
import { instant } from './upload-params.ts';
import { adapters } from './vocabulary.ts';

const err = errorsFor('reconciliation');
const WRITE = 'svc:reconciliation:write';
const MAX_PERIOD_DAYS = 366;

/** POST /v1/reconciliation/runs: a `manual` run, queued (the relay hands it to the job). */
export async function createRun(ctx: Context, input: CreateRunInput): Promise<RunRow> {
  const auth = authorize(ctx, WRITE);
  const adapter = input.adapter ?? null;
  if (adapter !== null && !(adapters as readonly string[]).includes(adapter))
    throw err.validation('adapter', `adapter must be one of ${adapters.join(', ')}`);
  const period = checkWindow(input.from ?? undefined, input.to ?? undefined);
  const now = clock.now();
  const run = await inTenant(tenant(auth), async (tx) => {
    const row = await tx.reconRun.create({
      data: {
        ...scoped(auth),
        id: newId('reconciliationRun'),
        trigger: 'manual',
        adapter,
        periodStart: period.from,
        periodEnd: period.to,
        status: nextState(runMachine, null, 'queue').to,
        createdAt: now,
        updatedAt: now,
      },
    });
    await audit(tx, auth, 'reconciliation_run.created', row.id, ctx.requestId);
    return row;
  });
  return withAccount(auth, run);
}

function checkWindow(from: string | undefined, to: string | undefined) {
  const f = from === undefined ? null : instant(from, 'from');
  const t = to === undefined ? null : instant(to, 'to');
  if (f && t && t <= f) throw err.validation('to', 'to must be after from');
  if (f && t && t.getTime() - f.getTime() > MAX_PERIOD_DAYS * 86_400_000)
    throw err.validation('to', `the window is at most ${MAX_PERIOD_DAYS} days`);
  return { from: f, to: t };
}

export async function getMatch(ctx: Context, id: string): Promise<MatchRow> {
  const auth = authorize(ctx, READ);
  const row = await inTenant(tenant(auth), (tx) =>
    findScoped(tx.reconMatch, auth, id, () => err.notFound('reconciliation_match')),
  );
  return withAccount(auth, row);
}

export async function getException(ctx: Context, id: string): Promise<ExceptionRow> {
  const auth = authorize(ctx, READ);
  return inTenant(tenant(auth), async (tx) => {
    const row = await findScoped(tx.reconException, auth, id, () => err.notFound('reconciliation_exception'));
    const [withHistory] = await attachHistory(tx, auth, [row]);
    return withHistory;
  });
}

/** Each exception with its history, oldest first, in one query. */
async function attachHistory<T extends { id: string }>(tx: Tx, auth: Auth, rows: T[]) {
  const history = rows.length
    ? await tx.reconExceptionHistory.findMany({
        where: { ...scoped(auth), exceptionId: { in: rows.map((r) => r.id) } },
        orderBy: [{ at: 'asc' }, { id: 'asc' }],
      })
    : [];
  return rows.map((r) => withAccount(auth, { ...r, history: history.filter((h) => h.exceptionId === r.id) }));
}

export async function listMatches(ctx: Context, args: ListMatchesArgs): Promise<Connection<MatchRow>> {
  const auth = authorize(ctx, READ);
  matchList.check(args);
  const has = [
    ...(args.rowId ? [{ rowIds: { has: args.rowId } }] : []),
    ...(args.objectId ? [{ objectIds: { has: args.objectId } }] : []),
    ...(args.batchId ? [{ batchIds: { has: args.batchId } }] : []),
  ];
  return keysetList(
    {
      args: matchList.paged(args),
      workspaceId: auth.workspaceId,
      filters: matchList.values(args),
      limit: matchList.limit,
      column: matchList.position,
    },
    (ks) =>
      inTenant(tenant(auth), (tx) =>
        tx.reconMatch.findMany({
          where: { ...scoped(auth), AND: [...matchList.prisma(args), ...has, ks.where] },
          orderBy: ks.orderBy,
          take: ks.take,
        }),
      ).then((rows) => rows.map((r) => withAccount(auth, r))),
  );
}

export async function listExceptions(ctx: Context, args: ListExceptionsArgs): Promise<Connection<ExceptionRow>> {
  const auth = authorize(ctx, READ);
  exceptionList.check(args);
  return keysetList(
    {
      args: exceptionList.paged(args),
      workspaceId: auth.workspaceId,
      filters: exceptionList.values(args),
      limit: exceptionList.limit,
      column: exceptionList.position,
    },
    (ks) =>
      inTenant(tenant(auth), async (tx) => {
        const rows = await tx.reconException.findMany({
          where: { ...scoped(auth), AND: [...exceptionList.prisma(args), ks.where] },
          orderBy: ks.orderBy,
          take: ks.take,
        });
        return attachHistory(tx, auth, rows);
      }),
  );
}
