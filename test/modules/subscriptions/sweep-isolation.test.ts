// One bad subscription does not stop renewals and dunning for every workspace.
// A poisoned row is quarantined (src/core/sweep.ts) while another workspace's renewal and dunning
// retry run in the same tick; it shows in /metrics, waits out its backoff, and clears when fixed.
import { afterEach, describe, expect, it } from 'vitest';
import { db, useServer, type Workspace } from '../../helpers/server.ts';
import { until } from '../../helpers/receiver.ts';
import {
  customer,
  dunningPolicy,
  invoicesOf,
  pastDueWithPayingRetry,
  plan,
  scopeOf,
  seedSubscription,
  subscriptionRow,
} from '../../helpers/renewals.ts';
import { newId } from '../../../src/core/ids.ts';
import { clock } from '../../../src/core/clock.ts';
import { config } from '../../../src/core/config.ts';
import { backoffMs } from '../../../src/core/sweep.ts';
import { processDue } from '../../../src/modules/subscriptions/renewals.ts';
import { clockedSubscriptions } from '../../helpers/clocked-subscriptions.ts';

const server = useServer();
afterEach(() => clock.reset());
const at10 = (day: string) => new Date(`${day}T10:00:00.000Z`);
const MAX = Number.MAX_SAFE_INTEGER;
const TICK = at10('2026-02-11');

const quarantined = async (rowId: string) =>
  (await db().system.query('SELECT * FROM sweep_quarantine WHERE "rowId" = $1', [rowId])).rows[0];

