import { describe, expect, it } from 'vitest';
import { useServer, db } from '../../helpers/server.ts';
import { unbalancedTxIds } from '../../helpers/payments.ts';
import { customer, invoicesOf, plan, scopeOf, seedSubscription, subscriptionRow } from '../../helpers/renewals.ts';
import { processDue } from '../../../src/modules/subscriptions/renewals.ts';

const server = useServer();
const utc = (s: string) => new Date(`${s}T10:00:00.000Z`);

const eventsOf = async (objectId: string) =>
  (
    await db().system.query(`SELECT type, data FROM events WHERE "objectId" = $1 ORDER BY "createdAt", sequence`, [
      objectId,
    ])
  ).rows as { type: string; data: any }[];

describe('renewal at the cycle boundary', () => {
  it('a year of monthly renewals from a Jan 31 anchor: 12 cycle invoices, paid, gapless, month ends kept', async () => {
    const ws = await server.workspace();
    const { planId, priceId } = await plan(ws);
    const cus = await customer(ws);
    const sub = await seedSubscription(ws, { customerId: cus, planId, priceId, anchorAt: utc('2026-01-31') });
    const scope = scopeOf(ws);
    // Nothing is due before the period end.
    expect((await processDue({ scope, at: utc('2026-02-27'), testClockId: null })).renewed).toBe(0);
    const ends: string[] = [];
    for (let i = 0; i < 12; i++) {
      const row = await subscriptionRow(sub);
      ends.push(row.currentPeriodEnd.toISOString().slice(0, 10));
      const r = await processDue({ scope, at: row.currentPeriodEnd, testClockId: null });
      expect(r).toMatchObject({ renewed: 1, attempted: 1 });
      // Exactly once: the same instant again renews nothing and charges nothing.
      expect(await processDue({ scope, at: row.currentPeriodEnd, testClockId: null })).toMatchObject({
        renewed: 0,
        attempted: 0,
      });
    }
    expect(ends).toEqual([
      '2026-02-28',
      '2026-03-31',
      '2026-04-30',
      '2026-05-31',
      '2026-06-30',
      '2026-07-31',
      '2026-08-31',
      '2026-09-30',
      '2026-10-31',
      '2026-11-30',
      '2026-12-31',
      '2027-01-31',
    ]);
    const invoices = await invoicesOf(sub);
    expect(invoices).toHaveLength(12);
    for (const inv of invoices) {
      expect(inv).toMatchObject({ status: 'paid', billingReason: 'subscription_cycle', total: '150000' });
      expect(inv.amountDue).toBe('0');
      // Licensed prices bill the new period in advance: issued at its start.
      expect(inv.issuedAt.getTime()).toBe(inv.periodStart.getTime());
      expect(inv.nextAttemptAt).toBeNull();
    }
    // Gapless numbers, in order, each in its issue month.
    const seqs = invoices.map((i) => Number(i.number.split('-').at(-1)));
    expect(seqs).toEqual(seqs.map((_, k) => seqs[0] + k));
    expect(invoices[0].number).toMatch(/^SVC-2026-02-/);
    const after = await subscriptionRow(sub);
    expect(after).toMatchObject({ status: 'active', periodIndex: 12, latestInvoiceId: invoices[11].id });
    expect(after.currentPeriodStart.toISOString()).toBe('2027-01-31T10:00:00.000Z');
    expect(after.currentPeriodEnd.toISOString()).toBe('2027-02-28T10:00:00.000Z');
    // One succeeded payment and one receipt per invoice; the books balance.
    const { rows: pays } = await db().system.query(
      `SELECT "invoiceId", count(*)::int AS n FROM payments WHERE "invoiceId" = ANY($1) AND status = 'succeeded'
       GROUP BY "invoiceId"`,
      [invoices.map((i) => i.id)],
    );
    expect(pays).toHaveLength(12);
    expect(pays.every((p) => p.n === 1)).toBe(true);
    const { rows: receipts } = await db().system.query(
      `SELECT count(*)::int AS n FROM receipts WHERE "sourceId" = ANY($1)`,
      [invoices.map((i) => i.id)],
    );
    expect(receipts[0].n).toBe(12);
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
    // Events: created, finalized, paid per invoice; subscription.updated with previousAttributes.
    expect((await eventsOf(invoices[0].id)).map((e) => e.type)).toEqual([
      'svc.invoice.created.v1',
      'svc.invoice.finalized.v1',
      'svc.invoice.paid.v1',
    ]);
    const updates = (await eventsOf(sub)).filter((e) => e.type === 'subscription.updated');
    expect(updates).toHaveLength(12);
    expect(updates[0].data.previousAttributes).toMatchObject({
      currentPeriodStart: '2026-01-31T10:00:00.000Z',
      currentPeriodEnd: '2026-02-28T10:00:00.000Z',
    });
  });

  it('catches up several periods in one pass; the unique cycle key refuses a second invoice for a period', async () => {
    const ws = await server.workspace();
    const { planId, priceId } = await plan(ws);
    const sub = await seedSubscription(ws, {
      customerId: await customer(ws),
      planId,
      priceId,
      anchorAt: utc('2026-01-15'),
    });
    const r = await processDue({ scope: scopeOf(ws), at: utc('2026-04-20'), testClockId: null });
    expect(r.renewed).toBe(3);
    const invoices = await invoicesOf(sub);
    expect(invoices.map((i) => i.periodStart.toISOString().slice(0, 10))).toEqual([
      '2026-02-15',
      '2026-03-15',
      '2026-04-15',
    ]);
    const dup = db().system.query(
      `INSERT INTO invoices (id, "workspaceId", mode, "customerId", "subscriptionId", status, currency, subtotal, total,
         "amountDue", "periodStart", "billingReason")
       SELECT 'inv_dup', "workspaceId", mode, "customerId", "subscriptionId", 'draft', currency, 0, 0, 0, "periodStart",
         "billingReason" FROM invoices WHERE id = $1`,
      [invoices[0].id],
    );
    await expect(dup).rejects.toThrow(/invoices_cycle_key/);
  });

  it('trial end starts the first paid period at trialEnd; period-end cancel cancels without an invoice', async () => {
    const ws = await server.workspace();
    const { planId, priceId } = await plan(ws);
    const cus = await customer(ws);
    const trialEnd = utc('2026-03-10');
    const trial = await seedSubscription(ws, {
      customerId: cus,
      planId,
      priceId,
      anchorAt: utc('2026-02-24'),
      trialEnd,
    });
    const leaving = await seedSubscription(ws, {
      customerId: cus,
      planId,
      priceId,
      anchorAt: utc('2026-02-10'),
      cancelAtPeriodEnd: true,
    });
    await processDue({ scope: scopeOf(ws), at: utc('2026-03-10'), testClockId: null });
    const t = await subscriptionRow(trial);
    expect(t).toMatchObject({ status: 'active', periodIndex: 0 });
    expect(t.currentPeriodStart.toISOString()).toBe(trialEnd.toISOString());
    expect(t.currentPeriodEnd.toISOString()).toBe('2026-04-10T10:00:00.000Z');
    const [first] = await invoicesOf(trial);
    expect(first).toMatchObject({ status: 'paid', total: '150000' });
    expect(first.periodStart.toISOString()).toBe(trialEnd.toISOString());
    const l = await subscriptionRow(leaving);
    expect(l.status).toBe('canceled');
    expect(l.canceledAt.toISOString()).toBe('2026-03-10T10:00:00.000Z');
    expect(await invoicesOf(leaving)).toHaveLength(0);
    expect((await eventsOf(leaving)).map((e) => e.type)).toEqual(['subscription.cancelled']);
  });

  it('tax from the default invoice template (docs/billing.md, Tax) on an exclusive price', async () => {
    const ws = await server.workspace();
    const tpl = await ws.client.post('/v1/templates', {
      kind: 'invoice',
      name: 'Default',
      isDefault: true,
      showTax: true,
      taxRate: 0.11,
    });
    expect(tpl.status).toBe(201);
    const { planId, priceId } = await plan(ws);
    const sub = await seedSubscription(ws, {
      customerId: await customer(ws),
      planId,
      priceId,
      anchorAt: utc('2026-01-01'),
      quantity: 2,
    });
    await processDue({ scope: scopeOf(ws), at: utc('2026-02-01'), testClockId: null });
    const [inv] = await invoicesOf(sub);
    expect(inv).toMatchObject({ subtotal: '300000', tax: '33000', total: '333000', status: 'paid' });
  });

  it('a pending plan change applied at renewal sets the new planId, price and plan name (subscription and line)', async () => {
    const ws = await server.workspace();
    const pro = await plan(ws);
    const basic = await plan(ws, { name: 'Basic', prices: [{ currency: 'IDR', model: 'flat', unitAmount: 50000 }] });
    const sub = await seedSubscription(ws, {
      customerId: await customer(ws),
      planId: pro.planId,
      priceId: pro.priceId,
      anchorAt: utc('2026-01-05'),
    });
    // A downgrade waits for the renewal (pending), over the API.
    const down = await ws.client.patch(`/v1/subscriptions/${sub}`, { priceId: basic.priceId });
    expect(down.json.data).toMatchObject({ planId: pro.planId, priceId: pro.priceId, pendingPriceId: basic.priceId });
    await processDue({ scope: scopeOf(ws), at: utc('2026-02-05'), testClockId: null });
    expect(await subscriptionRow(sub)).toMatchObject({
      planId: basic.planId,
      priceId: basic.priceId,
      pendingPriceId: null,
    });
    const [inv] = await invoicesOf(sub);
    expect(inv).toMatchObject({ total: '50000', status: 'paid' });
    const lines = (await db().system.query('SELECT * FROM invoice_lines WHERE "invoiceId" = $1', [inv.id])).rows;
    expect(lines).toHaveLength(1);
    expect(lines[0].priceId).toBe(basic.priceId);
    expect(lines[0].description).toMatch(/^Basic /);
    const renewed = (await eventsOf(sub)).at(-1);
    expect(renewed?.data.object).toMatchObject({ planId: basic.planId, priceId: basic.priceId });
  });

  it('without a stored method: due in 7 days, no automatic charge', async () => {
    const ws = await server.workspace();
    const { planId, priceId } = await plan(ws);
    const sub = await seedSubscription(ws, {
      customerId: await customer(ws),
      planId,
      priceId,
      anchorAt: utc('2026-01-05'),
      paymentMethod: null,
    });
    const scope = scopeOf(ws);
    expect(await processDue({ scope, at: utc('2026-02-05'), testClockId: null })).toMatchObject({
      renewed: 1,
      attempted: 0,
    });
    const [inv] = await invoicesOf(sub);
    expect(inv).toMatchObject({ status: 'open', nextAttemptAt: null, collectionAttempts: 0 });
    expect(inv.dueAt.toISOString()).toBe('2026-02-12T10:00:00.000Z');
  });
});
