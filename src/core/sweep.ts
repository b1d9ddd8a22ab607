/**
 * Failure isolation for sweeps (docs/sweeps.md): every job that works through many tenants' rows
 * runs each row (or each tenant's batch) through a `Sweep`, so a throw for one row or one tenant
 * never stops the rest. The failing row is quarantined in `sweep_quarantine` with its error, left out
 * of that sweep until its retry time (exponential backoff, `backoffMs`), counted in /metrics and
 * logged once per failure with its ids; the quarantine is deleted when the row next succeeds.
 *
 * The database being away (src/core/db/unavailable.ts) is no row's fault: it is thrown on, the run
 * stops and its job is retried, and nothing is quarantined.
 *
 * Quarantine times are real time (`clock.now()`), also for a test clock's walk, whose business time
 * jumps ahead: a poisoned row is not retried at every simulated instant.
 */
import { Counter } from 'prom-client';
import { clock } from './clock.ts';
import { db } from './db/client.ts';
import { isDatabaseUnavailable } from './db/unavailable.ts';
import { sql as q, type Fragment } from './db/sql-template.ts';
import { logger } from './logger.ts';
import { registry } from './metrics.ts';

/**
 * The sweeps (a bounded set: a metric label). Retention, the idempotency purge and invitation expiry
 * are one set-based statement each, with no per-row code to fail (docs/sweeps.md).
 */
export const sweepNames = [
  'renewal',
  'incomplete_expiry',
  'invoice_attempt',
  'invoice_past_due',
  'checkout_expiry',
  'payment_method_expiry',
  'refund_pending',
  'checkout_attempt',
  'payout_schedule',
  'disbursement',
  'workspace_purge',
  'billing_email',
  'payment_action_expiry',
  'offsession_pending',
] as const;
export type SweepName = (typeof sweepNames)[number];

/** The retry schedule of a quarantined row: 1 minute after the first failure, doubling, at most 1 hour. */
export const QUARANTINE_BACKOFF = { firstMs: 60_000, maxMs: 3_600_000 } as const;
/** The wait after the `failures`-th consecutive failure. */
export const backoffMs = (failures: number) =>
  Math.min(QUARANTINE_BACKOFF.maxMs, QUARANTINE_BACKOFF.firstMs * 2 ** Math.max(0, failures - 1));

/** The `rowId` of a failure of a whole workspace and mode (nothing claimed yet, so no row to name). */
export const TENANT_ROW = '*';
/** Stored error text is cut to this: enough to find the cause, never a dump of the row. */
const ERROR_CHARS = 300;

const failuresTotal = new Counter({
  name: 'svc_sweep_failures_total',
  help: 'Rows (or whole tenants) a sweep of this process failed on and quarantined, by sweep',
  labelNames: ['sweep'] as const,
  registers: [registry],
});

export interface SweepScope {
  workspaceId: string;
  mode: string;
}
export interface SweepRow extends SweepScope {
  id: string;
}

interface Held {
  failures: number;
  retryAt: Date;
}
const keyOf = (s: SweepScope, rowId: string) => `${s.workspaceId}\u0000${s.mode}\u0000${rowId}`;

/**
 * `NOT EXISTS` a quarantine of the row that is still waiting, for a sweep's claim query (the columns
 * of the claimed row as fragments). In a tenant transaction RLS shows the tenant's own rows only.
 */
export const notQuarantined = (
  sweep: SweepName,
  row: { workspaceId: Fragment; mode: Fragment; id: Fragment },
  now: Date,
) =>
  q`NOT EXISTS (SELECT 1 FROM sweep_quarantine sq WHERE sq."workspaceId" = ${row.workspaceId} AND sq.mode = ${row.mode}
    AND sq.sweep = ${sweep} AND sq."rowId" = ${row.id} AND sq."retryAt" > ${now}::timestamptz)`;

/** What a batch's claim query needs (`claimFilter`), and where it reports the rows it claimed. */
export interface Claim {
  sweep: Sweep;
  /** The one row of a re-run after a failed batch (`Sweep.batch`), or null. */
  only: string | null;
  report: (ids: string[]) => void;
}

/**
 * The claim query's filter on table alias `t` (its columns "workspaceId", mode and id): rows not
 * waiting in quarantine, and only the re-run's row when there is one.
 */
export const claimFilter = (c: Claim, t: Fragment): Fragment => {
  const free = c.sweep.filter({ workspaceId: q`${t}."workspaceId"`, mode: q`${t}.mode`, id: q`${t}.id` });
  return c.only === null ? free : q`${free} AND ${t}.id = ${c.only}`;
};

