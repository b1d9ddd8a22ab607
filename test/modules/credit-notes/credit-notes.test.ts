import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useServer, db, createClient, type Workspace } from '../../helpers/server.ts';
import { mintKey } from '../../helpers/keys.ts';
import { planBody, postPlan } from '../../helpers/plans.ts';
import { payInvoiceOnline, unbalancedTxIds, unthrottled } from '../../helpers/payments.ts';

const server = useServer();

type Res = { status: number; json: any; text?: string };
function expectError(res: Res, status: number, code: string, field?: string) {
  expect(
    { status: res.status, code: res.json?.error?.code, ...(field ? { field: res.json?.error?.field } : {}) },
    JSON.stringify(res.json),
  ).toEqual({ status, code, ...(field ? { field } : {}) });
}
const key = () => ({ 'idempotency-key': randomUUID() });
const NUMBER = /^SVC-CN-\d{4}-\d\d-\d{4,}$/;

async function customer(ws: Workspace) {
  return (await ws.client.post('/v1/customers', { name: 'Budi', email: 'budi@example.com' })).json.data.id as string;
}

/** An open invoice: 2 x 50,000 + tax 11,000 = 111,000 IDR (the worked example of docs/credit-notes.md). */
async function openInvoice(ws: Workspace, over: Record<string, unknown> = {}) {
  const res = await ws.client.post('/v1/invoices', {
    customerId: await customer(ws),
    currency: 'IDR',
    lines: [{ description: 'Consulting', quantity: 2, unitAmount: 50000 }],
    tax: 11000,
    status: 'open',
    ...over,
  });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data;
}

/** Marked paid by POST /v1/invoices/:id/pay: a bookkeeping payment, nothing of it refundable through the platform. */
async function paidInvoice(ws: Workspace) {
  const inv = await openInvoice(ws);
  const paid = await ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, key());
  expect(paid.status, JSON.stringify(paid.json)).toBe(201);
  return paid.json.data;
}

/** Paid through its hosted page with a managed-sandbox card: money a refund can send back. */
async function paidOnline(ws: Workspace) {
  const inv = await openInvoice(ws);
  await payInvoiceOnline(server, inv.id);
  const paid = (await ws.client.get(`/v1/invoices/${inv.id}`)).json.data;
  expect(paid.status).toBe('paid');
  return paid;
}

const note = (ws: Workspace, body: Record<string, unknown>, headers: Record<string, string> = key()) =>
  ws.client.post('/v1/credit-notes', body, headers);

const balanceOf = async (workspaceId: string) => {
  const { rows } = await db().system.query(
    `SELECT coalesce(sum(amount), 0)::bigint AS b FROM customer_balances WHERE "workspaceId" = $1`,
    [workspaceId],
  );
  const ledger = await db().system.query(
    `SELECT coalesce(sum(CASE direction WHEN 'credit' THEN amount ELSE -amount END), 0)::bigint AS l
       FROM ledger_entries WHERE "workspaceId" = $1 AND code = 'customer_credit'`,
    [workspaceId],
  );
  return { balances: Number(rows[0].b), ledger: Number(ledger.rows[0].l) };
};

const ledgerOf = async (txId: string) =>
  (
    await db().system.query(
      `SELECT code, direction, amount::int AS amount FROM ledger_entries WHERE "txId" = $1 ORDER BY code, direction`,
      [txId],
    )
  ).rows;

