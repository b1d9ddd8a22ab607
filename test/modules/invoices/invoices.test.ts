import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { APP_LOGIN_ROLE } from '../../../src/core/db/client.ts';
import { randomUUID } from 'node:crypto';
import { useServer, db, createClient, type Workspace } from '../../helpers/server.ts';
import { mintKey } from '../../helpers/keys.ts';
import { unbalancedTxIds, unthrottled } from '../../helpers/payments.ts';
import { clock } from '../../../src/core/clock.ts';
import { markPastDueInvoices } from '../../../src/modules/invoices/sweep.ts';
import { clockedSender } from '../../helpers/clocked.ts';
import { lockInvoice, settleInvoice } from '../../../src/modules/invoices/issue.ts';
import { tenantTx, sql } from '../../../src/core/db/sql.ts';
import { newId } from '../../../src/core/ids.ts';
import { resolver } from '../../../src/modules/webhooks/url-policy.ts';
import { planBody, postPlan } from '../../helpers/plans.ts';

const server = useServer();

type Res = { status: number; json: any };
function expectError(res: Res, status: number, code: string, field?: string) {
  expect({ status: res.status, code: res.json?.error?.code, field: res.json?.error?.field }).toEqual({
    status,
    code,
    field: field ?? res.json?.error?.field,
  });
  expect(res.json.data).toBeNull();
}
const key = () => ({ 'idempotency-key': randomUUID() });
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const NUMBER = /^SVC-\d{4}-\d\d-\d{4,}$/;

async function customer(ws: Workspace, body: Record<string, unknown> = { name: 'Budi', email: 'budi@example.com' }) {
  return (await ws.client.post('/v1/customers', body)).json.data.id as string;
}

const line = (over: Record<string, unknown> = {}) => ({
  description: 'Consulting',
  quantity: 2,
  unitAmount: 50000,
  ...over,
});

async function create(ws: Workspace, body: Record<string, unknown> = {}, cus?: string) {
  return ws.client.post('/v1/invoices', {
    customerId: cus ?? (await customer(ws)),
    currency: 'IDR',
    lines: [line()],
    ...body,
  });
}

const eventTypes = async (ws: Workspace, id: string) =>
  (await ws.client.get(`/v1/events?objectId=${id}&order=asc`)).json.data.map((e: any) => e.type);

const ledgerOf = async (id: string) =>
  (
    await db().system.query(
      `SELECT code, direction, amount::int AS amount, "sourceType", "txId" FROM ledger_entries WHERE "sourceId" = $1
       ORDER BY code, direction`,
      [id],
    )
  ).rows;

