/**
 * Off-session outcomes that wait (docs/guides/payment-methods.md, Requires action):
 * the sandbox's `requires_action` scenario keeps the invoice open with no retry, emits
 * `svc.invoice.payment_action_required.v1` and emails the hosted invoice link; the hosted
 * authenticate page (or `POST /v1/payments/:id/simulate`) settles it, a test clock's `action_expiry`
 * fails it; the `async` scenario stays `pending` until simulate or the pending sweep after its delay;
 * one charge in flight per invoice is a database fact.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../../src/core/config.ts';
import { processDue } from '../../../src/modules/subscriptions/renewals.ts';
import { collectInvoice } from '../../../src/modules/collection/collect.ts';
import { expireActions, sweepPendingCharges } from '../../../src/modules/collection/waiting.ts';
import { mintLiveKey } from '../../helpers/keys.ts';
import { decodeWords, leaves, parseMime } from '../../helpers/mime.ts';
import { until } from '../../helpers/receiver.ts';
import { clock } from '../../../src/core/clock.ts';
import { customer, invoicesOf, plan, scopeOf, seedSubscription, subscriptionRow } from '../../helpers/renewals.ts';
import { createClient, db, useServer, type Workspace } from '../../helpers/server.ts';

const server = useServer({ background: 'worker' });
const key = () => ({ 'idempotency-key': randomUUID() });
const DAY = 86_400_000;
let outbox: string;
const previous = { outbox: config.mailOutboxDir, smtp: config.smtpUrl, asyncMs: config.sandboxAsyncMs };
beforeAll(() => {
  outbox = mkdtempSync(join(tmpdir(), 'svc-offsession-'));
  config.mailOutboxDir = outbox;
  config.smtpUrl = undefined;
  // The worker's pending sweep runs every minute: async charges wait for the test unless it says otherwise.
  config.sandboxAsyncMs = 3_600_000;
});
afterAll(() => {
  Object.assign(config, { mailOutboxDir: previous.outbox, smtpUrl: previous.smtp, sandboxAsyncMs: previous.asyncMs });
  rmSync(outbox, { recursive: true, force: true });
});

async function method(ws: Workspace, customerId: string, scenario: string) {
  const res = await ws.client.post('/v1/payment-methods', { customerId, scenario }, key());
  expect(res.status, res.text).toBe(201);
  return res.json.data as { id: string };
}
async function emailCustomer(ws: Workspace, extra: Record<string, unknown> = {}) {
  const res = await ws.client.post('/v1/customers', { name: 'Budi', email: 'budi@example.com', ...extra });
  expect(res.status, res.text).toBe(201);
  return res.json.data.id as string;
}
const paymentsOf = async (invoiceId: string) =>
  (await db().system.query(`SELECT * FROM payments WHERE "invoiceId" = $1 ORDER BY "createdAt", id`, [invoiceId])).rows;
const eventsOf = async (ws: Workspace, objectId: string) =>
  (await ws.client.get(`/v1/events?objectId=${objectId}&order=asc&limit=100`)).json.data as any[];
const tokenOf = (inv: { id: string; hostedSecret: string }) => `${inv.id}_${inv.hostedSecret}`;
const page = (path: string, init: RequestInit = {}) => fetch(`${server.url}${path}`, { redirect: 'manual', ...init });
const form = (body: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(body).toString(),
});

/** A subscription renewed at about now (real time: the worker's sweeps see the same clock) whose method answers `scenario`. */
async function renewed(ws: Workspace, scenario: string) {
  const { planId, priceId } = await plan(ws, { prices: [{ currency: 'IDR', model: 'flat', unitAmount: 80_000 }] });
  const cus = await emailCustomer(ws);
  const pm = await method(ws, cus, scenario);
  const at = new Date();
  const sub = await seedSubscription(ws, {
    customerId: cus,
    planId,
    priceId,
    anchorAt: new Date(at.getTime() - 40 * DAY),
    paymentMethod: pm.id,
  });
  await processDue({ scope: scopeOf(ws), at, testClockId: null });
  const [inv] = await invoicesOf(sub);
  return { sub, pm, inv, at, cus };
}

