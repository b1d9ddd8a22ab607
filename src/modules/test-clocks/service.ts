import type pg from 'pg';
import type { PgBoss, Queue } from 'pg-boss';
import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import type { Auth } from '../../core/auth/authenticate.ts';
import { clock } from '../../core/clock.ts';
import { db, inTenant, type Mode, type Tx } from '../../core/db/client.ts';
import { DomainError, errorsFor } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { logger } from '../../core/logger.ts';
import { isDatabaseUnavailable } from '../../core/db/unavailable.ts';
import { emit } from '../../core/outbox.ts';
import { checkOrder, keysetList, listPageSize } from '../../core/pagination.ts';
import { scoped, type RowScope } from '../../core/resource.ts';
import { canMove, nextState } from '../../core/state-machine.ts';
import { checkLength } from '../../core/validation.ts';
import { toWire } from '../../core/wire.ts';
import type { TestClock } from '../../generated/prisma/client.ts';
import { onClient } from '../webhooks/queue.ts';
import { lockSubscription, moveSubscription } from '../subscriptions/moves.ts';
import { periodIndexAt, type Interval } from '../../core/periods.ts';
import {
  subscriptionLive,
  subscriptionMachine,
  subscriptionRenewable,
  type SubscriptionStatus,
} from '../subscriptions/states.ts';
import { testClockFields } from './fields.ts';
import type { ListTestClocksArgs, TestClockInput } from './schema.ts';
import { testClockMachine, type TestClockStatus } from './states.ts';
import { clockLimits } from '../../core/business-time.ts';
import { clockWork } from './work.ts';
import { enterWalk, leaveWalk, tryEnterWalk, walksStopping } from './walkers.ts';

const err = errorsFor('test_clock');
const snapshot = (c: TestClock) => toWire(c, testClockFields);
/** The status of a clock whose advance is under way (states.ts). */
const ADVANCING = testClockMachine.moves.advance.to;
const tenantOf = (s: RowScope) => ({ workspaceId: s.workspaceId, mode: s.mode, modes: [s.mode] });

// Scopes (docs/decisions.md, Test clocks): a clock simulates billing, so the subscription scopes.
function testOnly(ctx: Context, scope: 'svc:subscription:read' | 'svc:subscription:write'): Auth {
  const auth = authorize(ctx, scope);
  if (auth.mode !== 'test')
    throw new DomainError('forbidden_in_live_mode', 'Test clocks are available in test mode only', {
      resource: 'test_clock',
    });
  return auth;
}

function checkTime(value: Date | null | undefined): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime()))
    throw err.validation('frozenTime', 'frozenTime is required: ISO 8601 or epoch seconds');
  // Postgres timestamptz and JavaScript agree on years 1970-9999; a clock needs nothing wider.
  if (value.getTime() < 0 || value.getUTCFullYear() > 9000)
    throw err.validation('frozenTime', 'frozenTime must be between 1970 and 9000');
  return value;
}

/** A live (not deleted) clock of the caller, locked when `lock`; unknown and deleted read alike. */
async function findClock(tx: Tx, scope: RowScope, id: string, lock = false): Promise<TestClock> {
  if (lock)
    await tx.$queryRaw`SELECT 1 FROM test_clocks
      WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode} AND id = ${id} FOR UPDATE`;
  const row = await tx.testClock.findFirst({ where: { ...scoped(scope), id, deletedAt: null } });
  if (!row) throw err.notFound('test_clock');
  return row;
}

/** Whether an advance runs before the answer: the clock holds few customers and few subscriptions. */
async function isSmall(tx: Tx, scope: RowScope, id: string): Promise<boolean> {
  const [customers, subscriptions] = await Promise.all([
    tx.customer.count({ where: { ...scoped(scope), testClockId: id } }),
    tx.subscription.count({ where: { ...scoped(scope), testClockId: id, status: { in: [...subscriptionLive] } } }),
  ]);
  return Math.max(customers, subscriptions) <= clockLimits.syncObjects;
}