describe('POST /v1/invoices', () => {
  it('creates a draft (201): spec fields, lines, totals, no number or hosted URL; only the created event', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const res = await create(
      ws,
      {
        lines: [line(), line({ description: 'Travel', quantity: 1, unitAmount: 20000, metadata: { trip: 'JKT' } })],
        discount: 10000,
        tax: 12100,
        memo: 'Thanks for your business',
        metadata: { po: 'PO-7' },
        dueAt: '2030-01-31T00:00:00.000Z',
      },
      cus,
    );
    expect(res.status).toBe(201);
    const inv = res.json.data;
    expect(Object.keys(inv).sort()).toEqual(
      [
        'id',
        'arn',
        'accountId',
        'customerId',
        'subscriptionId',
        'status',
        'number',
        'currency',
        'subtotal',
        'discount',
        // docs/coupons.md, Invoice discounts.
        'discounts',
        'tax',
        'total',
        'amountPaid',
        'amountDue',
        // docs/credit-notes.md, Invoice amounts.
        'balanceApplied',
        'creditedAmount',
        'prePaymentCreditedAmount',
        'amountRemaining',
        'dueAt',
        'issuedAt',
        'paidAt',
        'voidedAt',
        'hostedInvoiceUrl',
        'collectionAttempts',
        'templateId',
        'lines',
        'metadata',
        'createdAt',
        'updatedAt',
      ].sort(),
    );
    expect(inv).toMatchObject({
      status: 'draft',
      number: null,
      customerId: cus,
      accountId: ws.accountId,
      arn: `arn:svc:${ws.accountId}:invoice:${inv.id}`,
      currency: 'IDR',
      subtotal: 120000,
      discount: 10000,
      // A caller's flat discount is an entry without a coupon.
      discounts: [{ couponId: null, discountId: null, name: 'Diskon / Discount', amount: 10000 }],
      tax: 12100,
      total: 122100,
      amountPaid: 0,
      amountDue: 122100,
      issuedAt: null,
      paidAt: null,
      voidedAt: null,
      hostedInvoiceUrl: null,
      collectionAttempts: 0,
      subscriptionId: null,
      dueAt: '2030-01-31T00:00:00.000Z',
      metadata: { po: 'PO-7', memo: 'Thanks for your business' },
    });
    expect(inv.id).toMatch(/^inv_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(inv.createdAt).toMatch(ISO);
    expect(inv.lines).toEqual([
      expect.objectContaining({
        description: 'Consulting',
        quantity: 2,
        unitAmount: 50000,
        amount: 100000,
        priceId: null,
      }),
      expect.objectContaining({
        description: 'Travel',
        quantity: 1,
        unitAmount: 20000,
        amount: 20000,
        metadata: { trip: 'JKT' },
      }),
    ]);
    expect(inv.lines[0].id).toMatch(/^il_/);
    await expect(eventTypes(ws, inv.id)).resolves.toEqual(['svc.invoice.created.v1']);
    const ev = (await ws.client.get(`/v1/events?objectId=${inv.id}`)).json.data[0];
    expect(ev.data.object).toEqual(inv);
  });

  it('created open: numbered and issued at once, hosted URL set; emits only finalized (no created)', async () => {
    const ws = await server.workspace();
    const inv = (await create(ws, { status: 'open' })).json.data;
    expect(inv).toMatchObject({ status: 'open', total: 100000, amountDue: 100000 });
    expect(inv.number).toMatch(NUMBER);
    expect(inv.number.endsWith('-0001')).toBe(true);
    expect(inv.issuedAt).toMatch(ISO);
    expect(inv.number.slice(4, 11)).toBe(inv.issuedAt.slice(0, 7));
    expect(inv.hostedInvoiceUrl).toMatch(new RegExp(`/i/${inv.id}_[0-9a-f]{40}$`));
    await expect(eventTypes(ws, inv.id)).resolves.toEqual(['svc.invoice.finalized.v1']);
  });

  // docs/billing.md, Invoice totals: discount before the flat tax, then the total is clamped (not the subtotal).
  it.each([
    [[{ quantity: 3, unitAmount: 10000 }], 0, 0, 30000, 30000],
    [[{ quantity: 1, unitAmount: 100000 }], 20000, 8800, 100000, 88800],
    [[{ quantity: 1, unitAmount: 1000 }], 5000, 300, 1000, 0],
    [[{ quantity: 2, unitAmount: 0 }], 0, 0, 0, 0],
    [[{ quantity: 1, unitAmount: 1000 }], 1000, 110, 1000, 110],
  ])('lines %j, discount %i, tax %i: subtotal %i, total %i', async (lines, discount, tax, subtotal, total) => {
    const ws = await server.workspace();
    const inv = (await create(ws, { lines: lines.map((l) => line(l)), discount, tax })).json.data;
    expect(inv).toMatchObject({ subtotal, total, amountDue: total, discount, tax });
  });

  it('a zero total created open is paid at once: finalized, paid; no payment, receipt or ledger entry', async () => {
    const ws = await server.workspace();
    const inv = (await create(ws, { status: 'open', lines: [line({ unitAmount: 0 })] })).json.data;
    expect(inv).toMatchObject({ status: 'paid', total: 0, amountPaid: 0, amountDue: 0 });
    expect(inv.paidAt).toMatch(ISO);
    await expect(eventTypes(ws, inv.id)).resolves.toEqual(['svc.invoice.finalized.v1', 'svc.invoice.paid.v1']);
    expect(await ledgerOf(inv.id)).toEqual([]);
    expect((await ws.client.get(`/v1/payments?limit=100`)).json.data).toEqual([]);
  });

  it.each([
    [{ customerId: undefined }, 'customerId'],
    [{ customerId: 5 }, 'customerId'],
    [{ currency: undefined }, 'currency'],
    [{ currency: 'idr' }, 'currency'],
    [{ lines: [] }, 'lines'],
    [{ lines: undefined }, 'lines'],
    [{ lines: Array.from({ length: 101 }, () => line()) }, 'lines'],
    [{ lines: [line({ description: '' })] }, 'lines[0].description'],
    [{ lines: [line({ description: 'x'.repeat(256) })] }, 'lines[0].description'],
    [{ lines: [line(), line({ quantity: 0 })] }, 'lines[1].quantity'],
    [{ lines: [line({ quantity: -1 })] }, 'lines[0].quantity'],
    [{ lines: [line({ unitAmount: -5 })] }, 'lines[0].unitAmount'],
    [{ lines: [line({ priceId: 'nope' })] }, 'lines[0].priceId'],
    [{ lines: [line({ metadata: { a: 1 } })] }, 'metadata'],
    [{ discount: -1 }, 'discount'],
    [{ tax: -1 }, 'tax'],
    [{ status: 'paid' }, 'status'],
    [{ memo: 'm'.repeat(501) }, 'memo'],
    [{ metadata: { memo: 'x' } }, 'metadata'],
    [{ metadata: { k: 'v'.repeat(501) } }, 'metadata'],
    [{ subscriptionId: 'cus_x' }, 'subscriptionId'],
    [{ subtotal: 100000 }, 'subtotal'],
    [{ lines: [line({ quantity: '2' })] }, undefined],
    [{ lines: [line({ quantity: 1.5 })] }, undefined],
    [{ lines: [line({ unitAmount: 1.5 })] }, undefined],
    [{ lines: 'x' }, undefined],
    [{ discount: 'x' }, undefined],
    [{ dueAt: 'not a date' }, undefined],
    [{ status: 5 }, undefined],
    [{ total: 100000 }, 'total'],
  ])('%j is 400 VALIDATION_ERROR naming %s', async (body, field) => {
    const ws = await server.workspace();
    expectError(await create(ws, body), 400, 'VALIDATION_ERROR', field);
  });

  it('an unsupported currency is 400 UNSUPPORTED_CURRENCY', async () => {
    const ws = await server.workspace();
    expectError(await create(ws, { currency: 'XYZ' }), 400, 'UNSUPPORTED_CURRENCY', 'currency');
  });

  it('404 not_found for an unknown customer, one of another workspace, and a template of another kind', async () => {
    const ws = await server.workspace();
    const other = await server.workspace();
    expectError(await create(ws, {}, 'cus_01J0000000000000000000000Z'), 404, 'not_found');
    expectError(await create(ws, {}, await customer(other)), 404, 'not_found');
    const receiptTpl = (await ws.client.post('/v1/templates', { kind: 'receipt', name: 'R' })).json.data.id;
    expectError(await create(ws, { templateId: receiptTpl }), 404, 'not_found');
    expectError(await create(ws, { templateId: 'tpl_01J0000000000000000000000Z' }), 404, 'not_found');
    const invoiceTpl = (await ws.client.post('/v1/templates', { kind: 'invoice', name: 'I' })).json.data.id;
    const ok = await create(ws, { templateId: invoiceTpl });
    expect(ok.status).toBe(201);
    expect(ok.json.data.templateId).toBe(invoiceTpl);
  });
});