describe('requires_action on a renewal', () => {
  it('keeps the invoice open with no retry, emits action_required and emails the hosted link; authenticating pays it', async () => {
    const ws = await server.workspace();
    const { sub, pm, inv, at } = await renewed(ws, 'requires_action');
    expect(inv).toMatchObject({ status: 'open', nextAttemptAt: null, collectionAttempts: 1 });
    const [p] = await paymentsOf(inv.id);
    expect(p).toMatchObject({ status: 'requires_action', paymentMethodId: pm.id, failureCode: null });
    const expiresAt = new Date(at.getTime() + DAY).toISOString();
    expect(p.nextAction).toEqual({ type: 'redirect', url: expect.any(String), expiresAt });
    expect(p.nextAction.url.endsWith(`/i/${tokenOf(inv)}/authenticate`)).toBe(true);
    // dueAt moved to the action's expiry; the subscription is not moved.
    expect(new Date(inv.dueAt).toISOString()).toBe(expiresAt);
    expect((await subscriptionRow(sub)).status).toBe('active');
    const wire = (await ws.client.get(`/v1/payments/${p.id}`)).json.data;
    expect(wire).toMatchObject({ status: 'requires_action', nextAction: { type: 'redirect', expiresAt } });
    expect((await eventsOf(ws, p.id)).map((e) => e.type)).toEqual(['payment.requires_action']);
    // GraphQL: the same fields and the Payment.paymentMethod edge.
    const g = await ws.client.graphql(
      `query($id: ID!) { payment(id: $id) { status nextAction paymentMethodId paymentMethod { id status } } }`,
      { id: p.id },
    );
    expect(g.json.errors).toBeUndefined();
    expect(g.json.data.payment).toMatchObject({
      status: 'requires_action',
      nextAction: { type: 'redirect', expiresAt },
      paymentMethodId: pm.id,
      paymentMethod: { id: pm.id, status: 'active' },
    });
    const action = (await eventsOf(ws, inv.id)).find((e) => e.type === 'svc.invoice.payment_action_required.v1');
    expect(action.data.metadata).toEqual({
      paymentId: p.id,
      failureCode: 'authentication_required',
      nextActionExpiresAt: expiresAt,
    });
    // A due attempt does not charge it again while it waits (nextAttemptAt null, and in flight).
    await processDue({ scope: scopeOf(ws), at: new Date(at.getTime() + 3_600_000), testClockId: null });
    expect(await paymentsOf(inv.id)).toHaveLength(1);
    // Nor is the invoice credited meanwhile: its charge's outcome decides what remains (409, preview too).
    for (const path of ['/v1/credit-notes', '/v1/credit-notes/preview']) {
      const note = await ws.client.post(path, { invoiceId: inv.id, amount: 1000, reason: 'other' }, key());
      expect({ status: note.status, code: note.json.error?.code }, note.text).toEqual({
        status: 409,
        code: 'conflict',
      });
    }

    // The billing-email job (kind action_required) sends the hosted invoice link to the outbox.
    const file = () => readdirSync(outbox).find((f) => f.includes(inv.id) && f.endsWith('.eml'));
    await until(() => !!file(), 'the action required email');
    const mail = parseMime(readFileSync(join(outbox, file()!), 'utf8'));
    expect(mail.headers.to).toBe('budi@example.com');
    // The workspace's language (IDR: Indonesian).
    expect(decodeWords(mail.headers.subject)).toContain('Konfirmasi pembayaran');
    const html = leaves(mail).find((p) => (p.headers['content-type'] ?? '').includes('text/html'));
    expect(html?.body.toString()).toContain(`/i/${tokenOf(inv)}`);
    const { rows: jobs } = await db().system.query(
      `SELECT data FROM pgboss.job WHERE name = 'billing-email' AND data->>'kind' = 'action_required'
         AND data->'invoiceIds' ? $1`,
      [inv.id],
    );
    expect(jobs).toHaveLength(1);

    // The hosted invoice page offers "Confirm payment" (to the action's page) and "Pay another way".
    const en = await (await page(`/i/${tokenOf(inv)}?lang=en`)).text();
    expect(en).toContain('Confirm payment');
    expect(en).toContain('Pay another way');
    const idHtml = await (await page(`/i/${tokenOf(inv)}?lang=id`)).text();
    expect(idHtml).toContain('Konfirmasi pembayaran');
    const confirm = await page(`/i/${tokenOf(inv)}/confirm`);
    expect(confirm.status).toBe(303);
    expect(confirm.headers.get('location')).toBe(p.nextAction.url);
    const auth = await page(`/i/${tokenOf(inv)}/authenticate`);
    expect(auth.status).toBe(200);
    expect(await auth.text()).toMatch(/id="authenticate"[\s\S]*id="fail"/);

    const done = await page(`/i/${tokenOf(inv)}/authenticate`, form({ outcome: 'success' }));
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`/i/${tokenOf(inv)}`);
    const [paid] = await invoicesOf(sub);
    expect(paid.status).toBe('paid');
    expect((await paymentsOf(inv.id))[0]).toMatchObject({ status: 'succeeded', nextAction: null });
    expect((await eventsOf(ws, p.id)).map((e) => e.type)).toEqual(['payment.requires_action', 'payment.succeeded']);
    // Settled: the page has nothing left to authenticate; a second POST is 409.
    expect((await page(`/i/${tokenOf(inv)}/authenticate`, form({ outcome: 'success' }))).status).toBe(409);
  });

  it('failing the authentication is a failed attempt: payment_failed (authentication_required), invoice and subscription past_due', async () => {
    const ws = await server.workspace();
    const { sub, inv } = await renewed(ws, 'requires_action');
    const res = await page(`/i/${tokenOf(inv)}/authenticate`, form({ outcome: 'failure' }));
    expect(res.status).toBe(303);
    const [after] = await invoicesOf(sub);
    expect(after.status).toBe('past_due');
    expect((await subscriptionRow(sub)).status).toBe('past_due');
    const [p] = await paymentsOf(inv.id);
    expect(p).toMatchObject({ status: 'failed', failureCode: 'authentication_required' });
    const failed = (await eventsOf(ws, inv.id)).find((e) => e.type === 'svc.invoice.payment_failed.v1');
    expect(failed.data.metadata).toMatchObject({ failureCode: 'authentication_required' });
  });

  it('"Pay another way" fails the waiting charge (superseded) and opens the checkout page', async () => {
    const ws = await server.workspace();
    const { inv } = await renewed(ws, 'requires_action');
    const res = await page(`/i/${tokenOf(inv)}/pay`, { method: 'POST' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/^\/c\/cs_/);
    const [p] = await paymentsOf(inv.id);
    expect(p).toMatchObject({ status: 'failed', failureCode: 'authentication_required' });
    expect(p.failureMessage).toContain('another way');
  });
});