/**
 * Refuses an advance that would bill more renewal cycles than clockLimits allows (docs/decisions.md,
 * Test clocks): per subscription, the periods that start by `target` after its current one (one for
 * a period-end cancel), counted from each subscription's anchor and its plan's interval.
 */
async function checkCycles(tx: Tx, scope: RowScope, id: string, target: Date) {
  const groups = await tx.$queryRaw<
    { anchorAt: Date; periodIndex: number; cancel: boolean; interval: Interval; intervalCount: number; n: number }[]
  >`SELECT s."anchorAt", s."periodIndex", s."cancelAtPeriodEnd" AS cancel, pl.interval, pl."intervalCount",
      count(*)::int AS n
    FROM subscriptions s
    JOIN plans pl ON pl."workspaceId" = s."workspaceId" AND pl.mode = s.mode AND pl.id = s."planId"
    WHERE s."workspaceId" = ${scope.workspaceId} AND s.mode = ${scope.mode} AND s."testClockId" = ${id}
      AND s.status = ANY(${[...subscriptionRenewable]}::text[]) AND s."currentPeriodEnd" <= ${target}
    GROUP BY 1, 2, 3, 4, 5`;
  let total = 0;
  let most = 0;
  for (const g of groups) {
    const cycles = g.cancel ? 1 : periodIndexAt(g.anchorAt, g, target) - g.periodIndex;
    most = Math.max(most, cycles);
    total += cycles * g.n;
  }
  const { maxCyclesPerAdvance: all, maxCyclesPerSubscription: one } = clockLimits;
  if (most > one || total > all)
    throw err.validation(
      'frozenTime',
      `this advance would bill ${total} renewal cycles (${most} of one subscription); one advance bills at most ` +
        `${all} (${one} of one subscription): advance in smaller steps`,
    );
}

export async function createTestClock(ctx: Context, input: TestClockInput) {
  const auth = testOnly(ctx, 'svc:subscription:write');
  const frozenTime = checkTime(input.frozenTime);
  const name = input.name == null ? null : checkLength(input.name, 'name', 1, 255, 'test_clock');
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    // Counted under a per-workspace lock for this transaction: concurrent creates cannot pass the cap together.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`test_clocks:${auth.workspaceId}`}, 0))`;
    const live = await tx.testClock.count({ where: { ...scoped(auth), deletedAt: null } });
    if (live >= clockLimits.maxClocks)
      throw err.of(
        'tier_cap_reached',
        `A workspace holds at most ${clockLimits.maxClocks} test clocks; delete one before creating another`,
      );
    const now = clock.now();
    const { to, events } = nextState(testClockMachine, null, 'create');
    const row = await tx.testClock.create({
      data: { id: newId('testClock'), ...scoped(auth), name, frozenTime, status: to, createdAt: now, updatedAt: now },
    });
    for (const type of events) await emit(tx, scope, type, snapshot(row), { requestId: ctx.requestId });
    return row;
  });
}

export async function getTestClock(ctx: Context, id: string) {
  const auth = testOnly(ctx, 'svc:subscription:read');
  return inTenant(tenant(auth), (tx) => findClock(tx, auth, id));
}

export async function listTestClocks(ctx: Context, args: ListTestClocksArgs) {
  const auth = testOnly(ctx, 'svc:subscription:read');
  checkOrder(args.order, 'test_clock');
  return keysetList(
    { args, workspaceId: auth.workspaceId, filters: {}, limit: listPageSize.testClocks, column: 'createdAt' },
    (ks) =>
      inTenant(tenant(auth), (tx) =>
        tx.testClock.findMany({
          where: { ...scoped(auth), deletedAt: null, AND: [ks.where] },
          orderBy: ks.orderBy,
          take: ks.take,
        }),
      ),
  );
}

/**
 * POST /v1/test-clocks/:id/advance (DECISIONS §3; docs/billing.md, Test clocks: 200 with the clock). Forward only.
 * The clock moves to `advancing` first (a second advance meanwhile is 409), then everything due up to
 * the target runs in time order (`walkClock`): before the answer for a small clock (`ready`), else in
 * the `test-clock-advance` job, which the relay enqueues on `test_clock.advancing` (`advancing`).
 */