/** Scraped as a Prometheus with the metrics token would (docs/security.md: /metrics needs it). */
async function scrapeQuarantined(sweep: string) {
  config.metrics.token ??= 'sweep-isolation-metrics-token';
  const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${config.metrics.token}` } });
  expect(res.status).toBe(200);
  const text = await res.text();
  const line = text.split('\n').find((l) => l.startsWith(`svc_sweep_quarantined_rows{sweep="${sweep}"} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

/** A usage subscription of price unitAmount 2^53 - 1, due at TICK, with usage 1 reported through the API. */
async function bigUsageSubscription(ws: Workspace, cus: string) {
  const usage = await plan(ws, {
    usageAggregate: 'sum',
    prices: [{ currency: 'IDR', model: 'usage', unitAmount: MAX }],
  });
  const sub = await seedSubscription(ws, { customerId: cus, ...usage, anchorAt: at10('2026-01-11') });
  await db().system.query(
    `INSERT INTO usage_records (id, "workspaceId", mode, "subscriptionId", quantity, timestamp)
     VALUES ($1, $2, 'test', $3, 1, $4)`,
    [newId('usageRecord'), ws.workspaceId, sub, at10('2026-01-20')],
  );
  return sub;
}

describe('sweep isolation: renewals and dunning', () => {
  it('a poisoned subscription is quarantined; another workspace renews and retries in the same tick; backoff, then clears', async () => {
    // Workspace A: P, corrupted by SQL as the owner so its renewal hits the unique cycle key (its period
    // set back after its invoice was written); U, whose usage by SQL makes 2 x (2^53 - 1); H, healthy.
    const a = await server.workspace();
    const cusA = await customer(a);
    const flat = await plan(a);
    const p = await seedSubscription(a, { customerId: cusA, ...flat, anchorAt: at10('2026-01-11') });
    expect((await processDue({ scope: scopeOf(a), at: TICK, testClockId: null })).renewed).toBe(1);
    await db().system.query(
      `UPDATE subscriptions SET "periodIndex" = 0, "currentPeriodStart" = $2, "currentPeriodEnd" = $3 WHERE id = $1`,
      [p, at10('2026-01-11'), TICK],
    );
    const u = await bigUsageSubscription(a, cusA);
    const extra = newId('usageRecord');
    await db().system.query(
      `INSERT INTO usage_records (id, "workspaceId", mode, "subscriptionId", quantity, timestamp)
       VALUES ($1, $2, 'test', $3, 1, $4)`,
      [extra, a.workspaceId, u, at10('2026-01-21')],
    );
    const h = await seedSubscription(a, { customerId: cusA, ...flat, anchorAt: at10('2026-01-11') });

    // Workspace B: X due at TICK, and a declined renewal whose retry (now paying) is due at TICK.
    const b = await server.workspace();
    const cusB = await customer(b);
    const policy = await dunningPolicy(b, [1], 'void');
    const planB = await plan(b, { dunningPolicyId: policy });
    const { sub: retried, inv } = await pastDueWithPayingRetry(b, { customerId: cusB, ...planB });
    expect(inv).toMatchObject({ status: 'past_due' });
    expect(inv.nextAttemptAt.getTime()).toBe(TICK.getTime());
    const x = await seedSubscription(b, { customerId: cusB, ...planB, anchorAt: at10('2026-01-11') });

    // One tick over every tenant: nothing thrown, B's renewal and retry done, A's healthy row too.
    const tick = await processDue({ scope: null, at: TICK, testClockId: null });
    expect(tick).toMatchObject({ renewed: 2, more: false });
    expect((await subscriptionRow(x)).currentPeriodEnd.getTime()).toBe(at10('2026-03-11').getTime());
    expect((await invoicesOf(x))[0]).toMatchObject({ status: 'paid' });
    expect((await invoicesOf(retried))[0]).toMatchObject({ id: inv.id, status: 'paid', collectionAttempts: 2 });
    expect((await subscriptionRow(retried)).status).toBe('active');
    expect((await subscriptionRow(h)).currentPeriodEnd.getTime()).toBe(at10('2026-03-11').getTime());
    for (const poisoned of [p, u])
      expect((await subscriptionRow(poisoned)).currentPeriodEnd.getTime()).toBe(TICK.getTime());

    // Quarantined with the error, retried 1 minute later; visible in /metrics.
    const now = clock.now().getTime();
    const qp = await quarantined(p);
    expect(qp).toMatchObject({
      workspaceId: a.workspaceId,
      mode: 'test',
      sweep: 'renewal',
      failures: 1,
      errorCode: '23505',
    });
    expect(qp.error).toContain('invoices_cycle_key');
    expect(qp.retryAt.getTime()).toBeGreaterThan(now + backoffMs(1) - 10_000);
    expect(qp.retryAt.getTime()).toBeLessThanOrEqual(now + backoffMs(1));
    expect(await quarantined(u)).toMatchObject({ sweep: 'renewal', failures: 1, errorCode: 'RangeError' });
    expect(await quarantined(h)).toBeUndefined();
    expect(await scrapeQuarantined('renewal')).toBe(2);

    // U fixed; before its backoff it is left alone, after it, it renews and its quarantine clears.
    await db().system.query('DELETE FROM usage_records WHERE id = $1', [extra]);
    expect(await processDue({ scope: null, at: TICK, testClockId: null })).toMatchObject({ renewed: 0 });
    expect((await quarantined(p)).failures).toBe(1);
    clock.advance(backoffMs(1) + 1000);
    expect(await processDue({ scope: null, at: TICK, testClockId: null })).toMatchObject({ renewed: 1 });
    expect((await subscriptionRow(u)).currentPeriodEnd.getTime()).toBe(at10('2026-03-11').getTime());
    expect((await invoicesOf(u))[0]).toMatchObject({ total: String(MAX) });
    expect(await quarantined(u)).toBeUndefined();
    // P is still broken: its second failure waits twice as long.
    const again = await quarantined(p);
    expect(again.failures).toBe(2);
    expect(again.retryAt.getTime() - again.lastFailedAt.getTime()).toBe(backoffMs(2));
    expect(backoffMs(2)).toBe(2 * backoffMs(1));
    // The scrape caches its reads for 2 s (src/server/metrics.ts).
    await until(async () => (await scrapeQuarantined('renewal')) === 1, 'one quarantined renewal in /metrics');
  });

  it("a test clock's walk goes past a quarantined subscription: the clock ends ready, the others renew on clock time", async () => {
    const ws = await server.workspace();
    const start = '2025-01-31T00:00:00.000Z';
    const c = (await ws.client.post('/v1/test-clocks', { frozenTime: start })).json.data;
    const healthy = await clockedSubscriptions(ws, { testClockId: c.id, anchor: start });
    // A flat price of 2^53 - 1 at quantity 2, written by SQL as the owner: its renewal cannot be priced.
    const poisoned = await clockedSubscriptions(ws, {
      testClockId: c.id,
      anchor: start,
      unitAmount: MAX,
      customerId: healthy.customerId,
    });
    await db().system.query('UPDATE subscriptions SET quantity = 2 WHERE id = $1', [poisoned.ids[0]]);
    const target = '2025-04-30T00:00:00.000Z';
    const adv = await ws.client.post(`/v1/test-clocks/${c.id}/advance`, { frozenTime: target });
    expect(adv.status, adv.text).toBe(200);
    expect(adv.json.data).toMatchObject({ status: 'ready', frozenTime: target });
    const paid = await invoicesOf(healthy.ids[0]);
    expect(paid.map((i) => [i.periodStart.toISOString(), i.status])).toEqual([
      ['2025-02-28T00:00:00.000Z', 'paid'],
      ['2025-03-31T00:00:00.000Z', 'paid'],
      ['2025-04-30T00:00:00.000Z', 'paid'],
    ]);
    expect(await invoicesOf(poisoned.ids[0])).toEqual([]);
    expect(await quarantined(poisoned.ids[0])).toMatchObject({ sweep: 'renewal', errorCode: 'RangeError' });
  });
});