describe('the invoice settled another way while a charge waits', () => {
  it('paid by the merchant: the waiting charge fails invoice_not_payable (payment.failed), no retry, nothing to expire', async () => {
    const ws = await server.workspace();
    const { sub, inv } = await renewed(ws, 'requires_action');
    const [p] = await paymentsOf(inv.id);
    const paid = await ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, key());
    expect(paid.status, paid.text).toBe(201);
    const rows = await paymentsOf(inv.id);
    expect(rows.find((r) => r.id === p.id)).toMatchObject({
      status: 'failed',
      failureCode: 'invoice_not_payable',
      nextAction: null,
    });
    expect((await eventsOf(ws, p.id)).map((e) => e.type)).toEqual(['payment.requires_action', 'payment.failed']);
    expect((await invoicesOf(sub))[0]).toMatchObject({ status: 'paid', nextAttemptAt: null });
    expect((await eventsOf(ws, inv.id)).map((e) => e.type)).not.toContain('svc.invoice.payment_failed.v1');
    // The authenticate page has nothing left to settle.
    expect((await page(`/i/${tokenOf(inv)}/authenticate`, form({ outcome: 'success' }))).status).toBe(409);
  });
});

describe('requires_action expiry on the real clock', () => {
  it('the billing tick fails a charge past its action expiry (payment_failed, past_due), and only that one', async () => {
    const ws = await server.workspace();
    const due = await renewed(ws, 'requires_action');
    const later = await renewed(ws, 'requires_action');
    const [p] = await paymentsOf(due.inv.id);
    // Its customer had 24 hours; pretend they passed.
    const past = new Date(Date.now() - 60_000).toISOString();
    await db().system.query(
      `UPDATE payments SET "nextAction" = jsonb_set("nextAction", '{expiresAt}', to_jsonb($2::text)) WHERE id = $1`,
      [p.id, past],
    );
    expect(await expireActions()).toBeGreaterThanOrEqual(1);
    expect((await paymentsOf(due.inv.id))[0]).toMatchObject({
      status: 'failed',
      failureCode: 'authentication_required',
    });
    expect((await invoicesOf(due.sub))[0].status).toBe('past_due');
    const failed = (await eventsOf(ws, due.inv.id)).find((e) => e.type === 'svc.invoice.payment_failed.v1');
    expect(failed.data.metadata).toMatchObject({ failureCode: 'authentication_required' });
    expect((await paymentsOf(later.inv.id))[0].status).toBe('requires_action');
  });
});

