import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useServer, db } from '../../helpers/server.ts';
import { unbalancedTxIds, unthrottled } from '../../helpers/payments.ts';
import {
  customer,
  dunningPolicy,
  invoicesOf,
  plan,
  scopeOf,
  seedSubscription,
  subscriptionRow,
} from '../../helpers/renewals.ts';
import { processDue } from '../../../src/modules/subscriptions/renewals.ts';
import { attemptDueInvoices } from '../../../src/modules/subscriptions/dunning.ts';

const server = useServer();
const utc = (s: string) => new Date(`${s}T10:00:00.000Z`);
const DAY = 86_400_000;

const eventsOf = async (objectId: string) =>
  (
    await db().system.query(`SELECT type, data FROM events WHERE "objectId" = $1 ORDER BY "createdAt", sequence`, [
      objectId,
    ])
  ).rows as { type: string; data: any }[];
const invoice = async (id: string) => (await db().system.query('SELECT * FROM invoices WHERE id = $1', [id])).rows[0];

describe('dunning retries', () => {
  for (const finalAction of ['uncollectible', 'void'] as const) {
    it(`a declined renewal walks [1, 3, 5] days from the first failure, then ${finalAction}s its own invoice and subscription only`, async () => {
      const ws = await server.workspace();
      const policy = await dunningPolicy(ws, [1, 3, 5], finalAction);
      const { planId, priceId } = await plan(ws, { dunningPolicyId: policy });
      const cus = await customer(ws);
      const scope = scopeOf(ws);
      const failing = await seedSubscription(ws, {
        customerId: cus,
        planId,
        priceId,
        anchorAt: utc('2026-01-10'),
        paymentMethod: 'pm_test_decline',
      });
      // The same customer's other subscription pays and must be left alone.
      const other = await seedSubscription(ws, { customerId: cus, planId, priceId, anchorAt: utc('2026-01-20') });
      const first = utc('2026-02-10');
      expect((await processDue({ scope, at: first, testClockId: null })).attempted).toBe(1);
      const [inv] = await invoicesOf(failing);
      expect(inv).toMatchObject({ status: 'past_due', collectionAttempts: 1 });
      expect(inv.nextAttemptAt.getTime()).toBe(first.getTime() + DAY);
      expect(inv.dunningSnapshot).toMatchObject({
        policyId: policy,
        retryScheduleDays: [1, 3, 5],
        finalAction,
        failures: 1,
      });
      expect((await subscriptionRow(failing)).status).toBe('past_due');
      // The policy changes after the first failure: the snapshot still rules this invoice.
      await ws.client.patch(`/v1/dunning-policies/${policy}`, { retryScheduleDays: [10] });
      // Not due a moment before the retry.
      expect(
        (await attemptDueInvoices({ scope, at: new Date(first.getTime() + DAY - 1), testClockId: null })).attempted,
      ).toBe(0);
      for (const [day, attempts] of [
        [1, 2],
        [3, 3],
      ] as const) {
        expect(
          (await attemptDueInvoices({ scope, at: new Date(first.getTime() + day * DAY), testClockId: null })).attempted,
        ).toBe(1);
        const now = await invoice(inv.id);
        expect(now).toMatchObject({ status: 'past_due', collectionAttempts: attempts });
      }
      expect((await invoice(inv.id)).nextAttemptAt.getTime()).toBe(first.getTime() + 5 * DAY);
      await attemptDueInvoices({ scope, at: new Date(first.getTime() + 5 * DAY), testClockId: null });
      const last = await invoice(inv.id);
      expect(last).toMatchObject({ status: finalAction, collectionAttempts: 4, nextAttemptAt: null });
      const sub = await subscriptionRow(failing);
      expect(sub.status).toBe('canceled');
      expect(sub.canceledAt.getTime()).toBe(first.getTime() + 5 * DAY);
      // Each failure emitted payment_failed with the reason in data.metadata (settled point 4).
      const failed = (await eventsOf(inv.id)).filter((e) => e.type === 'svc.invoice.payment_failed.v1');
      expect(failed).toHaveLength(4);
      expect(failed[0].data.metadata).toEqual({ failureCode: 'card_declined', failureMessage: expect.any(String) });
      expect((await eventsOf(failing)).map((e) => e.type).at(-1)).toBe('subscription.cancelled');
      // Nothing more is attempted.
      expect((await attemptDueInvoices({ scope, at: utc('2026-06-01'), testClockId: null })).attempted).toBe(0);
      // The customer's other subscription was untouched.
      expect((await subscriptionRow(other)).status).toBe('active');
      expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
    });
  }

  it('no policy: one failed attempt, no retries, the invoice stays collectible', async () => {
    const ws = await server.workspace();
    const { planId, priceId } = await plan(ws);
    const sub = await seedSubscription(ws, {
      customerId: await customer(ws),
      planId,
      priceId,
      anchorAt: utc('2026-01-10'),
      paymentMethod: 'pm_test_decline',
    });
    await processDue({ scope: scopeOf(ws), at: utc('2026-02-10'), testClockId: null });
    const [inv] = await invoicesOf(sub);
    expect(inv).toMatchObject({ status: 'past_due', collectionAttempts: 1, nextAttemptAt: null });
    // Paid by hand later: the subscription becomes active again.
    expect((await ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, { 'idempotency-key': randomUUID() })).status).toBe(
      201,
    );
    expect((await subscriptionRow(sub)).status).toBe('active');
  });

  it('race (100 rounds): a payment of the invoice another way against a due retry leaves exactly one payment', async () => {
    const rounds = Number(process.env.RACE_ROUNDS ?? 100);
    const ws = await server.workspace();
    const policy = await dunningPolicy(ws, [1], 'void');
    const { planId, priceId } = await plan(ws, { dunningPolicyId: policy });
    const cus = await customer(ws);
    const scope = scopeOf(ws);
    let paidByHand = 0;
    await unthrottled(async () => {
      for (let i = 0; i < rounds; i++) {
        const sub = await seedSubscription(ws, { customerId: cus, planId, priceId, anchorAt: utc('2026-01-10') });
        // Renew without charging (the first attempt is due now), then race the charge against a manual pay.
        await db().system.query(`UPDATE subscriptions SET "paymentMethod" = 'pm_test_success' WHERE id = $1`, [sub]);
        await processDue({ scope, at: utc('2026-02-10'), testClockId: null, limit: 1 });
        const [inv] = await invoicesOf(sub);
        const [pay] = await Promise.all([
          ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, { 'idempotency-key': randomUUID() }),
          attemptDueInvoices({ scope, at: utc('2026-02-10'), testClockId: null }),
        ]);
        if (pay.status === 201) paidByHand++;
        const { rows } = await db().system.query(
          `SELECT count(*)::int AS n FROM payments WHERE "invoiceId" = $1 AND status = 'succeeded'`,
          [inv.id],
        );
        expect(rows[0].n, `round ${i}`).toBe(1);
        const after = await invoice(inv.id);
        expect(after).toMatchObject({ status: 'paid', nextAttemptAt: null });
        // No retry fires later either.
        expect((await attemptDueInvoices({ scope, at: utc('2026-03-10'), testClockId: null })).attempted).toBe(0);
      }
    });
    // Both sides won some rounds (the race was real), and never both in one round.
    if (rounds >= 50) expect(paidByHand).toBeGreaterThan(0);
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
  }, 240_000);
});