describe('credit notes: issue', () => {
  it('a pre-payment note on an open invoice lowers amountDue, reverses tax in proportion, is numbered and evented', async () => {
    const ws = await server.workspace();
    const inv = await openInvoice(ws);
    const line = inv.lines[0];
    const res = await note(ws, {
      invoiceId: inv.id,
      lines: [{ invoiceLineId: line.id, quantity: 1 }],
      reason: 'other',
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const cn = res.json.data;
    expect(cn.id).toMatch(/^cn_/);
    expect(cn.lines[0].id).toMatch(/^cnl_/);
    expect(cn.number).toMatch(NUMBER);
    expect(cn.number.endsWith('-0001')).toBe(true);
    expect(cn).toMatchObject({
      status: 'issued',
      invoiceId: inv.id,
      customerId: inv.customerId,
      currency: 'IDR',
      subtotal: 50000,
      discountAmount: 0,
      tax: 5500,
      taxIncluded: 0,
      total: 55500,
      prePaymentAmount: 55500,
      postPaymentAmount: 0,
      refundAmount: 0,
      creditAmount: 0,
      outOfBandAmount: 0,
      refundId: null,
      balanceTransactionId: null,
      arn: `arn:svc:${ws.accountId}:credit-note:${cn.id}`,
    });
    expect(cn.lines[0]).toMatchObject({
      type: 'invoice_line',
      invoiceLineId: line.id,
      quantity: 1,
      unitAmount: 50000,
      amount: 50000,
    });
    const after = (await ws.client.get(`/v1/invoices/${inv.id}`)).json.data;
    expect(after).toMatchObject({
      status: 'open',
      total: 111000,
      creditedAmount: 55500,
      prePaymentCreditedAmount: 55500,
      amountRemaining: 55500,
      amountDue: 55500,
      balanceApplied: 0,
    });
    // Nothing posts for a pre-payment part.
    expect(await ledgerOf(`cn:${cn.id}`)).toEqual([]);
    const events = (await ws.client.get(`/v1/events?objectId=${cn.id}`)).json.data;
    expect(events.map((e: any) => e.type)).toEqual(['svc.credit_note.issued.v1']);
    expect(events[0].data.object).toMatchObject({ id: cn.id, number: cn.number, total: 55500 });
    // Pays what is left: the payment, the receipt and the ledger see 55,500 with the tax not reversed.
    const paid = await ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, key());
    expect(paid.status).toBe(201);
    expect(paid.json.data).toMatchObject({ status: 'paid', amountPaid: 55500, amountDue: 0 });
    expect(await ledgerOf(`inv:${inv.id}`)).toEqual([
      { code: 'cash:offline', direction: 'debit', amount: 55500 },
      { code: 'revenue:invoices', direction: 'credit', amount: 55500 },
      { code: 'revenue:invoices', direction: 'debit', amount: 5500 },
      { code: 'tax:ppn', direction: 'credit', amount: 5500 },
    ]);
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
    // GraphQL edge Invoice.creditNotes.
    const gql = await ws.client.post('/graphql', {
      query: `query($id: ID!) { invoice(id: $id) { amountRemaining creditNotes { id number lines { amount } } } }`,
      variables: { id: inv.id },
    });
    expect(gql.json.data.invoice).toEqual({
      amountRemaining: 55500,
      creditNotes: [{ id: cn.id, number: cn.number, lines: [{ amount: 50000 }] }],
    });
  });

  it('a note crediting everything still due makes the invoice paid with no payment and no receipt', async () => {
    const ws = await server.workspace();
    const inv = await openInvoice(ws);
    const res = await note(ws, { invoiceId: inv.id, amount: 111000 });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json.data).toMatchObject({ total: 111000, tax: 11000, subtotal: 100000, prePaymentAmount: 111000 });
    expect(res.json.data.lines[0].description).toBe(
      `Kredit untuk faktur ${inv.number} / Credit for invoice ${inv.number}`,
    );
    const after = (await ws.client.get(`/v1/invoices/${inv.id}`)).json.data;
    expect(after).toMatchObject({
      status: 'paid',
      amountPaid: 0,
      amountDue: 0,
      amountRemaining: 0,
      creditedAmount: 111000,
    });
    const { rows } = await db().system.query(
      `SELECT (SELECT count(*) FROM payments WHERE "invoiceId" = $1)::int AS p,
              (SELECT count(*) FROM receipts WHERE "sourceId" = $1)::int AS r`,
      [inv.id],
    );
    expect(rows[0]).toEqual({ p: 0, r: 0 });
    // An invoice with an issued note cannot be voided.
    const inv2 = await openInvoice(ws);
    expect((await note(ws, { invoiceId: inv2.id, amount: 1000 })).status).toBe(201);
    expectError(await ws.client.post(`/v1/invoices/${inv2.id}/void`, {}, key()), 409, 'conflict');
  });

  it('post-payment parts: credit to the balance (default), refund through the refunds path, out of band; the ledger balances', async () => {
    const ws = await server.workspace();
    const inv = await paidOnline(ws);
    // Default: the whole post-payment part is credited to the customer balance (the worked example).
    const credit = await note(ws, { invoiceId: inv.id, amount: 55500, reason: 'product_unsatisfactory' });
    expect(credit.status, JSON.stringify(credit.json)).toBe(201);
    const c = credit.json.data;
    expect(c).toMatchObject({ prePaymentAmount: 0, postPaymentAmount: 55500, creditAmount: 55500, tax: 5500 });
    expect(c.balanceTransactionId).toMatch(/^cbtxn_/);
    expect(await ledgerOf(`cn:${c.id}`)).toEqual([
      { code: 'customer_credit', direction: 'credit', amount: 55500 },
      { code: 'revenue:credit_notes', direction: 'debit', amount: 50000 },
      { code: 'tax:ppn', direction: 'debit', amount: 5500 },
    ]);
    expect(await balanceOf(ws.workspaceId)).toEqual({ balances: 55500, ledger: 55500 });
    // Refund and out of band on the rest.
    const split = await note(ws, { invoiceId: inv.id, amount: 55500, refundAmount: 50000, outOfBandAmount: 5500 });
    expect(split.status, JSON.stringify(split.json)).toBe(201);
    const s = split.json.data;
    expect(s).toMatchObject({ refundAmount: 50000, outOfBandAmount: 5500, creditAmount: 0, refundStatus: 'succeeded' });
    expect(s.number.endsWith('-0002')).toBe(true);
    const refund = (await ws.client.get(`/v1/refunds/${s.refundId}`)).json.data;
    expect(refund).toMatchObject({ amount: 50000, status: 'succeeded', invoiceId: inv.id });
    expect(await ledgerOf(s.refundId)).toEqual([
      { code: 'refund_due', direction: 'debit', amount: 50000 },
      { code: 'settlement:provider_a_platform', direction: 'credit', amount: 50000 },
    ]);
    expect(await ledgerOf(`cn:${s.id}`)).toEqual([
      { code: 'cash:offline', direction: 'credit', amount: 5500 },
      { code: 'refund_due', direction: 'credit', amount: 50000 },
      { code: 'revenue:credit_notes', direction: 'debit', amount: 50000 },
      { code: 'tax:ppn', direction: 'debit', amount: 5500 },
    ]);
    const after = (await ws.client.get(`/v1/invoices/${inv.id}`)).json.data;
    expect(after).toMatchObject({ creditedAmount: 111000, amountRemaining: 0, amountDue: 0, status: 'paid' });
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
    // Every tax the invoice posted is reversed exactly by its two notes.
    expect(c.tax + s.tax).toBe(11000);
    const list = await ws.client.get(`/v1/credit-notes?invoiceId=${inv.id}`);
    expect(list.json.data.map((n: any) => n.id)).toEqual([s.id, c.id]);
  });

  it('preview answers the note create would issue and writes nothing', async () => {
    const ws = await server.workspace();
    const inv = await paidInvoice(ws);
    const res = await ws.client.post('/v1/credit-notes/preview', { invoiceId: inv.id, amount: 1110 });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data).toMatchObject({ id: null, number: null, status: 'preview', total: 1110, tax: 110 });
    const { rows } = await db().system.query(`SELECT count(*)::int AS n FROM credit_notes WHERE "invoiceId" = $1`, [
      inv.id,
    ]);
    expect(rows[0].n).toBe(0);
  });
});

