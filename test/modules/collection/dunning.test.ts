import { setTimeout } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useServer, db } from '../../helpers/server.ts';
import { hosted, unbalancedTxIds, unthrottled } from '../../helpers/payments.ts';
import {
  customer,
  dunningPolicy,
  invoicesOf,
  plan,
  scopeOf,
  seedSubscription,
  pastDueWithPayingRetry,
  subscriptionRow,
} from '../../helpers/renewals.ts';
import { processDue } from '../../../src/modules/subscriptions/renewals.ts';
import { ATTEMPT_LEASE_MS, attemptDueInvoices } from '../../../src/modules/collection/dunning.ts';

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
      // Each failure emitted payment_failed with the reason in data.metadata (docs/billing.md, Invoice events).
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

  it('race: a payment of the invoice another way against a due retry leaves exactly one payment', async () => {
    const rounds = Number(process.env.RACE_ROUNDS ?? 10);
    const ws = await server.workspace();
    const policy = await dunningPolicy(ws, [1], 'void');
    const { planId, priceId } = await plan(ws, { dunningPolicyId: policy });
    const cus = await customer(ws);
    const scope = scopeOf(ws);
    let paidByHand = 0;
    await unthrottled(async () => {
      for (let i = 0; i < rounds; i++) {
        // Race the retry due on 2026-02-11 (its method now pays) against a manual pay.
        const { inv } = await pastDueWithPayingRetry(ws, { customerId: cus, planId, priceId });
        expect(inv, `round ${i}`).toMatchObject({ status: 'past_due' });
        // The in-process retry starts a few ms after the HTTP request, a different lag each round, so the
        // rounds cover both orders (without it the retry, one short transaction, always wins).
        const [pay] = await Promise.all([
          ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, { 'idempotency-key': randomUUID() }),
          setTimeout(i % 8).then(() => attemptDueInvoices({ scope, at: utc('2026-02-11'), testClockId: null })),
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
    console.log(`POST /pay vs retry, ${rounds} rounds: paid by hand ${paidByHand}`);
    if (rounds >= 50) expect(paidByHand).toBeGreaterThan(0);
    if (rounds >= 50) expect(paidByHand).toBeLessThan(rounds);
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
  }, 240_000);

  it('race: the hosted invoice page paid against a due retry leaves exactly one captured payment', async () => {
    const rounds = Number(process.env.RACE_ROUNDS ?? 10);
    const ws = await server.workspace();
    const { planId, priceId } = await plan(ws, { dunningPolicyId: await dunningPolicy(ws, [1], 'void') });
    const cus = await customer(ws);
    const scope = scopeOf(ws);
    const wins = { hosted: 0, retry: 0 };
    await unthrottled(async () => {
      for (let i = 0; i < rounds; i++) {
        const { inv } = await pastDueWithPayingRetry(ws, { customerId: cus, planId, priceId });
        expect(inv).toMatchObject({ status: 'past_due' });
        // The customer opens the hosted invoice page and starts paying (session pending) ...
        const page = await fetch(`${server.url}/i/${inv.id}_${inv.hostedSecret}/pay`, {
          method: 'POST',
          redirect: 'manual',
        });
        expect(page.status, `round ${i}`).toBe(303);
        const sessionId = /\/c\/(cs_[0-9A-Z]+)_/.exec(page.headers.get('location') ?? '')?.[1];
        expect(sessionId, page.headers.get('location') ?? '').toBeDefined();
        expect((await hosted(server, sessionId!, '/attempt', { method: 'card' })).status).toBe(200);
        // ... and confirms while the retry charges the stored method.
        const [done] = await Promise.all([
          hosted(server, sessionId!, '/simulate', { outcome: 'success' }),
          attemptDueInvoices({ scope, at: utc('2026-02-11'), testClockId: null }),
        ]);
        const { rows } = await db().system.query(
          `SELECT method, count(*)::int AS n FROM payments WHERE "invoiceId" = $1 AND status = 'succeeded' GROUP BY method`,
          [inv.id],
        );
        expect(
          rows.reduce((s, r) => s + r.n, 0),
          `round ${i}: ${JSON.stringify(rows)} ${done.text}`,
        ).toBe(1);
        wins[rows[0].method === 'pm_test_success' ? 'retry' : 'hosted']++;
        expect(await invoice(inv.id)).toMatchObject({ status: 'paid', nextAttemptAt: null });
      }
    });
    console.log(`hosted page vs retry, ${rounds} rounds: ${JSON.stringify(wins)}`);
    expect(wins.hosted + wins.retry).toBe(rounds);
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
  }, 240_000);

  it('a charge a crashed worker left pending is asked again after the lease and settled once', async () => {
    const ws = await server.workspace();
    const { planId, priceId } = await plan(ws);
    const scope = scopeOf(ws);
    // Renewed without a stored method (an open invoice, no attempt), then given one: the state a
    // two-phase charge (a provider's method) leaves when its worker dies after writing the pending payment.
    const sub = await seedSubscription(ws, {
      customerId: await customer(ws),
      planId,
      priceId,
      anchorAt: utc('2026-01-10'),
      paymentMethod: null,
    });
    const at = utc('2026-02-10');
    await processDue({ scope, at, testClockId: null, limit: 1 });
    await db().system.query(`UPDATE subscriptions SET "paymentMethod" = 'pm_test_success' WHERE id = $1`, [sub]);
    const [inv] = await invoicesOf(sub);
    expect(inv).toMatchObject({ status: 'open', nextAttemptAt: null });
    // The crash: a pending charge written, the attempt claimed (lease), nothing reconciled.
    await db().system.query(
      `INSERT INTO payments (id, "workspaceId", mode, status, amount, currency, method, adapter, "customerId", "invoiceId",
         "createdAt", "updatedAt")
       VALUES ('pay_crashed', $1, 'test', 'pending', $2, 'IDR', 'pm_test_success', 'test_stored_method', $3, $4, $5, $5)`,
      [ws.workspaceId, inv.total, inv.customerId, inv.id, at],
    );
    await db().system.query(`UPDATE invoices SET "nextAttemptAt" = $2 WHERE id = $1`, [
      inv.id,
      new Date(at.getTime() + ATTEMPT_LEASE_MS),
    ]);
    expect((await attemptDueInvoices({ scope, at, testClockId: null })).attempted).toBe(0);
    expect(
      (await attemptDueInvoices({ scope, at: new Date(at.getTime() + ATTEMPT_LEASE_MS), testClockId: null })).attempted,
    ).toBe(1);
    const { rows } = await db().system.query(`SELECT id, status FROM payments WHERE "invoiceId" = $1`, [inv.id]);
    expect(rows).toEqual([{ id: 'pay_crashed', status: 'succeeded' }]);
    expect(await invoice(inv.id)).toMatchObject({ status: 'paid', nextAttemptAt: null });
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
  });
});
