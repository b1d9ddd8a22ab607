import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { db, useServer, type Workspace } from '../../helpers/server.ts';
import { customer, plan, scopeOf, seedSubscription } from '../../helpers/renewals.ts';
import { until } from '../../helpers/receiver.ts';
import { clientSql } from '../../../src/core/db/sql.ts';
import { periodValues } from '../../../src/modules/usage-rollups/read.ts';
import { processDue } from '../../../src/modules/subscriptions/renewals.ts';
import { clock } from '../../../src/core/clock.ts';
import { reference, type SentEvent } from './reference.ts';

const server = useServer({ background: 'worker' });
const DAY = 86_400_000;
const key = () => ({ 'idempotency-key': randomUUID() });
const aggregations = ['count', 'unique_count', 'sum', 'min', 'max', 'average', 'latest'] as const;

/** One meter per aggregation on event `use`, grouped by `region`. */
async function meters(ws: Workspace) {
  const out: Record<string, string> = {};
  for (const aggregation of aggregations) {
    const body = {
      key: aggregation,
      name: aggregation,
      eventName: 'use',
      aggregation,
      valueProperty: aggregation === 'count' ? null : 'v',
      groupBy: ['region'],
    };
    const res = await ws.client.post('/v1/meters', body, key());
    if (res.status !== 201) throw new Error(JSON.stringify(res.json));
    out[aggregation] = res.json.data.id;
  }
  return out;
}

async function periodsOf(ws: Workspace, sub: string) {
  const { rows } = await db().system.query(
    `SELECT "periodStart", "periodEnd" FROM subscription_periods WHERE "workspaceId" = $1 AND "subscriptionId" = $2
      ORDER BY "periodStart"`,
    [ws.workspaceId, sub],
  );
  return rows as { periodStart: Date; periodEnd: Date }[];
}

async function folded(ws: Workspace) {
  const { rows } = await db().system.query(
    `SELECT count(*)::int AS n FROM usage_ingest_batches WHERE "workspaceId" = $1 AND "foldedAt" IS NULL`,
    [ws.workspaceId],
  );
  return rows[0].n === 0;
}

async function valuesOf(ws: Workspace, sub: string, periodStart: Date) {
  const client = await db().system.connect();
  try {
    return await periodValues(clientSql(client), scopeOf(ws), sub, periodStart);
  } finally {
    client.release();
  }
}

type Sent = SentEvent & { id: string; voided: boolean };

/** Ingests in batches of `size` (each batch a later request), then voids the ones marked. */
async function send(ws: Workspace, cus: string, events: Sent[], size = 50) {
  for (let i = 0; i < events.length; i += size) {
    const batch = events.slice(i, i + size).map((e) => ({
      id: e.id,
      eventName: 'use',
      customerId: cus,
      timestamp: new Date(e.timestamp).toISOString(),
      properties: { v: e.value, region: e.group },
    }));
    const res = await ws.client.post('/v1/usage-events', { events: batch });
    expect(res.json.data.accepted).toBe(batch.length);
  }
  for (const e of events.filter((x) => x.voided))
    expect((await ws.client.post(`/v1/usage-events/${e.id}/void`, undefined)).status).toBe(200);
  await until(() => folded(ws), 'the fold');
}

/** Every rollup of each period (total and per region) equals the reference over its events. */
async function expectReference(ws: Workspace, sub: string, ids: Record<string, string>, events: Sent[]) {
  for (const p of await periodsOf(ws, sub)) {
    const inside = events.filter(
      (e) => !e.voided && e.timestamp >= p.periodStart.getTime() && e.timestamp < p.periodEnd.getTime(),
    );
    const rows = await valuesOf(ws, sub, p.periodStart);
    for (const aggregation of aggregations) {
      const mine = rows.filter((r) => r.meterId === ids[aggregation]);
      const total = mine.find((r) => r.groupKey === '')?.value ?? '0';
      expect([aggregation, total]).toEqual([aggregation, reference(aggregation, inside)]);
      for (const r of mine.filter((x) => x.groupKey !== '')) {
        const group = inside.filter((e) => e.group === r.dimensions?.region);
        expect([aggregation, r.dimensions, r.value]).toEqual([
          aggregation,
          r.dimensions,
          reference(aggregation, group),
        ]);
      }
    }
  }
}