describe('GET /v1/invoices', () => {
  it('retrieves with lines; 404 not_found for unknown ids, other workspaces and the other mode', async () => {
    const ws = await server.workspace();
    const inv = (await create(ws)).json.data;
    const got = await ws.client.get(`/v1/invoices/${inv.id}`);
    expect(got.status).toBe(200);
    expect(got.json.data).toEqual(inv);
    expectError(await ws.client.get('/v1/invoices/inv_01J0000000000000000000000Z'), 404, 'not_found');
    const other = await server.workspace();
    expectError(await other.client.get(`/v1/invoices/${inv.id}`), 404, 'not_found');
    expectError(await other.client.post(`/v1/invoices/${inv.id}/finalize`, {}), 404, 'not_found');
    expectError(await other.client.post(`/v1/invoices/${inv.id}/pay`, {}, key()), 404, 'not_found');
    expectError(await other.client.post(`/v1/invoices/${inv.id}/void`, {}, key()), 404, 'not_found');
    const live = await mintKey(ws.workspaceId, 'live');
    const liveClient = createClient({ baseUrl: server.url, keyId: live.keyId, secret: live.secret });
    expectError(await liveClient.get(`/v1/invoices/${inv.id}`), 404, 'not_found');
    expect((await liveClient.get('/v1/invoices')).json.data).toEqual([]);
  });

  it('lists newest first, lines on every item; filters status, customerId, subscriptionId; pages', async () => {
    const ws = await server.workspace();
    const a = await customer(ws);
    const b = await customer(ws);
    const made: string[] = [];
    for (let i = 0; i < 5; i++)
      made.push(
        (
          await create(
            ws,
            { lines: [line({ quantity: i + 1 }), line()], status: i % 2 ? 'open' : 'draft' },
            i < 3 ? a : b,
          )
        ).json.data.id,
      );
    // A trialing subscription of customer a (no invoice of its own); another customer's is 404.
    const plan = (await postPlan(ws, planBody({ trialDays: 7 }))).json.data;
    const subscription = (
      await ws.client.post('/v1/subscriptions', { customerId: a, priceId: plan.prices[0].id }, key())
    ).json.data.id;
    expect((await create(ws, { subscriptionId: subscription }, b)).status).toBe(404);
    const sub = (await create(ws, { subscriptionId: subscription }, a)).json.data.id;
    const all = await ws.client.get('/v1/invoices');
    expect(all.json.data.map((r: any) => r.id)).toEqual([sub, ...made].reverse().sort().reverse());
    expect(all.json.data.every((r: any) => r.lines.length >= 1)).toBe(true);
    expect(all.json.data.find((r: any) => r.id === made[2]).lines.map((l: any) => l.quantity)).toEqual([3, 2]);
    expect(all.json.meta.page).toMatchObject({ limit: 20, hasMore: false, nextCursor: null });
    const open = (await ws.client.get('/v1/invoices?status=open')).json.data.map((r: any) => r.id);
    expect(open.sort()).toEqual([made[1], made[3]].sort());
    const ofB = (await ws.client.get(`/v1/invoices?customerId=${b}`)).json.data.map((r: any) => r.id);
    expect(ofB.sort()).toEqual([made[3], made[4]].sort());
    const ofSub = (await ws.client.get(`/v1/invoices?subscriptionId=${subscription}`)).json.data;
    expect(ofSub.map((r: any) => r.id)).toEqual([sub]);
    const p1 = await ws.client.get('/v1/invoices?limit=4&order=asc');
    expect(p1.json.meta.page).toMatchObject({ limit: 4, hasMore: true });
    const p2 = await ws.client.get(`/v1/invoices?limit=4&order=asc&cursor=${p1.json.meta.page.nextCursor}`);
    expect([...p1.json.data, ...p2.json.data].map((r: any) => r.id)).toEqual([...made, sub]);
    expect(p2.json.meta.page.hasMore).toBe(false);
    expectError(await ws.client.get('/v1/invoices?limit=0'), 400, 'invalid_limit');
    expectError(await ws.client.get('/v1/invoices?limit=101'), 400, 'invalid_limit');
    expectError(await ws.client.get('/v1/invoices?cursor=cur_bogus.x'), 400, 'invalid_cursor');
    expectError(
      await ws.client.get(`/v1/invoices?limit=4&order=asc&status=open&cursor=${p1.json.meta.page.nextCursor}`),
      400,
      'invalid_cursor',
    );
    expectError(await ws.client.get('/v1/invoices?status=bogus'), 400, 'VALIDATION_ERROR', 'status');
  });
});