describe('requires_action expiry on a test clock', () => {
  it('the due kind action_expiry fails the charge at its expiry on clock time: payment_failed, invoice past_due', async () => {
    const ws = await server.workspace();
    const clk = (await ws.client.post('/v1/test-clocks', { frozenTime: '2027-03-01T00:00:00.000Z' }, key())).json.data;
    const cus = await emailCustomer(ws, { testClockId: clk.id });
    const ok = await method(ws, cus, 'success');
    const { priceId } = await plan(ws, { prices: [{ currency: 'IDR', model: 'flat', unitAmount: 60_000 }] });
    const created = await ws.client.post(
      '/v1/subscriptions',
      { customerId: cus, priceId, paymentMethod: ok.id },
      key(),
    );
    expect(created.json.data.status, created.text).toBe('active');
    const sub = created.json.data.id;
    const waiting = await method(ws, cus, 'requires_action');
    const patched = await ws.client.patch(`/v1/subscriptions/${sub}`, { paymentMethod: waiting.id }, key());
    expect(patched.status, patched.text).toBe(200);
    const advance = async (frozenTime: string) => {
      const adv = await ws.client.post(`/v1/test-clocks/${clk.id}/advance`, { frozenTime }, key());
      expect(adv.status, adv.text).toBe(200);
      await until(
        async () => (await ws.client.get(`/v1/test-clocks/${clk.id}`)).json.data.status === 'ready',
        'the clock to be ready',
        30_000,
      );
    };
    // The renewal at 2027-04-01 is answered requires_action; its action expires 24 h later.
    await advance('2027-04-01T12:00:00.000Z');
    const renewal = (await invoicesOf(sub)).find((i) => i.billingReason !== 'subscription_create')!;
    expect(renewal.status).toBe('open');
    const [p] = await paymentsOf(renewal.id);
    expect(p).toMatchObject({ status: 'requires_action' });
    expect(p.nextAction.expiresAt).toBe('2027-04-02T00:00:00.000Z');
    await advance('2027-04-03T00:00:00.000Z');
    const [expired] = await paymentsOf(renewal.id);
    expect(expired).toMatchObject({ status: 'failed', failureCode: 'authentication_required' });
    expect(new Date(expired.updatedAt).toISOString()).toBe('2027-04-02T00:00:00.000Z');
    const after = (await invoicesOf(sub)).find((i) => i.id === renewal.id)!;
    expect(after.status).toBe('past_due');
    const failed = (await eventsOf(ws, renewal.id)).find((e) => e.type === 'svc.invoice.payment_failed.v1');
    expect(failed).toMatchObject({ occurredAt: '2027-04-02T00:00:00.000Z' });
    expect(failed.data.metadata).toMatchObject({ failureCode: 'authentication_required' });
  });
});