export async function advanceTestClock(ctx: Context, id: string, input: { frozenTime?: Date | null }) {
  const auth = testOnly(ctx, 'svc:subscription:write');
  const target = checkTime(input.frozenTime);
  const scope = tenant(auth);
  const { row, small } = await inTenant(scope, async (tx) => {
    const found = await findClock(tx, auth, id, true);
    if (found.status === ADVANCING) throw err.conflict('The test clock is advancing; wait until it is ready');
    if (target <= found.frozenTime)
      throw err.validation('frozenTime', "frozenTime must be later than the clock's current frozenTime");
    if (target.getTime() - found.frozenTime.getTime() > clockLimits.maxSimulatedMs)
      throw err.validation('frozenTime', 'one advance moves a test clock at most 5 years');
    await checkCycles(tx, auth, id, target);
    const { to, events } = nextState(testClockMachine, found.status as TestClockStatus, 'advance');
    const row = await tx.testClock.update({
      where: { workspaceId_mode_id: { ...scoped(auth), id } },
      data: { status: to, advanceTarget: target, updatedAt: clock.now() },
    });
    for (const type of events) await emit(tx, scope, type, snapshot(row), { requestId: ctx.requestId });
    return { row, small: await isSmall(tx, auth, id) };
  });
  if (!small) return row;
  return walkClock(auth, id, { request: true, requestId: ctx.requestId, budgetMs: clockLimits.syncBudgetMs });
}

/** DELETE /v1/test-clocks/:id (204): soft; the clock then reads as unknown. */
export async function deleteTestClock(ctx: Context, id: string) {
  const auth = testOnly(ctx, 'svc:subscription:write');
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    const found = await findClock(tx, auth, id, true);
    if (found.status === ADVANCING) throw err.conflict('The test clock is advancing; wait until it is ready');
    const now = clock.now();
    // A soft delete: its subscriptions end at the clock's time, the ledger stays (docs/billing.md, Test clocks).
    const subs = await tx.subscription.findMany({
      where: { ...scoped(auth), testClockId: id, status: { in: [...subscriptionLive] } },
      select: { id: true },
      orderBy: { id: 'asc' },
    });
    for (const { id: subId } of subs) {
      const sub = await lockSubscription(tx, auth, subId);
      if (!sub || !canMove(subscriptionMachine, sub.status as SubscriptionStatus, 'cancel')) continue;
      const at = found.frozenTime;
      await moveSubscription(
        tx,
        auth,
        sub,
        'cancel',
        { canceledAt: at },
        {
          at,
          requestId: ctx.requestId,
          source: 'test_clock',
        },
      );
    }
    const row = await tx.testClock.update({
      where: { workspaceId_mode_id: { ...scoped(auth), id } },
      data: { deletedAt: now, updatedAt: now },
    });
    await emit(tx, scope, 'test_clock.deleted', snapshot(row), { requestId: ctx.requestId });
    return true;
  });
}

/**
 * Runs `fn` holding a session advisory lock on the clock, on one system connection that `fn` also
 * uses for the walk's own queries (work.ts `nextDue`): one walker per clock at a time, across
 * requests, jobs and processes. Never waits for the lock (a waiting lock would hold its connection
 * idle): null when another walker holds it.
 */
async function withClockLock<T>(scope: RowScope, id: string, fn: (client: pg.ClientBase) => Promise<T>) {
  const client = await db().system.connect();
  let broken: Error | undefined;
  const key = `test_clock:${scope.workspaceId}:${scope.mode}:${id}`;
  try {
    const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok', [
      key,
    ]);
    if (!rows[0].ok) return null;
    try {
      return await fn(client);
    } finally {
      // An unlock that fails (the connection cut in a failover) destroys the connection rather than
      // pooling it: a pooled connection still holding the session lock would refuse every later walk
      // of the clock in this process.
      await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]).catch((e: Error) => {
        broken = e;
      });
    }
  } catch (e) {
    broken ??= e as Error;
    throw e;
  } finally {
    client.release(broken);
  }
}