/**
 * The text of every statement this process sends as the app role (tenant queries) while `fn` runs;
 * the relay's 1 s poll and the auth lookups use the owner pool and are left out.
 */
async function recordStatements(fn: () => Promise<unknown>): Promise<string[]> {
  const statements: string[] = [];
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const q = args[0];
    if (this.user === APP_LOGIN_ROLE)
      statements.push(typeof q === 'string' ? q : String((q as { text?: string })?.text ?? ''));
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    await fn();
  } finally {
    pg.Client.prototype.query = original;
  }
  return statements;
}

describe('the list reads lines with the page', () => {
  it('one message reads invoices and lines, whatever the page size (no query per row)', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    await unthrottled(async () => {
      for (let i = 0; i < 12; i++) await create(ws, { lines: [line(), line(), line()] }, cus);
    });
    const count = async (limit: number) => {
      let body: any;
      const texts = await recordStatements(async () => {
        body = (await ws.client.get(`/v1/invoices?limit=${limit}`)).json;
      });
      expect(body.data).toHaveLength(limit);
      expect(body.data.every((r: any) => r.lines.length === 3)).toBe(true);
      return texts.length;
    };
    // Warm: prepared statements and the key cache; then the same number of statements for 2 and 12 rows.
    await count(12);
    const small = await count(2);
    expect(small).toBeLessThanOrEqual(2);
    expect(await count(12)).toBe(small);
  });
});

