import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { db, useServer, type Workspace } from '../../helpers/server.ts';
import { customer, plan, scopeOf, seedSubscription } from '../../helpers/renewals.ts';
import { processDue } from '../../../src/modules/subscriptions/renewals.ts';
import { clock } from '../../../src/core/clock.ts';

const server = useServer();
const DAY = 86_400_000;

async function periodsOf(ws: Workspace, sub: string) {
  const { rows } = await db().system.query(
    `SELECT "periodStart", "periodEnd", "customerId" FROM subscription_periods
      WHERE "workspaceId" = $1 AND "subscriptionId" = $2 ORDER BY "periodStart"`,
    [ws.workspaceId, sub],
  );
  return rows.map((r) => [r.periodStart.toISOString(), r.periodEnd.toISOString()]);
}

describe('subscription_periods', () => {
  it('holds the first period at create, one more per renewal, and ends the last at an immediate cancel', async () => {
    const ws = await server.workspace();
    const { planId, priceId } = await plan(ws);
    const cus = await customer(ws);
    const anchorAt = new Date(clock.now().getTime() - 40 * DAY);
    const sub = await seedSubscription(ws, { customerId: cus, planId, priceId, anchorAt });
    const [first] = await periodsOf(ws, sub);
    expect(first[0]).toBe(anchorAt.toISOString());
    await processDue({ scope: scopeOf(ws), at: new Date(first[1]), testClockId: null });
    const after = await periodsOf(ws, sub);
    expect(after.length).toBe(2);
    expect(after[1][0]).toBe(first[1]);
    expect(after[0]).toEqual(first);
    const res = await ws.client.post(`/v1/subscriptions/${sub}/cancel`, {}, { 'idempotency-key': randomUUID() });
    expect(res.status).toBe(200);
    const canceledAt = res.json.data.canceledAt as string;
    expect((await periodsOf(ws, sub)).at(-1)).toEqual([after[1][0], canceledAt]);
  });

  it('a subscription made through the API has its period row; another workspace sees none of it', async () => {
    const ws = await server.workspace();
    const { priceId } = await plan(ws);
    const cus = await customer(ws);
    const created = await ws.client.post(
      '/v1/subscriptions',
      { customerId: cus, priceId, paymentMethod: 'pm_test_success' },
      { 'idempotency-key': randomUUID() },
    );
    const s = created.json.data;
    expect(await periodsOf(ws, s.id)).toEqual([[s.currentPeriodStart, s.currentPeriodEnd]]);
    const other = await server.workspace();
    expect(await periodsOf(other, s.id)).toEqual([]);
  });
});
