import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useServer, db, type Workspace } from '../../helpers/server.ts';
import { customer, invoicesOf, plan, scopeOf, seedSubscription, subscriptionRow } from '../../helpers/renewals.ts';
import { processDue } from '../../../src/modules/subscriptions/renewals.ts';
import { clock } from '../../../src/core/clock.ts';

const server = useServer();
const DAY = 86_400_000;

const usagePlan = (ws: Workspace, usageAggregate: string) =>
  plan(ws, { usageAggregate, prices: [{ currency: 'IDR', model: 'usage', unitAmount: 1000 }] });

const report = (ws: Workspace, sub: string, body: Record<string, unknown>, key: string | null = randomUUID()) =>
  ws.client.post(`/v1/subscriptions/${sub}/usage`, body, key ? { 'idempotency-key': key } : {});

/** A usage subscription whose current period started 10 days ago (real clock), paying with pm_test_success. */
async function usageSub(ws: Workspace, aggregate: string) {
  const { planId, priceId } = await usagePlan(ws, aggregate);
  const anchorAt = new Date(clock.now().getTime() - 10 * DAY);
  const sub = await seedSubscription(ws, { customerId: await customer(ws), planId, priceId, anchorAt });
  return { sub, anchorAt };
}

describe('POST /v1/subscriptions/:id/usage', () => {
  it('records usage (201); key required; bounds on timestamp and quantity; non-usage 400; canceled 409; unknown 404', async () => {
    const ws = await server.workspace();
    const { sub, anchorAt } = await usageSub(ws, 'sum');
    const at = new Date(anchorAt.getTime() + DAY);
    const ok = await report(ws, sub, { quantity: 7, timestamp: at.toISOString() });
    expect(ok.status).toBe(201);
    expect(ok.json.data).toMatchObject({ subscriptionId: sub, quantity: 7, timestamp: at.toISOString() });
    expect(ok.json.data.id).toMatch(/^ur_/);
    // Replay with the same key: the same record, not a second one.
    const key = randomUUID();
    const a = await report(ws, sub, { quantity: 1 }, key);
    const b = await report(ws, sub, { quantity: 1 }, key);
    expect(b.json.data.id).toBe(a.json.data.id);
    // Epoch seconds are accepted; the default timestamp is now.
    expect((await report(ws, sub, { quantity: 2, timestamp: Math.floor(at.getTime() / 1000) })).status).toBe(201);
    const missing = await report(ws, sub, { quantity: 1 }, null);
    expect([missing.status, missing.json.error.code]).toEqual([400, 'idempotency_required']);
    const before = await report(ws, sub, { quantity: 1, timestamp: new Date(anchorAt.getTime() - 1).toISOString() });
    expect([before.status, before.json.error.field]).toEqual([400, 'timestamp']);
    const ahead = await report(ws, sub, {
      quantity: 1,
      timestamp: new Date(clock.now().getTime() + 6 * 60_000).toISOString(),
    });
    expect([ahead.status, ahead.json.error.field]).toEqual([400, 'timestamp']);
    expect(
      (await report(ws, sub, { quantity: 1, timestamp: new Date(clock.now().getTime() + 4 * 60_000).toISOString() }))
        .status,
    ).toBe(201);
    for (const quantity of [-1, 1.5, 2_000_000_000])
      expect((await report(ws, sub, { quantity })).status, String(quantity)).toBe(400);
    const { planId, priceId } = await plan(ws);
    const licensed = await seedSubscription(ws, { customerId: await customer(ws), planId, priceId, anchorAt });
    const flat = await report(ws, licensed, { quantity: 1 });
    expect(flat.status).toBe(400);
    await db().system.query(`UPDATE subscriptions SET status = 'canceled', "canceledAt" = now() WHERE id = $1`, [sub]);
    const canceled = await report(ws, sub, { quantity: 1 });
    expect([canceled.status, canceled.json.error.code]).toEqual([409, 'conflict']);
    expect((await report(ws, 'sub_01JAAAAAAAAAAAAAAAAAAAAAAA', { quantity: 1 })).status).toBe(404);
    // Another workspace's subscription reads as unknown.
    const other = await server.workspace();
    expect((await report(other, licensed, { quantity: 1 })).status).toBe(404);
  });

  const cases = [
    ['sum', [5, 3, 9], 17],
    ['max', [5, 3, 9], 9],
    ['last', [5, 9, 3], 3],
    ['sum', [], 0],
    ['max', [], 0],
    ['last', [], 0],
  ] as const;
  for (const [aggregate, quantities, billed] of cases) {
    it(`renewal bills the closed period by ${aggregate} (${quantities.length ? quantities.join(', ') : 'empty'}) -> ${billed}`, async () => {
      const ws = await server.workspace();
      const { sub, anchorAt } = await usageSub(ws, aggregate);
      for (const [i, quantity] of quantities.entries())
        expect(
          (await report(ws, sub, { quantity, timestamp: new Date(anchorAt.getTime() + (i + 1) * DAY).toISOString() }))
            .status,
        ).toBe(201);
      const { currentPeriodEnd } = await subscriptionRow(sub);
      // A record of the next period (reported late, written directly) never counts in this one.
      await db().system.query(
        `INSERT INTO usage_records (id, "workspaceId", mode, "subscriptionId", quantity, timestamp)
         VALUES ('ur_next', $1, 'test', $2, 1000, $3)`,
        [ws.workspaceId, sub, currentPeriodEnd],
      );
      await processDue({ scope: scopeOf(ws), at: currentPeriodEnd, testClockId: null });
      const [inv] = await invoicesOf(sub);
      expect(inv.periodStart.getTime()).toBe(anchorAt.getTime());
      expect(inv.periodEnd.getTime()).toBe(currentPeriodEnd.getTime());
      expect(inv.total).toBe(String(billed * 1000));
      // An empty period is a zero invoice, paid at once with no charge.
      expect(inv.status).toBe('paid');
      const { rows: lines } = await db().system.query(
        `SELECT quantity, "unitAmount" FROM invoice_lines WHERE "invoiceId" = $1`,
        [inv.id],
      );
      expect(lines).toEqual([billed ? { quantity: billed, unitAmount: '1000' } : { quantity: 1, unitAmount: '0' }]);
      // After the renewal the closed period refuses usage.
      const late = await report(ws, sub, { quantity: 1, timestamp: new Date(anchorAt.getTime() + DAY).toISOString() });
      expect(late.status).toBe(400);
    });
  }
});
