// src/core/sweep.ts, the isolation every sweep runs its rows through, on a real
// database: a failing row or tenant is quarantined with backoff, the rest run, success clears it.
import { afterEach, describe, expect, it } from 'vitest';
import { db, useServer } from '../helpers/server.ts';
import { clock } from '../../src/core/clock.ts';
import { backoffMs, Sweep, TENANT_ROW } from '../../src/core/sweep.ts';

const server = useServer();
afterEach(() => clock.reset());
const MIN = 60_000;

const held = async (workspaceId: string) =>
  (
    await db().system.query(
      `SELECT sweep, "rowId", failures, "errorCode", error FROM sweep_quarantine WHERE "workspaceId" = $1 ORDER BY "rowId"`,
      [workspaceId],
    )
  ).rows;

describe('sweep isolation', () => {
  it('the backoff doubles from 1 minute and stays at 1 hour', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 20].map((n) => backoffMs(n) / MIN)).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60]);
  });

  it('rows: one throwing row is quarantined and skipped until its retry time, the others run; success clears it', async () => {
    const ws = await server.workspace();
    const rows = ['r1', 'r2', 'r3'].map((id) => ({ workspaceId: ws.workspaceId, mode: 'test', id }));
    let broken = true;
    const ran: string[] = [];
    const unit = async (r: { id: string }) => {
      ran.push(r.id);
      if (r.id === 'r2' && broken) throw new RangeError('a line amount exceeds 2^53 - 1 minor units');
      return 1;
    };
    expect(await (await Sweep.one('invoice_past_due')).rows(rows, unit)).toBe(2);
    expect(ran).toEqual(['r1', 'r2', 'r3']);
    expect(await held(ws.workspaceId)).toEqual([
      {
        sweep: 'invoice_past_due',
        rowId: 'r2',
        failures: 1,
        errorCode: 'RangeError',
        error: 'a line amount exceeds 2^53 - 1 minor units',
      },
    ]);
    // Before its retry time it is not run at all; another sweep's rows of the same id are not affected.
    ran.length = 0;
    broken = false;
    expect(await (await Sweep.one('invoice_past_due')).rows(rows, unit)).toBe(2);
    expect(ran).toEqual(['r1', 'r3']);
    expect(await (await Sweep.one('checkout_expiry')).rows(rows, unit)).toBe(3);
    // After it, it runs, and the quarantine is gone.
    clock.advance(backoffMs(1));
    ran.length = 0;
    expect(await (await Sweep.one('invoice_past_due')).rows(rows, unit)).toBe(3);
    expect(ran).toEqual(['r1', 'r2', 'r3']);
    expect(await held(ws.workspaceId)).toEqual([]);
  });

  it("groups: one tenant's rows together; a failed group is re-run row by row and only the failing row is quarantined", async () => {
    const a = await server.workspace();
    const b = await server.workspace();
    const rows = [
      ...['a1', 'a2', 'a3'].map((id) => ({ workspaceId: a.workspaceId, mode: 'test', id })),
      ...['b1', 'b2'].map((id) => ({ workspaceId: b.workspaceId, mode: 'test', id })),
    ];
    const calls: string[][] = [];
    const unit = async (group: { id: string }[]) => {
      calls.push(group.map((r) => r.id));
      if (group.some((r) => r.id === 'a2')) throw new Error('bad row');
      return group.length;
    };
    // Groups of at most 2 of one tenant: [a1 a2] fails and runs row by row, [a3] and [b1 b2] commit as they are.
    expect(await (await Sweep.one('payment_method_expiry')).groups(rows, 2, unit)).toBe(4);
    expect(calls).toEqual([['a1', 'a2'], ['a1'], ['a2'], ['a3'], ['b1', 'b2']]);
    expect((await held(a.workspaceId)).map((r) => r.rowId)).toEqual(['a2']);
    expect(await held(b.workspaceId)).toEqual([]);
    // While it waits out its backoff it is left out of its group.
    calls.length = 0;
    expect(await (await Sweep.one('payment_method_expiry')).groups(rows, 2, unit)).toBe(4);
    expect(calls).toEqual([
      ['a1', 'a3'],
      ['b1', 'b2'],
    ]);
  });

  it('batch: a failed batch is re-run row by row and only the failing row is quarantined; a failure before the claim holds the tenant', async () => {
    const ws = await server.workspace();
    const scope = { workspaceId: ws.workspaceId, mode: 'test' };
    const calls: (string | null)[] = [];
    const run = async (only: string | null, report: (ids: string[]) => void) => {
      calls.push(only);
      const ids = only ? [only] : ['a', 'b', 'c'];
      report(ids);
      if (ids.includes('b'))
        throw Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' });
      return ids.length;
    };
    const out = await (await Sweep.one('renewal')).batch(scope, run);
    expect(out).toEqual({ results: [1, 1], claimed: 3, stuck: false });
    expect(calls).toEqual([null, 'a', 'b', 'c']);
    expect(await held(ws.workspaceId)).toMatchObject([{ sweep: 'renewal', rowId: 'b', errorCode: '23505' }]);

    // The tenant itself failing (nothing claimed): quarantined as `*`, its batches skipped until the retry.
    const failing = async () => {
      throw new Error('relation missing');
    };
    expect((await (await Sweep.one('renewal')).batch(scope, failing)).claimed).toBe(0);
    expect((await held(ws.workspaceId)).map((r) => r.rowId)).toEqual([TENANT_ROW, 'b']);
    calls.length = 0;
    const waiting = await Sweep.one('renewal');
    expect(waiting.waiting(scope)).toBe(true);
    expect(await waiting.batch(scope, run)).toEqual({ results: [], claimed: 0, stuck: false });
    expect(calls).toEqual([]);
    // Its second failure waits twice as long; after that a good batch clears the tenant.
    clock.advance(backoffMs(1));
    await (await Sweep.one('renewal')).batch(scope, failing);
    const twice = (
      await db().system.query(
        `SELECT failures, extract(epoch FROM "retryAt" - "lastFailedAt") * 1000 AS wait FROM sweep_quarantine
         WHERE "workspaceId" = $1 AND "rowId" = $2`,
        [ws.workspaceId, TENANT_ROW],
      )
    ).rows[0];
    expect([twice.failures, Number(twice.wait)]).toEqual([2, backoffMs(2)]);
    clock.advance(backoffMs(2));
    const ok = await (await Sweep.one('renewal')).batch(scope, async (_only, report) => {
      report(['d']);
      return 1;
    });
    expect(ok).toEqual({ results: [1], claimed: 1, stuck: false });
    expect((await held(ws.workspaceId)).map((r) => r.rowId)).toEqual(['b']);
  });

  it("the database being away is no row's fault: the run stops with it and nothing is quarantined", async () => {
    const ws = await server.workspace();
    const rows = ['r1', 'r2'].map((id) => ({ workspaceId: ws.workspaceId, mode: 'test', id }));
    const away = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    const sweep = await Sweep.one('checkout_expiry');
    await expect(
      sweep.rows(rows, async () => {
        throw away;
      }),
    ).rejects.toBe(away);
    await expect(
      sweep.batch({ workspaceId: ws.workspaceId, mode: 'test' }, async (_only, report) => {
        report(['a', 'b']);
        throw away;
      }),
    ).rejects.toBe(away);
    expect(await held(ws.workspaceId)).toEqual([]);
  });
});