/** How long a job waits for another walker of its clock (a request's, at most `syncBudgetMs`). */
const JOB_LOCK_WAIT_MS = 30_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The advance itself (docs/billing.md, Test clocks: time walks in order): repeat {t = the earliest instant at which
 * one of the clock's items is due, up to the target; process every item due at t with t as now;
 * the clock's frozenTime becomes t}, then frozenTime = target and `ready` (+ `test_clock.ready`).
 * Each step commits as it goes, so a crashed or stopped walk resumes where it stopped (the sweep).
 * A failure leaves `internal_failure` at the time reached.
 *
 * A walk takes one of the process's walker slots (walkers.ts): a request's walk (`request`) only
 * when one is free, else it answers `advancing` and the job walks; it stops after `budgetMs` and
 * leaves the clock `advancing` at the time reached. A job waits for a slot, and for another walker
 * of the same clock, without holding a connection.
 */
export async function walkClock(
  scope: RowScope,
  id: string,
  opts: { request?: boolean; requestId?: string; budgetMs?: number } = {},
): Promise<TestClock> {
  const started = performance.now();
  const deadline = opts.budgetMs === undefined ? Number.POSITIVE_INFINITY : started + opts.budgetMs;
  const lockWait = opts.request ? deadline : started + JOB_LOCK_WAIT_MS;
  const t = tenantOf(scope);
  const read = () => inTenant(t, (tx) => tx.testClock.findFirstOrThrow({ where: { ...scoped(scope), id } }));
  if (!(opts.request ? tryEnterWalk() : await enterWalk())) return read();
  try {
    for (;;) {
      const walked = await withClockLock(scope, id, (client) =>
        walkLocked(client, scope, id, deadline, opts.requestId),
      );
      if (walked) return walked;
      const now = await read();
      if (now.status !== ADVANCING || walksStopping() || performance.now() >= lockWait) return now;
      await sleep(200);
    }
  } finally {
    leaveWalk();
  }
}

async function walkLocked(
  client: pg.ClientBase,
  scope: RowScope,
  id: string,
  deadline: number,
  requestId?: string,
): Promise<TestClock> {
  const t = tenantOf(scope);
  const read = () => inTenant(t, (tx) => tx.testClock.findFirstOrThrow({ where: { ...scoped(scope), id } }));
  const start = await read();
  if (start.status !== ADVANCING || !start.advanceTarget) return start;
  const target = start.advanceTarget;
  let now = start.frozenTime;
  try {
    for (let steps = 0; ; steps++) {
      if (steps > 1_000_000) throw new Error('test clock walk did not converge');
      if (performance.now() > deadline || walksStopping()) return read();
      let at: Date | null = null;
      for (const w of clockWork) {
        const d = await w.nextDue(client, scope, id, target);
        if (d && (!at || d < at)) at = d;
      }
      if (!at) break;
      if (at < now) at = now;
      let moved = 0;
      for (const w of clockWork) moved += await w.runDue(client, scope, id, at);
      // Stopped inside the instant: its time is not reached yet (the resumed walk finishes it).
      if (walksStopping()) return read();
      if (at > now) {
        now = at;
        await inTenant(t, (tx) =>
          tx.testClock.update({ where: { workspaceId_mode_id: { ...scoped(scope), id } }, data: { frozenTime: at } }),
        );
      } else if (moved === 0) break; // due before the clock's time and nothing moved: not ours to retry
    }
    return await settle(scope, id, 'finish', target, requestId);
  } catch (e) {
    // The database gone for a moment (a failover) is an outage, not a fault of the walk: the clock
    // stays `advancing` at the time reached (each step committed) and the throw goes on, so the job is
    // retried (or the request answers 503) and a retry or the sweep resumes the walk. Settling it
    // `internal_failure` here would need the database that just went away.
    if (isDatabaseUnavailable(e)) {
      logger.warn(
        { err: (e as Error).message, testClock: id },
        'test clock advance cut by the database; resumed later',
      );
      throw e;
    }
    logger.error({ err: (e as Error).message, testClock: id }, 'test clock advance failed');
    return settle(scope, id, 'fail', null, requestId);
  }
}

async function settle(
  scope: RowScope,
  id: string,
  trigger: 'finish' | 'fail',
  target: Date | null,
  requestId?: string,
) {
  const t = tenantOf(scope);
  return inTenant(t, async (tx) => {
    const found = await tx.testClock.findFirstOrThrow({ where: { ...scoped(scope), id } });
    const { to, events } = nextState(testClockMachine, found.status as TestClockStatus, trigger);
    const row = await tx.testClock.update({
      where: { workspaceId_mode_id: { ...scoped(scope), id } },
      data: { status: to, advanceTarget: null, updatedAt: clock.now(), ...(target ? { frozenTime: target } : {}) },
    });
    for (const type of events) await emit(tx, t, type, snapshot(row), { requestId, source: 'test_clock' });
    return row;
  });
}

/**
 * The `test-clock-advance` job's sweep: every clock left `advancing` (its job lost, its walker killed
 * or stopped by a shutdown, a request's walk past its budget) gets a job again, in its workspace's
 * group (fair scheduling, below), at most one per clock a minute; a job that finds the clock ready,
 * or walked by another, has nothing to do. Cross-tenant, so on the owner pool (docs/scaling.md).
 */
export async function requeueAdvancingClocks(boss: PgBoss, limit = 500): Promise<number> {
  const { rows } = await db().system.query<TestClockJob>(
    `SELECT "workspaceId", mode, id AS "testClockId" FROM test_clocks WHERE status = $2 AND "deletedAt" IS NULL
     ORDER BY "updatedAt" LIMIT $1`,
    [limit, ADVANCING],
  );
  for (const data of rows)
    await boss.sendThrottled(TEST_CLOCK_QUEUE, data, { group: { id: data.workspaceId } }, 60, data.testClockId);
  return rows.length;
}

export const TEST_CLOCK_QUEUE = 'test-clock-advance';
/** How long a claimed job may go without its worker's heartbeat before it is failed for retry. */
export const TEST_CLOCK_HEARTBEAT_SEC = 15;
export const testClockQueue: Omit<Queue, 'name'> = {
  retryLimit: 3,
  retryDelay: 5,
  expireInSeconds: 900,
  // A job whose worker could not complete or fail it (both cut by a failover) would stay `active`
  // until its expiry, and the queue runs one job per workspace at a time (jobs/test-clock-advance.ts):
  // every advance of that workspace, the sweep's re-queues included, would wait the 900 s. Its
  // heartbeat stops with its handler, so pg-boss's supervisor fails it for retry this long after.
  heartbeatSeconds: TEST_CLOCK_HEARTBEAT_SEC,
  deleteAfterSeconds: 3600,
};

export interface TestClockJob {
  workspaceId: string;
  mode: Mode;
  testClockId: string;
}

const [ADVANCING_EVENT] = testClockMachine.moves.advance.events ?? [];

/** Runs in the relay's publishing transaction: one `test-clock-advance` job per advance it published. */
export function testClockFanOut(boss: PgBoss) {
  return async (client: pg.ClientBase, events: { id: string; type: string }[]) => {
    const started = events.filter((e) => e.type === ADVANCING_EVENT).map((e) => e.id);
    if (!started.length) return;
    const { rows } = await client.query<TestClockJob>(
      `SELECT "workspaceId", mode, "objectId" AS "testClockId" FROM events WHERE id = ANY($1::text[])`,
      [started],
    );
    // Grouped by workspace: the worker runs one walk per workspace at a time (jobs/test-clock-advance.ts), so one
    // workspace's burst of advances queues behind itself, not in front of every other workspace's.
    if (rows.length)
      await boss.insert(
        TEST_CLOCK_QUEUE,
        rows.map((data) => ({ data, group: { id: data.workspaceId } })),
        { db: onClient(client) },
      );
  };
}