describe('finalize, pay, void', () => {
  it('finalize: draft -> open with the next number; again is an idempotent success with no second event', async () => {
    const ws = await server.workspace();
    const inv = (await create(ws)).json.data;
    const fin = await ws.client.post(`/v1/invoices/${inv.id}/finalize`, {});
    expect(fin.status).toBe(200);
    expect(fin.json.data).toMatchObject({ status: 'open', number: expect.stringMatching(NUMBER) });
    expect(fin.json.data.issuedAt).toMatch(ISO);
    expect(fin.json.data.hostedInvoiceUrl).toMatch(/\/i\/inv_/);
    const again = await ws.client.post(`/v1/invoices/${inv.id}/finalize`, {});
    expect(again.status).toBe(200);
    expect(again.json.data).toEqual(fin.json.data);
    await expect(eventTypes(ws, inv.id)).resolves.toEqual(['svc.invoice.created.v1', 'svc.invoice.finalized.v1']);
    expectError(await ws.client.post('/v1/invoices/inv_01J0000000000000000000000Z/finalize', {}), 404, 'not_found');
  });

  it('pay (201), bookkeeping: amounts, payment, one invoice receipt, cash:offline ledger, paid event', async () => {
    const ws = await server.workspace();
    const inv = (await create(ws, { status: 'open', discount: 10000, tax: 9900 })).json.data;
    expect(inv.total).toBe(99900);
    expectError(await ws.client.post(`/v1/invoices/${inv.id}/pay`, {}), 400, 'idempotency_required');
    const paid = await ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, key());
    expect(paid.status).toBe(201);
    expect(paid.json.data).toMatchObject({ status: 'paid', amountPaid: 99900, amountDue: 0, number: inv.number });
    expect(paid.json.data.paidAt).toMatch(ISO);
    await expect(eventTypes(ws, inv.id)).resolves.toEqual(['svc.invoice.finalized.v1', 'svc.invoice.paid.v1']);
    expect(await ledgerOf(inv.id)).toEqual([
      { code: 'cash:offline', direction: 'debit', amount: 99900, sourceType: 'invoice', txId: `inv:${inv.id}` },
      { code: 'revenue:invoices', direction: 'credit', amount: 99900, sourceType: 'invoice', txId: `inv:${inv.id}` },
      { code: 'revenue:invoices', direction: 'debit', amount: 9900, sourceType: 'invoice', txId: `inv:${inv.id}` },
      { code: 'tax:ppn', direction: 'credit', amount: 9900, sourceType: 'invoice', txId: `inv:${inv.id}` },
    ]);
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
    // Never payout-eligible: no settlement:* entry, and the payout balance is untouched.
    const settlement = await db().system.query(
      `SELECT count(*)::int AS n FROM ledger_entries WHERE "workspaceId" = $1 AND code LIKE 'settlement:%'`,
      [ws.workspaceId],
    );
    expect(settlement.rows[0].n).toBe(0);
    const payments = await db().system.query(
      `SELECT id, amount::int, status, "invoiceId" FROM payments WHERE "invoiceId" = $1`,
      [inv.id],
    );
    expect(payments.rows).toEqual([expect.objectContaining({ amount: 99900, status: 'succeeded', invoiceId: inv.id })]);
    const receipts = await db().system.query(
      `SELECT "sourceType", "paymentId", total::int, "taxAmount"::int, subtotal::int, "lineItems"
       FROM receipts WHERE "sourceId" = $1`,
      [inv.id],
    );
    expect(receipts.rows).toEqual([
      {
        sourceType: 'invoice',
        paymentId: payments.rows[0].id,
        total: 99900,
        taxAmount: 9900,
        subtotal: 90000,
        lineItems: [
          { name: 'Consulting', qty: 2, unitPrice: 50000, subtotal: 100000 },
          { name: 'Discount', qty: 1, unitPrice: -10000, subtotal: -10000 },
        ],
      },
    ]);
    // GraphQL edges: lines, customer, payments, receipt.
    const g = await ws.client.graphql(
      `query($id: ID!) { invoice(id: $id) {
        number lines { amount } customer { id } payments { id amount } receipt { sourceId } } }`,
      { id: inv.id },
    );
    expect(g.json.data.invoice).toEqual({
      number: inv.number,
      lines: [{ amount: 100000 }],
      customer: { id: inv.customerId },
      payments: [{ id: payments.rows[0].id, amount: 99900 }],
      receipt: { sourceId: inv.id },
    });
    expectError(await ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, key()), 409, 'conflict');
    expectError(await ws.client.post(`/v1/invoices/${inv.id}/void`, {}, key()), 409, 'conflict');
    expectError(await ws.client.post(`/v1/invoices/${inv.id}/finalize`, {}), 409, 'conflict');
  });

  it('void needs an Idempotency-Key; draft and open become void with voidedAt and the voided event', async () => {
    const ws = await server.workspace();
    const draft = (await create(ws)).json.data;
    expectError(await ws.client.post(`/v1/invoices/${draft.id}/void`, {}), 400, 'idempotency_required');
    const v = await ws.client.post(`/v1/invoices/${draft.id}/void`, {}, key());
    expect(v.status).toBe(200);
    expect(v.json.data).toMatchObject({ status: 'void', number: null });
    expect(v.json.data.voidedAt).toMatch(ISO);
    await expect(eventTypes(ws, draft.id)).resolves.toEqual(['svc.invoice.created.v1', 'svc.invoice.voided.v1']);
    expectError(await ws.client.post(`/v1/invoices/${draft.id}/void`, {}, key()), 409, 'conflict');
    expectError(await ws.client.post(`/v1/invoices/${draft.id}/finalize`, {}), 409, 'conflict');
    expectError(await ws.client.post(`/v1/invoices/${draft.id}/pay`, {}, key()), 409, 'conflict');
    const open = (await create(ws, { status: 'open' })).json.data;
    expect((await ws.client.post(`/v1/invoices/${open.id}/void`, {}, key())).json.data.status).toBe('void');
    // A same-key replay returns the original result.
    const k = key();
    const third = (await create(ws, { status: 'open' })).json.data;
    const first = await ws.client.post(`/v1/invoices/${third.id}/void`, {}, k);
    const replay = await ws.client.post(`/v1/invoices/${third.id}/void`, {}, k);
    expect(replay.status).toBe(200);
    expect(replay.json.data).toEqual(first.json.data);
  });

  it('pay on a draft is 409 conflict; finalize then pay works', async () => {
    const ws = await server.workspace();
    const inv = (await create(ws)).json.data;
    expectError(await ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, key()), 409, 'conflict');
    await ws.client.post(`/v1/invoices/${inv.id}/finalize`, {});
    expect((await ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, key())).status).toBe(201);
  });

  it('GraphQL: the same codes in extensions.code; void and pay require an idempotency key', async () => {
    const ws = await server.workspace();
    const inv = (await create(ws)).json.data;
    const pay = 'mutation($id: ID!, $k: String) { payInvoice(id: $id, idempotencyKey: $k) { status } }';
    expect((await ws.client.graphql(pay, { id: inv.id })).json.errors![0].extensions.code).toBe('idempotency_required');
    expect((await ws.client.graphql(pay, { id: inv.id, k: randomUUID() })).json.errors![0].extensions.code).toBe(
      'conflict',
    );
    const get = await ws.client.graphql('query($id: ID!) { invoice(id: $id) { id } }', {
      id: 'inv_01J0000000000000000000000Z',
    });
    expect(get.json.errors![0].extensions.code).toBe('not_found');
    const bad = await ws.client.graphql('mutation($i: CreateInvoiceInput!) { createInvoice(input: $i) { id } }', {
      i: { customerId: inv.customerId, currency: 'IDR', lines: [] },
    });
    expect(bad.json.errors![0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', field: 'lines' });
  });
});