describe('credit notes: bad input and hostile use', () => {
  it('refuses what the contract refuses, with its codes and fields', async () => {
    const ws = await server.workspace();
    const inv = await paidOnline(ws);
    // Credit over what remains: 422 VALIDATION_ERROR.
    expectError(await note(ws, { invoiceId: inv.id, amount: 111001 }), 422, 'VALIDATION_ERROR', 'amount');
    // Refund over what the payment can still refund.
    expect(
      (await ws.client.post('/v1/refunds', { chargeId: await paymentOf(inv.id), amount: 100000 }, key())).status,
    ).toBe(201);
    expectError(
      await note(ws, { invoiceId: inv.id, amount: 20000, refundAmount: 20000 }),
      422,
      'VALIDATION_ERROR',
      'refundAmount',
    );
    // Parts that do not add up.
    expectError(
      await note(ws, { invoiceId: inv.id, amount: 20000, refundAmount: 100, creditAmount: 100 }),
      400,
      'VALIDATION_ERROR',
      'refundAmount',
    );
    // Lines and amount together, neither, bad values.
    expectError(await note(ws, { invoiceId: inv.id }), 400, 'VALIDATION_ERROR', 'lines');
    expectError(await note(ws, { invoiceId: inv.id, amount: 1, lines: [] }), 400, 'VALIDATION_ERROR', 'lines');
    expectError(await note(ws, { invoiceId: inv.id, amount: -5 }), 400, 'VALIDATION_ERROR', 'amount');
    expectError(await note(ws, { invoiceId: inv.id, amount: 5, reason: 'bored' }), 400, 'VALIDATION_ERROR', 'reason');
    expectError(
      await note(ws, { invoiceId: inv.id, lines: [{ invoiceLineId: inv.lines[0].id, quantity: 3 }] }),
      422,
      'VALIDATION_ERROR',
      'lines[0].quantity',
    );
    expectError(
      await note(ws, { invoiceId: inv.id, lines: [{ invoiceLineId: 'il_nope', quantity: 1 }] }),
      404,
      'not_found',
    );
    // Quantity then amount on the same invoice line.
    expect(
      (
        await note(ws, {
          invoiceId: inv.id,
          lines: [{ invoiceLineId: inv.lines[0].id, quantity: 1 }],
          outOfBandAmount: 55500,
        })
      ).status,
    ).toBe(201);
    expectError(
      await note(ws, { invoiceId: inv.id, lines: [{ invoiceLineId: inv.lines[0].id, amount: 10 }] }),
      400,
      'VALIDATION_ERROR',
      'lines[0].amount',
    );
    // A draft or a void invoice: 409.
    const cus = inv.customerId;
    const draft = (
      await ws.client.post('/v1/invoices', {
        customerId: cus,
        currency: 'IDR',
        lines: [{ description: 'x', quantity: 1, unitAmount: 100 }],
      })
    ).json.data;
    expectError(await note(ws, { invoiceId: draft.id, amount: 10 }), 409, 'conflict');
    await ws.client.post(`/v1/invoices/${draft.id}/void`, {}, key());
    expectError(await note(ws, { invoiceId: draft.id, amount: 10 }), 409, 'conflict');
    // Another workspace's invoice and note: 404.
    const other = await server.workspace();
    expectError(await note(other, { invoiceId: inv.id, amount: 10 }), 404, 'not_found');
    const mine = (await note(ws, { invoiceId: inv.id, amount: 10 })).json.data;
    expectError(await other.client.get(`/v1/credit-notes/${mine.id}`), 404, 'not_found');
    expectError(await other.client.post(`/v1/credit-notes/${mine.id}/void`, {}, key()), 404, 'not_found');
    // The Idempotency-Key is required.
    expect((await ws.client.post('/v1/credit-notes', { invoiceId: inv.id, amount: 10 })).status).toBe(400);
  });

  it('an invoice marked paid (POST /v1/invoices/:id/pay) refunds nothing: 422 on refundAmount, in preview too; outOfBandAmount records money given back by hand', async () => {
    const ws = await server.workspace();
    const inv = await paidInvoice(ws);
    const body = { invoiceId: inv.id, amount: 10000, refundAmount: 10000 };
    const refused = await note(ws, body);
    expectError(refused, 422, 'VALIDATION_ERROR', 'refundAmount');
    expect(refused.json.error.message).toContain('outOfBandAmount');
    expectError(await ws.client.post('/v1/credit-notes/preview', body), 422, 'VALIDATION_ERROR', 'refundAmount');
    expectError(
      await note(ws, { invoiceId: inv.id, amount: 10000, refundAmount: 1, outOfBandAmount: 9999 }),
      422,
      'VALIDATION_ERROR',
      'refundAmount',
    );
    const written = async (table: string) =>
      (await db().system.query(`SELECT count(*)::int AS n FROM ${table} WHERE "invoiceId" = $1`, [inv.id])).rows[0].n;
    expect({ notes: await written('credit_notes'), refunds: await written('refunds') }).toEqual({
      notes: 0,
      refunds: 0,
    });
    const byHand = await note(ws, { invoiceId: inv.id, amount: 10000, outOfBandAmount: 10000 });
    expect(byHand.status, JSON.stringify(byHand.json)).toBe(201);
    expect(byHand.json.data).toMatchObject({
      refundAmount: 0,
      outOfBandAmount: 10000,
      refundId: null,
      refundStatus: null,
    });
    expect(await ledgerOf(`cn:${byHand.json.data.id}`)).toContainEqual({
      code: 'cash:offline',
      direction: 'credit',
      amount: 10000,
    });
    const payment = (await ws.client.get(`/v1/payments/${await paymentOf(inv.id)}`)).json.data;
    expect(payment).toMatchObject({ status: 'succeeded', amountRefunded: 0 });
    expect(await written('refunds')).toBe(0);
  });

  it('a refund part needs svc:refund:write as well', async () => {
    const ws = await server.workspace();
    const inv = await paidInvoice(ws);
    const k = await mintKey(ws.workspaceId, 'test', {
      role: 'restricted',
      scopes: ['svc:credit_note:write', 'svc:credit_note:read'],
    });
    const restricted = createClient({ baseUrl: server.url, keyId: k.keyId, secret: k.secret });
    expectError(
      await note({ ...ws, client: restricted }, { invoiceId: inv.id, amount: 1000, refundAmount: 1000 }),
      403,
      'insufficient_scope',
    );
    expect((await note({ ...ws, client: restricted }, { invoiceId: inv.id, amount: 1000 })).status).toBe(201);
  });

  it('50 concurrent notes on one invoice never over-credit it; numbers stay gapless', async () => {
    const ws = await server.workspace();
    const inv = await openInvoice(ws);
    const results = await unthrottled(() =>
      Promise.all(Array.from({ length: 50 }, () => note(ws, { invoiceId: inv.id, amount: 5000 }))),
    );
    const ok = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status !== 201);
    expect(ok.length).toBe(22);
    for (const r of refused) expectError(r, 422, 'VALIDATION_ERROR', 'amount');
    const after = (await ws.client.get(`/v1/invoices/${inv.id}`)).json.data;
    expect(after.creditedAmount).toBe(110000);
    expect(after.creditedAmount).toBeLessThanOrEqual(after.total);
    const numbers = ok.map((r) => Number(r.json.data.number.slice(-4))).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 22 }, (_, i) => i + 1));
  });
});