/** One run of one sweep: what was quarantined when it started, and the isolation of each unit of work. */
export class Sweep {
  private constructor(
    readonly name: SweepName,
    /** Real time at the start of the run: a quarantine waits while its `retryAt` is later. */
    readonly now: Date,
    private readonly held: Map<string, Held>,
  ) {}

  /**
   * The runs of several sweeps, with their quarantines read in one query (of one tenant when
   * `scope` is given): a billing tick or a clock's instant runs three of them.
   */
  static async start<N extends SweepName>(names: readonly N[], scope?: SweepScope | null): Promise<Record<N, Sweep>> {
    const now = clock.now();
    const { rows } = await db().system.query<SweepRow & Held & { sweep: N }>(
      `SELECT sweep, "workspaceId", mode, "rowId" AS id, failures, "retryAt" FROM sweep_quarantine
       WHERE sweep = ANY ($1::text[]) AND ($2::text IS NULL OR ("workspaceId" = $2 AND mode = $3))`,
      [names, scope?.workspaceId ?? null, scope?.mode ?? null],
    );
    const out = {} as Record<N, Sweep>;
    for (const n of names) out[n] = new Sweep(n, now, new Map());
    for (const r of rows) out[r.sweep].held.set(keyOf(r, r.id), { failures: r.failures, retryAt: r.retryAt });
    return out;
  }

  static async one(name: SweepName, scope?: SweepScope | null): Promise<Sweep> {
    return (await Sweep.start([name], scope))[name];
  }

  /** The claim-query filter of this sweep (`notQuarantined`) at this run's time. */
  filter(row: { workspaceId: Fragment; mode: Fragment; id: Fragment }): Fragment {
    return notQuarantined(this.name, row, this.now);
  }

  /** True while the row (or its whole tenant) waits out its backoff. */
  waiting(scope: SweepScope, rowId: string = TENANT_ROW): boolean {
    for (const k of rowId === TENANT_ROW ? [TENANT_ROW] : [TENANT_ROW, rowId]) {
      const h = this.held.get(keyOf(scope, k));
      if (h && h.retryAt > this.now) return true;
    }
    return false;
  }

  /**
   * One row's unit of work: a throw quarantines the row (undefined returned), a success clears it.
   * `retries: 'queue'`: a job queue's own retries decide when it runs again (the quarantine records).
   */
  async row<T>(row: SweepRow, fn: () => Promise<T>, o: { retries?: 'queue' } = {}): Promise<T | undefined> {
    if (o.retries !== 'queue' && this.waiting(row, row.id)) return undefined;
    try {
      const out = await fn();
      await this.clear(row, [row.id]);
      return out;
    } catch (e) {
      if (isDatabaseUnavailable(e)) throw e;
      await this.quarantine(row, row.id, e);
      return undefined;
    }
  }

  /** Rows listed before the work, each run alone: the sum of what `fn` returns for those that succeed. */
  async rows<R extends SweepRow>(rows: readonly R[], fn: (row: R) => Promise<number>): Promise<number> {
    let n = 0;
    for (const r of rows) n += (await this.row(r, () => fn(r))) ?? 0;
    return n;
  }

  /**
   * Rows listed before the work, run in groups of one tenant's (at most `size`, in their order) by
   * `fn`, one transaction per group: a group that throws is run again one row at a time, and only a
   * row that fails alone is quarantined. The sum of what `fn` returns for those that succeed.
   */
  async groups<R extends SweepRow>(rows: readonly R[], size: number, fn: (rows: R[]) => Promise<number>) {
    const tenants = new Map<string, R[]>();
    for (const r of rows) {
      if (this.waiting(r, r.id)) continue;
      const k = keyOf(r, '');
      const mine = tenants.get(k);
      if (mine) mine.push(r);
      else tenants.set(k, [r]);
    }
    let n = 0;
    for (const mine of tenants.values())
      for (let i = 0; i < mine.length; i += size) {
        const group = mine.slice(i, i + size);
        if (group.length > 1)
          try {
            n += await fn(group);
            await this.clear(
              group[0],
              group.map((r) => r.id),
            );
            continue;
          } catch (e) {
            if (isDatabaseUnavailable(e)) throw e;
          }
        for (const r of group) n += (await this.row(r, () => fn([r]))) ?? 0;
      }
    return n;
  }

  /** A unit of work of one whole tenant (no row to name): a throw quarantines the tenant for this sweep. */
  async tenant<T>(scope: SweepScope, fn: () => Promise<T>): Promise<T | undefined> {
    return this.row({ ...scope, id: TENANT_ROW }, fn);
  }