describe('settleInvoice (the hosted page calls it with its payment)', () => {
  it('with a payment: receipt names it, ledger debits settlement:<adapter>, txId the session; once', async () => {
    const ws = await server.workspace();
    const inv = (await create(ws, { status: 'open', tax: 1000 })).json.data;
    const scope = { workspaceId: ws.workspaceId, mode: 'test' as const, modes: ['test' as const] };
    const paymentId = newId('payment');
    const settle = (paymentId: string) =>
      tenantTx(scope, async (tx) => {
        const locked = await lockInvoice(tx, { ...scope, accountId: ws.accountId }, inv.id);
        await tx.query(
          sql`INSERT INTO payments (id, "workspaceId", mode, status, amount, currency, method, adapter, "customerId",
            "invoiceId", "capturedAt") VALUES (${paymentId}, ${ws.workspaceId}, 'test', 'succeeded', ${locked!.total},
            'IDR', 'qris', 'provider_a', ${inv.customerId}, ${inv.id}, now())`,
        );
        return settleInvoice(tx, scope, locked!, {
          accountId: ws.accountId,
          source: 'hosted',
          payment: { id: paymentId, adapter: 'provider_a', method: 'qris', capturedAt: new Date() },
          txId: 'cs_test_session',
        });
      });
    const out = await settle(paymentId);
    expect(out.invoice).toMatchObject({ status: 'paid', amountPaid: 101000n, amountDue: 0n });
    expect(out.paymentId).toBe(paymentId);
    expect(out.receiptNumber).toMatch(/^SVC-RCPT-/);
    expect(await ledgerOf(inv.id)).toEqual([
      { code: 'revenue:invoices', direction: 'credit', amount: 101000, sourceType: 'invoice', txId: 'cs_test_session' },
      { code: 'revenue:invoices', direction: 'debit', amount: 1000, sourceType: 'invoice', txId: 'cs_test_session' },
      {
        code: 'settlement:provider_a',
        direction: 'debit',
        amount: 101000,
        sourceType: 'invoice',
        txId: 'cs_test_session',
      },
      { code: 'tax:ppn', direction: 'credit', amount: 1000, sourceType: 'invoice', txId: 'cs_test_session' },
    ]);
    const r = await db().system.query(`SELECT "paymentId", method FROM receipts WHERE "sourceId" = $1`, [inv.id]);
    expect(r.rows).toEqual([{ paymentId, method: 'qris' }]);
    // A second payer (another session's payment) loses under the lock; its transaction rolls back.
    await expect(settle(newId('payment'))).rejects.toMatchObject({ extensions: { code: 'conflict' } });
    expectError(await ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, key()), 409, 'conflict');
    await expect(eventTypes(ws, inv.id)).resolves.toEqual(['svc.invoice.finalized.v1', 'svc.invoice.paid.v1']);
  });
});

describe('PATCH /v1/invoices/:id (drafts only)', () => {
  it('edits a draft: lines replaced, totals recomputed, memo and metadata kept apart; no event', async () => {
    const ws = await server.workspace();
    const inv = (await create(ws, { memo: 'first', metadata: { po: '1' }, dueAt: '2030-01-01T00:00:00.000Z' })).json
      .data;
    const res = await ws.client.patch(`/v1/invoices/${inv.id}`, {
      lines: [line({ quantity: 1, unitAmount: 7000 }), line({ description: 'Extra', quantity: 3, unitAmount: 1000 })],
      discount: 500,
      tax: 1100,
      metadata: { po: '2', dept: 'ops' },
      dueAt: null,
    });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      status: 'draft',
      subtotal: 10000,
      discount: 500,
      tax: 1100,
      total: 10600,
      amountDue: 10600,
      dueAt: null,
      metadata: { po: '2', dept: 'ops', memo: 'first' },
    });
    expect(res.json.data.lines.map((l: any) => [l.description, l.amount])).toEqual([
      ['Consulting', 7000],
      ['Extra', 3000],
    ]);
    expect((await ws.client.get(`/v1/invoices/${inv.id}`)).json.data).toEqual(res.json.data);
    const memo = await ws.client.patch(`/v1/invoices/${inv.id}`, { memo: null, tax: 0 });
    expect(memo.json.data).toMatchObject({ metadata: { po: '2', dept: 'ops' }, total: 9500 });
    await expect(eventTypes(ws, inv.id)).resolves.toEqual(['svc.invoice.created.v1']);
    const fin = (await ws.client.post(`/v1/invoices/${inv.id}/finalize`, {})).json.data;
    expect(fin.total).toBe(9500);
    expect(fin.lines).toHaveLength(2);
  });

  it('409 conflict once issued; 400 VALIDATION_ERROR for bad fields; 404 not_found', async () => {
    const ws = await server.workspace();
    const open = (await create(ws, { status: 'open' })).json.data;
    expectError(await ws.client.patch(`/v1/invoices/${open.id}`, { tax: 1 }), 409, 'conflict');
    expectError(await ws.client.patch(`/v1/invoices/${open.id}`, { lines: [line()] }), 409, 'conflict');
    const draft = (await create(ws)).json.data;
    expectError(await ws.client.patch(`/v1/invoices/${draft.id}`, { lines: [] }), 400, 'VALIDATION_ERROR', 'lines');
    expectError(await ws.client.patch(`/v1/invoices/${draft.id}`, { tax: -1 }), 400, 'VALIDATION_ERROR', 'tax');
    expectError(await ws.client.patch(`/v1/invoices/${draft.id}`, { total: 1 }), 400, 'VALIDATION_ERROR', 'total');
    expectError(
      await ws.client.patch(`/v1/invoices/${draft.id}`, { metadata: { memo: 'x' } }),
      400,
      'VALIDATION_ERROR',
      'metadata',
    );
    const tpl = (await ws.client.post('/v1/templates', { kind: 'receipt', name: 'R' })).json.data.id;
    expectError(await ws.client.patch(`/v1/invoices/${draft.id}`, { templateId: tpl }), 404, 'not_found');
    expectError(await ws.client.patch('/v1/invoices/inv_01J0000000000000000000000Z', { tax: 1 }), 404, 'not_found');
    const other = await server.workspace();
    expectError(await other.client.patch(`/v1/invoices/${draft.id}`, { tax: 1 }), 404, 'not_found');
    expect((await ws.client.get(`/v1/invoices/${draft.id}`)).json.data).toEqual(draft);
  });
});