describe('credit notes: billing rules never void a noted invoice', () => {
  it('canceling an incomplete subscription writes its noted first invoice off (uncollectible), and voids an unnoted one', async () => {
    const ws = await server.workspace();
    const plan = (await postPlan(ws, planBody({ prices: [{ currency: 'IDR', model: 'flat', unitAmount: 100000 }] })))
      .json.data;
    const cus = await customer(ws);
    const incomplete = async () => {
      const res = await ws.client.post(
        '/v1/subscriptions',
        { customerId: cus, priceId: plan.prices[0].id, paymentMethod: 'pm_test_decline' },
        key(),
      );
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      expect(res.json.data.status).toBe('incomplete');
      return res.json.data;
    };
    const noted = await incomplete();
    expect((await note(ws, { invoiceId: noted.latestInvoiceId, amount: 1000 })).status).toBe(201);
    const plain = await incomplete();
    for (const sub of [noted, plain])
      expect((await ws.client.post(`/v1/subscriptions/${sub.id}/cancel`, {}, key())).json.data.status).toBe('canceled');
    const statusOf = async (id: string) => (await ws.client.get(`/v1/invoices/${id}`)).json.data.status;
    expect(await statusOf(noted.latestInvoiceId)).toBe('uncollectible');
    expect(await statusOf(plain.latestInvoiceId)).toBe('void');
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
  });
});