  /**
   * One tenant's batch whose rows are claimed inside `run` (a transaction, `FOR UPDATE SKIP LOCKED`):
   * `run(null, report)` claims a batch and reports its ids through `report` before working on them.
   * When it throws, its transaction rolled back, so each claimed row is run again alone (`run(id)`),
   * and only the rows that fail alone are quarantined. A throw before any claim quarantines the tenant.
   * `results`: of the runs that committed; `claimed`: rows the first run claimed; `stuck`: a failure
   * could not be quarantined (the database refusing), so the caller must not claim again in this run.
   */
  async batch<T>(scope: SweepScope, run: (only: string | null, report: (ids: string[]) => void) => Promise<T>) {
    const out = { results: [] as T[], claimed: 0, stuck: false };
    if (this.waiting(scope)) return out;
    let ids: string[] | null = null;
    try {
      out.results.push(
        await run(null, (c) => {
          ids = c;
        }),
      );
      out.claimed = ids ? (ids as string[]).length : 0;
      await this.clear(scope, [TENANT_ROW, ...(ids ?? [])]);
      return out;
    } catch (e) {
      if (isDatabaseUnavailable(e)) throw e;
      const claimed = ids as string[] | null;
      out.claimed = claimed?.length ?? 0;
      if (claimed === null || claimed.length === 1) {
        out.stuck = !(await this.quarantine(scope, claimed?.[0] ?? TENANT_ROW, e));
        return out;
      }
      for (const id of claimed) {
        const one = await this.row({ ...scope, id }, () => run(id, () => {}));
        if (one !== undefined) out.results.push(one);
        else if (!this.held.has(keyOf(scope, id))) out.stuck = true;
      }
      return out;
    }
  }

  /** Deletes the quarantines of rows that succeeded (only those held when the run started: no query otherwise). */
  private async clear(scope: SweepScope, rowIds: string[]) {
    const held = rowIds.filter((id) => this.held.has(keyOf(scope, id)));
    if (!held.length) return;
    await db().system.query(
      `DELETE FROM sweep_quarantine WHERE "workspaceId" = $1 AND mode = $2 AND sweep = $3 AND "rowId" = ANY ($4::text[])`,
      [scope.workspaceId, scope.mode, this.name, held],
    );
    for (const id of held) this.held.delete(keyOf(scope, id));
    logger.info(
      { sweep: this.name, workspaceId: scope.workspaceId, mode: scope.mode, rowIds: held },
      'sweep quarantine cleared',
    );
  }

  /** Records (or counts again) the row's failure with its next retry time, and logs it once; false if it could not. */
  private async quarantine(scope: SweepScope, rowId: string, e: unknown): Promise<boolean> {
    const err = e as { code?: unknown; name?: string; message?: string };
    const code = typeof err?.code === 'string' ? err.code : (err?.name ?? null);
    const message = String(err?.message ?? e).slice(0, ERROR_CHARS);
    failuresTotal.inc({ sweep: this.name });
    const ids = { sweep: this.name, workspaceId: scope.workspaceId, mode: scope.mode, rowId };
    try {
      const now = clock.now();
      const { rows } = await db().system.query<Held>(
        `INSERT INTO sweep_quarantine ("workspaceId", mode, sweep, "rowId", failures, "errorCode", error,
           "firstFailedAt", "lastFailedAt", "retryAt")
         VALUES ($1, $2, $3, $4, 1, $5, $6, $7, $7, $7::timestamptz + $8 * interval '1 millisecond')
         ON CONFLICT ("workspaceId", mode, sweep, "rowId") DO UPDATE SET failures = sweep_quarantine.failures + 1,
           "errorCode" = EXCLUDED."errorCode", error = EXCLUDED.error, "lastFailedAt" = EXCLUDED."lastFailedAt",
           "retryAt" = EXCLUDED."lastFailedAt"
             + least($9::float8, $8 * power(2, sweep_quarantine.failures)) * interval '1 millisecond'
         RETURNING failures, "retryAt"`,
        [scope.workspaceId, scope.mode, this.name, rowId, code, message, now, backoffMs(1), QUARANTINE_BACKOFF.maxMs],
      );
      this.held.set(keyOf(scope, rowId), rows[0]);
      logger.warn({ ...ids, ...rows[0], errorCode: code, err: message }, 'sweep row failed: quarantined');
      return true;
    } catch (qe) {
      // The database itself failing: the row is retried on the next run, which is all a quarantine adds.
      logger.error({ ...ids, errorCode: code, err: message, quarantineErr: (qe as Error).message }, 'sweep row failed');
      return false;
    }
  }
}