describe('first charge answered requires_action or pending at subscription create', () => {
  it('requires_action: 201 with the subscription incomplete and its invoice open', async () => {
    const ws = await server.workspace();
    const cus = await emailCustomer(ws);
    const pm = await method(ws, cus, 'requires_action');
    const { priceId } = await plan(ws, { prices: [{ currency: 'IDR', model: 'flat', unitAmount: 90_000 }] });
    const res = await ws.client.post('/v1/subscriptions', { customerId: cus, priceId, paymentMethod: pm.id }, key());
    expect(res.status, res.text).toBe(201);
    expect(res.json.data.status).toBe('incomplete');
    const [inv] = await invoicesOf(res.json.data.id);
    expect(inv.status).toBe('open');
    expect((await paymentsOf(inv.id))[0]).toMatchObject({ status: 'requires_action' });
    // Authenticated: the first invoice is paid and the subscription becomes active.
    const p = (await paymentsOf(inv.id))[0];
    const sim = await ws.client.post(`/v1/payments/${p.id}/simulate`, { outcome: 'success' }, key());
    expect(sim.status, sim.text).toBe(200);
    expect(sim.json.data).toMatchObject({ id: p.id, status: 'succeeded' });
    expect((await subscriptionRow(res.json.data.id)).status).toBe('active');
  });

  it('async: pending (the hosted page answers 409 while it is), then simulate success pays it', async () => {
    const ws = await server.workspace();
    const cus = await emailCustomer(ws);
    const pm = await method(ws, cus, 'async');
    const { priceId } = await plan(ws, { prices: [{ currency: 'IDR', model: 'flat', unitAmount: 90_000 }] });
    const res = await ws.client.post('/v1/subscriptions', { customerId: cus, priceId, paymentMethod: pm.id }, key());
    expect(res.status, res.text).toBe(201);
    expect(res.json.data.status).toBe('incomplete');
    const [inv] = await invoicesOf(res.json.data.id);
    const [p] = await paymentsOf(inv.id);
    expect(p).toMatchObject({ status: 'pending', paymentMethodId: pm.id });
    expect(p.leaseUntil).not.toBeNull();
    expect(await (await page(`/i/${tokenOf(inv)}?lang=en`)).text()).toContain('in progress');
    expect((await page(`/i/${tokenOf(inv)}/pay`, { method: 'POST' })).status).toBe(409);
    // The sweep leaves it alone before its delay.
    await sweepPendingCharges();
    expect((await paymentsOf(inv.id))[0].status).toBe('pending');
    const sim = await ws.client.post(`/v1/payments/${p.id}/simulate`, { outcome: 'success' }, key());
    expect(sim.status, sim.text).toBe(200);
    expect((await invoicesOf(res.json.data.id))[0].status).toBe('paid');
    expect((await subscriptionRow(res.json.data.id)).status).toBe('active');
  });

  it('async: settled succeeded when SVC_SANDBOX_ASYNC_MS passes, without waiting for the minute sweep', async () => {
    const ws = await server.workspace();
    config.sandboxAsyncMs = 300;
    try {
      const { inv, sub } = await renewed(ws, 'async');
      const started = Date.now();
      expect((await paymentsOf(inv.id))[0]).toMatchObject({ status: 'pending' });
      // No sweep is called here: the process that left it pending asks for one when its delay passes.
      await until(async () => (await paymentsOf(inv.id))[0].status === 'succeeded', 'the async charge to settle');
      expect(Date.now() - started).toBeLessThan(5_000);
      expect((await invoicesOf(sub))[0].status).toBe('paid');
    } finally {
      config.sandboxAsyncMs = 3_600_000;
    }
  });

  it('async: the minute pending sweep settles it succeeded once SVC_SANDBOX_ASYNC_MS passed (a process that left it pending died)', async () => {
    const ws = await server.workspace();
    // The delay is an hour: the process's own timer is far off, so only the sweep can settle it.
    const { inv, sub } = await renewed(ws, 'async');
    expect((await paymentsOf(inv.id))[0]).toMatchObject({ status: 'pending' });
    clock.advance(3_600_000 + 1_000);
    try {
      expect(await sweepPendingCharges()).toBeGreaterThanOrEqual(1);
      expect((await paymentsOf(inv.id))[0]).toMatchObject({
        status: 'succeeded',
        providerReference: expect.any(String),
      });
      expect((await invoicesOf(sub))[0].status).toBe('paid');
    } finally {
      clock.reset();
    }
  });
});