describe('the lock after draft, in the database', () => {
  it('refuses changes to lines, discount, tax, totals and number once issued; a draft may change', async () => {
    const ws = await server.workspace();
    const draft = (await create(ws)).json.data;
    const open = (await create(ws, { status: 'open' })).json.data;
    const sys = db().system;
    await sys.query(
      `UPDATE invoices SET discount = 1, total = total - 1, "amountDue" = "amountDue" - 1 WHERE id = $1`,
      [draft.id],
    );
    await sys.query(`UPDATE invoice_lines SET description = 'edited' WHERE "invoiceId" = $1`, [draft.id]);
    for (const stmt of [
      `UPDATE invoices SET tax = tax + 1, total = total + 1, "amountDue" = "amountDue" + 1 WHERE id = $1`,
      `UPDATE invoices SET discount = 1, total = total - 1, "amountDue" = "amountDue" - 1 WHERE id = $1`,
      `UPDATE invoices SET number = 'SVC-2000-01-9999' WHERE id = $1`,
      `UPDATE invoices SET currency = 'USD' WHERE id = $1`,
      `UPDATE invoices SET status = 'draft', number = NULL WHERE id = $1`,
      `UPDATE invoice_lines SET description = 'edited' WHERE "invoiceId" = $1`,
      `DELETE FROM invoice_lines WHERE "invoiceId" = $1`,
      `INSERT INTO invoice_lines (id, "workspaceId", mode, "invoiceId", position, description, quantity,
         "unitAmount", amount)
       SELECT 'il_x', "workspaceId", mode, id, 9, 'x', 1, 1, 1 FROM invoices WHERE id = $1`,
    ])
      await expect(sys.query(stmt, [open.id]), stmt).rejects.toThrow(/locked|cannot return/);
    // The app role cannot delete an invoice at all (spec: there is no delete).
    const c = await db().system.connect();
    try {
      await c.query('BEGIN');
      await c.query('SET LOCAL ROLE svc_app');
      await expect(c.query('DELETE FROM invoices WHERE id = $1', [draft.id])).rejects.toThrow(/permission denied/);
    } finally {
      await c.query('ROLLBACK');
      c.release();
    }
    // A total that contradicts its parts is refused by the check.
    await expect(sys.query(`UPDATE invoices SET total = 1 WHERE id = $1`, [draft.id])).rejects.toThrow(/amounts_check/);
  });
});

describe('the past_due sweep', () => {
  it('moves open invoices past dueAt (injected clock) to past_due, no event; still payable', async () => {
    const ws = await server.workspace();
    const soon = new Date(Date.now() + 3_600_000).toISOString();
    const due = (await create(ws, { status: 'open', dueAt: soon })).json.data;
    const later = (await create(ws, { status: 'open', dueAt: new Date(Date.now() + 86_400_000 * 3).toISOString() }))
      .json.data;
    const draft = (await create(ws, { dueAt: soon })).json.data;
    expect(await markPastDueInvoices()).toBe(0);
    clock.advance(3_601_000);
    try {
      expect(await markPastDueInvoices()).toBeGreaterThanOrEqual(1);
    } finally {
      clock.reset();
    }
    const got = async (id: string) => (await ws.client.get(`/v1/invoices/${id}`)).json.data.status;
    expect([await got(due.id), await got(later.id), await got(draft.id)]).toEqual(['past_due', 'open', 'draft']);
    await expect(eventTypes(ws, due.id)).resolves.toEqual(['svc.invoice.finalized.v1']);
    // Finalize is an idempotent success on past_due; pay still works.
    expect((await ws.client.post(`/v1/invoices/${due.id}/finalize`, {})).json.data.status).toBe('past_due');
    const paid = await ws.client.post(`/v1/invoices/${due.id}/pay`, {}, key());
    expect(paid.status).toBe(201);
    expect(paid.json.data.status).toBe('paid');
  });
});