const decimal = fc
  .tuple(fc.integer({ min: -99999, max: 99999 }), fc.integer({ min: 0, max: 999 }), fc.boolean())
  .map(([w, f, frac]) => (frac ? `${w < 0 ? '-' : ''}${Math.abs(w)}.${String(f).padStart(3, '0')}` : String(w)));

describe('usage fold', () => {
  it('each aggregation equals a brute-force recount, with voids, equal timestamps and groups (property)', async () => {
    const ws = await server.workspace();
    const ids = await meters(ws);
    const { planId, priceId } = await plan(ws);
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            value: decimal,
            at: fc.integer({ min: 0, max: 5 }),
            group: fc.constantFrom('eu', 'us'),
            voided: fc.boolean(),
          }),
          { minLength: 0, maxLength: 40 },
        ),
        async (drawn) => {
          const cus = await customer(ws);
          const anchorAt = new Date(clock.now().getTime() - DAY);
          const sub = await seedSubscription(ws, { customerId: cus, planId, priceId, anchorAt });
          const events: Sent[] = drawn.map((d, i) => ({
            id: `r${runs}-${i}`,
            value: d.value,
            timestamp: anchorAt.getTime() + d.at * 60_000,
            order: i,
            group: d.group,
            voided: d.voided && i % 3 === 0,
          }));
          runs++;
          await send(ws, cus, events, 7);
          await expectReference(ws, sub, ids, events);
        },
      ),
      { numRuns: 12 },
    );
  }, 120_000);

  it('attributes across a renewal and an immediate cancel; another workspace is never counted', async () => {
    const ws = await server.workspace();
    const ids = await meters(ws);
    const { planId, priceId } = await plan(ws, { interval: 'week' });
    const cus = await customer(ws);
    const anchorAt = new Date(clock.now().getTime() - 20 * DAY);
    const sub = await seedSubscription(ws, { customerId: cus, planId, priceId, anchorAt, interval: 'week' });
    for (const p of [1, 2])
      await processDue({ scope: scopeOf(ws), at: new Date(anchorAt.getTime() + p * 7 * DAY), testClockId: null });
    const cancel = await ws.client.post(`/v1/subscriptions/${sub}/cancel`, {}, key());
    const canceledAt = new Date(cancel.json.data.canceledAt).getTime();
    expect((await periodsOf(ws, sub)).length).toBe(3);
    const times = [-DAY, 0, 3 * DAY, 7 * DAY - 1, 7 * DAY, 10 * DAY, 14 * DAY, 19 * DAY];
    const events: Sent[] = times.map((t, i) => ({
      id: `a${i}`,
      value: String(i + 1),
      timestamp: anchorAt.getTime() + t,
      order: i,
      group: 'eu',
      voided: false,
    }));
    // After the cancel: stored, counted nowhere.
    events.push({ id: 'late', value: '100', timestamp: canceledAt + 60_000, order: 99, group: 'eu', voided: false });
    await send(ws, cus, events);
    await expectReference(ws, sub, ids, events);
    const periods = await periodsOf(ws, sub);
    expect(periods.at(-1)!.periodEnd.getTime()).toBe(canceledAt);
    const counts = await Promise.all(
      periods.map(
        async (p) =>
          (await valuesOf(ws, sub, p.periodStart)).find((r) => r.meterId === ids.count && r.groupKey === '')?.value,
      ),
    );
    // The event before the anchor counts nowhere; the rest split 3 / 2 / 2 by period.
    expect(counts).toEqual(['3', '2', '2']);

    // Another workspace with the same meters and event ids folds apart.
    const other = await server.workspace();
    const otherIds = await meters(other);
    const otherCus = await customer(other);
    await seedSubscription(other, { customerId: otherCus, ...(await plan(other)), anchorAt });
    await send(
      other,
      otherCus,
      events.map((e) => ({ ...e, value: '1000' })),
    );
    expect(otherIds.count).not.toBe(ids.count);
    await expectReference(ws, sub, ids, events);
  }, 60_000);
});