describe('credit notes: void', () => {
  it('reverses every effect, keeps the number, and refuses what cannot be undone', async () => {
    const ws = await server.workspace();
    const open = await openInvoice(ws);
    const pre = (await note(ws, { invoiceId: open.id, amount: 11100 })).json.data;
    const voided = await ws.client.post(`/v1/credit-notes/${pre.id}/void`, {}, key());
    expect(voided.status, JSON.stringify(voided.json)).toBe(200);
    expect(voided.json.data).toMatchObject({ status: 'void', number: pre.number });
    expect(voided.json.data.voidedAt).not.toBeNull();
    expect((await ws.client.get(`/v1/invoices/${open.id}`)).json.data).toMatchObject({
      creditedAmount: 0,
      prePaymentCreditedAmount: 0,
      amountDue: 111000,
    });
    // Again: 409; the invoice can be voided now.
    expectError(await ws.client.post(`/v1/credit-notes/${pre.id}/void`, {}, key()), 409, 'conflict');
    const types = (await ws.client.get(`/v1/events?objectId=${pre.id}&order=asc`)).json.data.map((e: any) => e.type);
    expect(types).toEqual(['svc.credit_note.issued.v1', 'svc.credit_note.voided.v1']);

    const paid = await paidOnline(ws);
    const credit = (await note(ws, { invoiceId: paid.id, amount: 22200 })).json.data;
    const refunded = (await note(ws, { invoiceId: paid.id, amount: 1000, refundAmount: 1000 })).json.data;
    // A refunded note cannot be voided.
    expectError(await ws.client.post(`/v1/credit-notes/${refunded.id}/void`, {}, key()), 409, 'conflict');
    expect(await balanceOf(ws.workspaceId)).toEqual({ balances: 22200, ledger: 22200 });
    const v2 = await ws.client.post(`/v1/credit-notes/${credit.id}/void`, {}, key());
    expect(v2.status).toBe(200);
    expect(await ledgerOf(`cnv:${credit.id}`)).toEqual([
      { code: 'customer_credit', direction: 'debit', amount: 22200 },
      { code: 'revenue:credit_notes', direction: 'credit', amount: 20000 },
      { code: 'tax:ppn', direction: 'credit', amount: 2200 },
    ]);
    expect(await balanceOf(ws.workspaceId)).toEqual({ balances: 0, ledger: 0 });
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
  });
});

async function paymentOf(invoiceId: string) {
  const { rows } = await db().system.query(`SELECT id FROM payments WHERE "invoiceId" = $1`, [invoiceId]);
  return rows[0].id as string;
}