describe('numbers', () => {
  it('50 concurrent finalizes give 50 distinct contiguous numbers; the other mode has its own', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const drafts: string[] = [];
    // 50 creates in a row pass the write rate limit: this test is about the numbering lock.
    await unthrottled(async () => {
      for (let i = 0; i < 50; i++) {
        const res = await create(ws, {}, cus);
        expect(res.status, JSON.stringify(res.json)).toBe(201);
        drafts.push(res.json.data.id);
      }
    });
    const res = await unthrottled(() =>
      Promise.all(drafts.map((id) => ws.client.post(`/v1/invoices/${id}/finalize`, {}))),
    );
    expect(res.map((r) => r.status)).toEqual(drafts.map(() => 200));
    const seq = res.map((r) => Number(r.json.data.number.split('-').at(-1))).sort((a, b) => a - b);
    expect(seq).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    // The live mode has its own sequence.
    const live = await mintKey(ws.workspaceId, 'live');
    const lc = createClient({ baseUrl: server.url, keyId: live.keyId, secret: live.secret });
    const liveCus = (await lc.post('/v1/customers', {})).json.data.id;
    const liveInv = await lc.post('/v1/invoices', {
      customerId: liveCus,
      currency: 'IDR',
      lines: [line()],
      status: 'open',
    });
    expect(liveInv.json.data.number.endsWith('-0001')).toBe(true);
  });
});

describe('races', () => {
  it('concurrent pays and voids of one invoice: exactly one wins; one payment, one receipt', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    for (let round = 0; round < 3; round++) {
      const inv = (await create(ws, { status: 'open' }, cus)).json.data;
      const calls = [
        ...Array.from({ length: 4 }, () => ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, key())),
        ws.client.post(`/v1/invoices/${inv.id}/void`, {}, key()),
      ];
      const res = await unthrottled(() => Promise.all(calls));
      const won = res.filter((r) => r.status < 300);
      expect(won).toHaveLength(1);
      expect(res.filter((r) => r.status === 409).length).toBe(4);
      const final = (await ws.client.get(`/v1/invoices/${inv.id}`)).json.data.status;
      expect(final).toBe(won[0].json.data.status);
      const counts = await db().system.query(
        `SELECT (SELECT count(*)::int FROM payments WHERE "invoiceId" = $1) AS payments,
                (SELECT count(*)::int FROM receipts WHERE "sourceId" = $1) AS receipts`,
        [inv.id],
      );
      const n = final === 'paid' ? 1 : 0;
      expect(counts.rows[0]).toEqual({ payments: n, receipts: n });
    }
  });
});

describe('numbers across months', () => {
  it('YYYY-MM is the UTC month of issuedAt; the sequence is never reset monthly', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const send = clockedSender(server);
    const body = { customerId: cus, currency: 'IDR', lines: [line()], status: 'open' };
    const first = (await send(ws, 'POST', '/v1/invoices', body)).json.data;
    clock.advance(40 * 86_400_000);
    try {
      const second = (await send(ws, 'POST', '/v1/invoices', body)).json.data;
      expect(first.number.endsWith('-0001')).toBe(true);
      expect(second.number.endsWith('-0002')).toBe(true);
      expect(second.number.slice(4, 11)).toBe(second.issuedAt.slice(0, 7));
      expect(second.number.slice(4, 11)).not.toBe(first.number.slice(4, 11));
    } finally {
      clock.reset();
    }
  });
});

describe('invoice scopes', () => {
  it('svc:invoice:read for GET, svc:invoice:write for POST (spec Invoices)', async () => {
    const ws = await server.workspace();
    const inv = (await create(ws)).json.data;
    const mint = async (body: Record<string, unknown>) => {
      const k = (await ws.client.post('/v1/api-keys', { name: 'k', ...body })).json.data;
      return createClient({ baseUrl: server.url, keyId: k.keyId, secret: k.key });
    };
    const ro = await mint({ role: 'read_only' });
    expect((await ro.get(`/v1/invoices/${inv.id}`)).status).toBe(200);
    expect((await ro.get('/v1/invoices')).status).toBe(200);
    expectError(await ro.post('/v1/invoices', {}), 403, 'insufficient_scope');
    expectError(await ro.post(`/v1/invoices/${inv.id}/finalize`, {}), 403, 'insufficient_scope');
    expectError(await ro.post(`/v1/invoices/${inv.id}/void`, {}, key()), 403, 'insufficient_scope');
    const writer = await mint({ role: 'restricted', scopes: ['svc:invoice:write'] });
    expect((await writer.post(`/v1/invoices/${inv.id}/finalize`, {})).status).toBe(200);
    expectError(await writer.get(`/v1/invoices/${inv.id}`), 403, 'insufficient_scope');
  });
});

describe('events catalog', () => {
  it('webhook endpoints accept svc.invoice.* event types', async () => {
    const ws = await server.workspace();
    // No DNS here: the example name resolves to a public address.
    const systemLookup = resolver.lookupAll;
    resolver.lookupAll = async (host) => (host.endsWith('.example.com') ? ['93.184.216.34'] : systemLookup(host));
    try {
      const types = [
        'svc.invoice.created.v1',
        'svc.invoice.finalized.v1',
        'svc.invoice.paid.v1',
        'svc.invoice.payment_failed.v1',
        'svc.invoice.voided.v1',
      ];
      const res = await ws.client.post('/v1/webhook-endpoints', {
        url: 'https://hooks.example.com/inv',
        events: types,
      });
      expect(res.status).toBe(201);
      expect(res.json.data.events).toEqual(types);
    } finally {
      resolver.lookupAll = systemLookup;
    }
  });
});