describe('POST /v1/payments/:id/simulate', () => {
  it('403 in live mode, 409 for a payment not waiting or not off-session, 404 for another workspace, 400 for a bad outcome', async () => {
    const ws = await server.workspace();
    const { inv } = await renewed(ws, 'async');
    const [p] = await paymentsOf(inv.id);
    const live = await mintLiveKey(ws.workspaceId);
    const liveClient = createClient({ baseUrl: server.url, keyId: live.keyId, secret: live.secret });
    const l = await liveClient.post(`/v1/payments/${p.id}/simulate`, { outcome: 'success' }, key());
    expect(l.status).toBe(403);
    expect(l.json.error.code).toBe('forbidden_in_live_mode');
    const other = await server.workspace();
    const o = await other.client.post(`/v1/payments/${p.id}/simulate`, { outcome: 'success' }, key());
    expect(o.status).toBe(404);
    expect(o.json.error.code).toBe('not_found');
    const bad = await ws.client.post(`/v1/payments/${p.id}/simulate`, { outcome: 'maybe' }, key());
    expect(bad.status).toBe(400);
    const fail = await ws.client.graphql(
      `mutation($id: ID!) { simulatePayment(id: $id, input: { outcome: "failure" }) { status failureCode } }`,
      { id: p.id },
    );
    expect(fail.json.errors).toBeUndefined();
    expect(fail.json.data.simulatePayment).toEqual({ status: 'failed', failureCode: 'card_declined' });
    // No longer waiting.
    const again = await ws.client.post(`/v1/payments/${p.id}/simulate`, { outcome: 'success' }, key());
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('conflict');
    // Not an off-session charge: a bookkeeping payment of an invoice.
    const cus = await customer(ws);
    const open = (
      await ws.client.post('/v1/invoices', {
        customerId: cus,
        currency: 'IDR',
        status: 'open',
        lines: [{ description: 'Konsultasi', quantity: 1, unitAmount: 10_000 }],
      })
    ).json.data;
    expect((await ws.client.post(`/v1/invoices/${open.id}/pay`, {}, key())).status).toBe(201);
    const [offline] = await paymentsOf(open.id);
    const notOff = await ws.client.post(`/v1/payments/${offline.id}/simulate`, { outcome: 'success' }, key());
    expect(notOff.status).toBe(409);
  });
});

describe('one charge in flight per invoice', () => {
  it('concurrent collections of one invoice write one pending payment; the index refuses a second', async () => {
    const ws = await server.workspace();
    const { inv } = await renewed(ws, 'async');
    expect(await paymentsOf(inv.id)).toHaveLength(1);
    const t = { ...scopeOf(ws), accountId: ws.accountId };
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => collectInvoice(t, inv.id)));
    expect(outcomes.every((o) => o.outcome === 'skipped')).toBe(true);
    const rows = await paymentsOf(inv.id);
    expect(rows.filter((r) => r.status === 'pending' || r.status === 'requires_action')).toHaveLength(1);
    // An open invoice with nothing in flight: 8 collections at once, one pending charge.
    const bare = await emailCustomer(ws);
    const { priceId } = await plan(ws, { prices: [{ currency: 'IDR', model: 'flat', unitAmount: 40_000 }] });
    const created = (await ws.client.post('/v1/subscriptions', { customerId: bare, priceId }, key())).json.data;
    const [first] = await invoicesOf(created.id);
    expect(await paymentsOf(first.id)).toEqual([]);
    const pm = await method(ws, bare, 'async');
    await db().system.query(`UPDATE subscriptions SET "paymentMethod" = $1 WHERE id = $2`, [pm.id, created.id]);
    const raced = await Promise.all(Array.from({ length: 8 }, () => collectInvoice(t, first.id)));
    expect(raced.filter((o) => o.outcome === 'pending')).toHaveLength(1);
    expect(await paymentsOf(first.id)).toHaveLength(1);
    // The database itself refuses a second one, whatever a reader saw.
    await expect(
      db().system.query(
        `INSERT INTO payments (id, "workspaceId", mode, status, amount, currency, "invoiceId", "customerId")
         SELECT 'pay_dup' || substr(id, 5), "workspaceId", mode, 'requires_action', amount, currency, "invoiceId", "customerId"
         FROM payments WHERE id = $1`,
        [rows[0].id],
      ),
    ).rejects.toThrow(/payments_in_flight_key/);
  });
});
