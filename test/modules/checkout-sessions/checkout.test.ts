import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useServer, db, type Workspace } from '../../helpers/server.ts';
import { clock } from '../../../src/core/clock.ts';
import { expireDueSessions } from '../../../src/modules/checkout-sessions/expiry.ts';
import { signRequest } from '../../../src/core/auth/signing.ts';
import { extractText } from 'unpdf';
import { startSmtp } from '../../helpers/smtp.ts';
import { config } from '../../../src/core/config.ts';
import { leaves, parseMime } from '../../helpers/mime.ts';
import { hostedToken, unthrottled } from '../../helpers/payments.ts';

const server = useServer();
type Res = { status: number; json: any; text: string };

const valid = {
  amount: 150000,
  currency: 'IDR',
  methods: ['qris', 'va'],
  successUrl: 'https://shop.example/thanks',
  cancelUrl: 'https://shop.example/cart',
  lineItems: [{ name: 'Kopi susu', quantity: 3, unitAmount: 50000 }],
  metadata: { orderId: 'ord_1', cashierName: 'Sari' },
};
const key = () => ({ 'idempotency-key': randomUUID() });
const create = async (ws: Workspace, body: Record<string, unknown> = {}) =>
  ws.client.post('/v1/checkout-sessions', { ...valid, ...body }, key());
function expectError(res: Res, status: number, code: string, field?: string) {
  expect(
    { status: res.status, code: res.json?.error?.code, ...(field ? { field: res.json?.error?.field } : {}) },
    res.text,
  ).toEqual({ status, code, ...(field ? { field } : {}) });
}

/** The hosted page's own calls: public, unsigned. */
async function page(id: string, path: string, body?: unknown): Promise<Res> {
  const res = await fetch(
    `${server.url}/c/${await hostedToken(id)}${path}`,
    // An English browser (the page follows it: docs/decisions.md, Customer language).
    body === undefined
      ? { headers: { 'accept-language': 'en' } }
      : {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'accept-language': 'en' },
          body: JSON.stringify(body),
        },
  );
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, json, text };
}

/** Every txId of the session's postings balances, and the gross reached settlement. */
async function ledgerOf(sessionId: string) {
  const { rows } = await db().system.query(
    `SELECT "txId", code, direction, amount::bigint::text AS amount FROM ledger_entries WHERE "sourceId" = $1 ORDER BY id`,
    [sessionId],
  );
  const net = new Map<string, bigint>();
  for (const r of rows)
    net.set(r.txId, (net.get(r.txId) ?? 0n) + (r.direction === 'debit' ? BigInt(r.amount) : -BigInt(r.amount)));
  return { rows, balanced: [...net.values()].every((v) => v === 0n) };
}

describe('POST /v1/checkout-sessions validation', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['amount missing', { amount: undefined }, 'amount'],
    ['amount zero', { amount: 0 }, 'amount'],
    ['amount negative', { amount: -5 }, 'amount'],
    ['amount fractional', { amount: 1.5 }, 'amount'],
    ['currency lower case', { currency: 'idr' }, 'currency'],
    ['methods empty', { methods: [] }, 'methods'],
    ['methods unknown', { methods: ['qris', 'bitcoin'] }, 'methods'],
    ['successUrl http', { successUrl: 'http://shop.example/thanks' }, 'successUrl'],
    ['successUrl localhost', { successUrl: 'https://localhost/thanks' }, 'successUrl'],
    ['successUrl not a URL', { successUrl: 'thanks' }, 'successUrl'],
    ['cancelUrl http', { cancelUrl: 'http://shop.example/cart' }, 'cancelUrl'],
    ['expiresInSec too short', { expiresInSec: 299 }, 'expiresInSec'],
    ['expiresInSec too long', { expiresInSec: 2_592_001 }, 'expiresInSec'],
    ['metadata not strings', { metadata: { a: 1 } }, 'metadata'],
    [
      'metadata too many keys',
      { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) },
      'metadata',
    ],
    ['line item without name', { lineItems: [{ quantity: 1, unitAmount: 1 }] }, 'lineItems[0].name'],
    ['line item quantity 0', { lineItems: [{ name: 'x', quantity: 0, unitAmount: 1 }] }, 'lineItems[0].quantity'],
    [
      'line item negative price',
      { lineItems: [{ name: 'x', quantity: 1, unitAmount: -1 }] },
      'lineItems[0].unitAmount',
    ],
  ];
  it.each(cases)('%s is 400 VALIDATION_ERROR naming the field', async (_what, patch, field) => {
    const ws = await server.workspace();
    const res = await create(ws, patch);
    expect(res.status, res.text).toBe(400);
    expect(res.json.error.code).toBe('VALIDATION_ERROR');
    expect(res.json.error.field === field || res.json.error.field?.startsWith(field.split('[')[0])).toBe(true);
  });

  it('a customer or template of another workspace is 404; an unserved currency is 422', async () => {
    const ws = await server.workspace();
    const other = await server.workspace();
    const cus = await other.client.post('/v1/customers', { name: 'Elsewhere' });
    expectError(await create(ws, { customerId: cus.json.data.id }), 404, 'not_found');
    expectError(await create(ws, { templateId: 'tpl_01M82KARQGH9CAFVN0KTK61Q7M' }), 404, 'not_found');
    expectError(await create(ws, { currency: 'EUR' }), 422, 'no_adapter_supports_methods');
  });

  it('creates an open session with the spec fields', async () => {
    const ws = await server.workspace();
    const res = await create(ws);
    expect(res.status, res.text).toBe(201);
    const s = res.json.data;
    expect(s).toMatchObject({
      status: 'open',
      adapter: null,
      paymentId: null,
      completedAt: null,
      amount: 150000,
      currency: 'IDR',
      mode: 'test',
      methods: ['qris', 'va'],
    });
    expect(s.id).toMatch(/^cs_[0-9A-Z]{26}$/);
    // The URL is the capability: the id plus a 160-bit secret (src/core/hosted-link.ts).
    expect(s.hostedUrl).toMatch(new RegExp(`/c/${s.id}_[0-9a-f]{40}$`));
    expect(s.arn).toBe(`arn:svc:${s.accountId}:checkout-session:${s.id}`);
    expect(Date.parse(s.expiresAt) - Date.parse(s.createdAt)).toBe(86_400_000);
    // The page's deadline is in the workspace's zone (Asia/Jakarta, UTC+7), named as receipts name it.
    const html = await (
      await fetch(s.hostedUrl.replace(/^https?:\/\/[^/]+/, server.url), { headers: { 'accept-language': 'en' } })
    ).text();
    const shown = /Pay before <time datetime="([^"]+)">([^<]+)<\/time>/.exec(html);
    expect(shown?.[1]).toBe(s.expiresAt);
    const wib = new Date(Date.parse(s.expiresAt) + 7 * 3600_000);
    const hhmm = `${String(wib.getUTCHours()).padStart(2, '0')}:${String(wib.getUTCMinutes()).padStart(2, '0')}`;
    // English dates as the English documents write them (en-US).
    expect(shown?.[2]).toMatch(new RegExp(`^[A-Z][a-z]{2} ${wib.getUTCDate()}, ${wib.getUTCFullYear()}, ${hhmm} WIB$`));
    expect((await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data).toEqual(s);
    expect((await (await server.workspace()).client.get(`/v1/checkout-sessions/${s.id}`)).status).toBe(404);
  });
});

describe('the test-mode sandbox (managed adapter) end to end', () => {
  it('attempt, simulate success: one payment, one receipt, balanced ledger, both events', async () => {
    const ws = await server.workspace();
    const s = (await create(ws)).json.data;
    const html = await page(s.id, '');
    expect(html.status).toBe(200);
    expect(html.text).toContain('Rp 150.000');
    expect(html.text).toContain('QRIS');

    const attempt = await page(s.id, '/attempt', { method: 'qris' });
    expect(attempt.status, attempt.text).toBe(200);
    expect(attempt.json.data).toMatchObject({ canSimulate: true, waiting: true });
    expect(attempt.json.data.qrSvg).toContain('<svg');
    const pending = (await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data;
    expect(pending).toMatchObject({ status: 'pending', adapter: 'provider_a_platform' });

    const done = await page(s.id, '/simulate', { outcome: 'success' });
    expect(done.status, done.text).toBe(200);
    expect(done.json.data.redirectUrl).toBe(`https://shop.example/thanks?session_id=${s.id}`);

    const after = (await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data;
    expect(after).toMatchObject({ status: 'completed' });
    expect(after.paymentId).toMatch(/^pay_/);
    const payment = (await ws.client.get(`/v1/payments/${after.paymentId}`)).json.data;
    expect(payment).toMatchObject({
      status: 'succeeded',
      amount: 150000,
      currency: 'IDR',
      method: 'qris',
      adapter: 'provider_a_platform',
      checkoutSessionId: s.id,
      amountRefunded: 0,
    });
    const receipt = (await ws.client.get(`/v1/checkout-sessions/${s.id}/receipt`)).json.data;
    expect(receipt.number).toMatch(/^SVC-RCPT-\d{4}-\d\d-0001$/);
    expect(receipt).toMatchObject({
      sourceType: 'checkout_session',
      sourceId: s.id,
      amount: 150000,
      total: 150000,
      adapter: 'provider_a',
      method: 'qris',
    });
    expect(receipt.template.cashierLabel).toBe('Sari');
    expect(receipt.lineItems).toEqual([{ name: 'Kopi susu', qty: 3, unitPrice: 50000, subtotal: 150000 }]);

    const ledger = await ledgerOf(s.id);
    expect(ledger.balanced).toBe(true);
    expect(ledger.rows).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'settlement:provider_a_platform', direction: 'debit', amount: '150000' }),
        expect.objectContaining({ code: 'payments', direction: 'credit', amount: '150000' }),
      ]),
    );
    const types = (await ws.client.get(`/v1/events?objectId=${s.id}`)).json.data.map((e: any) => e.type);
    expect(types).toEqual(['svc.checkout_session.completed.v1']);
    const paymentEvents = (await ws.client.get(`/v1/events?objectId=${after.paymentId}`)).json.data.map(
      (e: any) => e.type,
    );
    expect(paymentEvents).toEqual(['payment.succeeded']);
    // Late or repeated settlement is harmless.
    expect((await page(s.id, '/simulate', { outcome: 'success' })).json.data.redirectUrl).toBeTruthy();
    expect((await ws.client.get(`/v1/payments?checkoutSessionId=${s.id}`)).json.data).toHaveLength(1);
  });

  it('a failed simulation returns the session to open, and another method may be tried', async () => {
    const ws = await server.workspace();
    const s = (await create(ws)).json.data;
    await page(s.id, '/attempt', { method: 'va' });
    const failed = await page(s.id, '/simulate', { outcome: 'failure' });
    expect(failed.json.data).toEqual({ status: 'open' });
    expect((await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data.status).toBe('open');
    const again = await page(s.id, '/attempt', { method: 'qris' });
    expect(again.status).toBe(200);
    expect((await page(s.id, '/simulate', { outcome: 'bogus' })).status).toBe(400);
  });

  it('20 concurrent settlements give one payment, one receipt and one completed event', async () => {
    const ws = await server.workspace();
    const s = (await create(ws)).json.data;
    await page(s.id, '/attempt', { method: 'qris' });
    // About concurrency, not the hosted pages' per-address limit (the file's tests share one address).
    const results = await unthrottled(() =>
      Promise.all(Array.from({ length: 20 }, () => page(s.id, '/simulate', { outcome: 'success' }))),
    );
    expect(results.map((r) => r.status).filter((x) => x >= 500)).toEqual([]);
    const { rows } = await db().system.query(
      `SELECT (SELECT count(*) FROM payments WHERE "checkoutSessionId" = $1)::int AS payments,
              (SELECT count(*) FROM receipts WHERE "sourceId" = $1)::int AS receipts,
              (SELECT count(*) FROM events WHERE "objectId" = $1 AND type = 'svc.checkout_session.completed.v1')::int AS events`,
      [s.id],
    );
    expect(rows[0]).toEqual({ payments: 1, receipts: 1, events: 1 });
  });

  it('50 sessions completed concurrently get 50 distinct consecutive receipt numbers', async () => {
    const ws = await server.workspace();
    // 50 creates exceed the mutating_light burst (40): lifted limits, as the limits are not the subject.
    const created = await unthrottled(async () => {
      const all = [];
      for (let i = 0; i < 50; i++) all.push(await create(ws));
      return all;
    });
    expect(created.filter((c) => !c.json?.data?.id).map((c) => c.status)).toEqual([]);
    const sessions: string[] = created.map((c) => c.json.data.id);
    // 100 hosted calls from one address: lifted limits, as this is about concurrent numbering.
    const [attempts, done] = await unthrottled(async () => {
      const a = await Promise.all(sessions.map((id) => page(id, '/attempt', { method: 'qris' })));
      return [a, await Promise.all(sessions.map((id) => page(id, '/simulate', { outcome: 'success' })))];
    });
    expect(attempts.filter((a) => a.status !== 200).map((a) => [a.status, a.text])).toEqual([]);
    expect(done.filter((d) => d.status !== 200).map((d) => [d.status, d.text])).toEqual([]);
    const { rows } = await db().system.query(`SELECT number FROM receipts WHERE "workspaceId" = $1 ORDER BY number`, [
      ws.workspaceId,
    ]);
    const seqs = rows.map((r) => Number(r.number.slice(-4)));
    expect(seqs).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });
});

describe('manual adapter: declare paid, merchant confirms', () => {
  it('configured manual wins over the sandbox; confirm completes; terminal states refuse with 409', async () => {
    const ws = await server.workspace();
    const put = await ws.client.put(
      '/v1/adapters/manual',
      {
        bankAccounts: [{ bankName: 'BCA', accountNumber: '1234567890', accountHolder: 'PT Kopi' }],
        instructions: 'Put the order id in the transfer note',
      },
      key(),
    );
    expect(put.status, put.text).toBe(200);
    const s = (await create(ws, { methods: ['va'] })).json.data;
    const a = await page(s.id, '/attempt', { method: 'va' });
    expect(a.json.data).toMatchObject({ canDeclarePaid: true, canSimulate: false });
    expect(a.json.data.lines.join('\n')).toContain('BCA 1234567890 (PT Kopi)');
    expectError(await ws.client.post(`/v1/checkout-sessions/${s.id}/confirm`, {}), 409, 'conflict'); // still open
    expect((await page(s.id, '/attempt/declare-paid', {})).json.data).toEqual({ status: 'pending_review' });
    const confirmed = await ws.client.post(`/v1/checkout-sessions/${s.id}/confirm`, {});
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.json.data).toMatchObject({ status: 'completed', adapter: 'manual' });
    expect((await ledgerOf(s.id)).balanced).toBe(true);
    expectError(await ws.client.post(`/v1/checkout-sessions/${s.id}/confirm`, {}), 409, 'conflict');
    expectError(await ws.client.post(`/v1/checkout-sessions/${s.id}/cancel`, {}, key()), 409, 'conflict');
  });

  it('20 concurrent confirms give one payment, one receipt, one event; the rest are 409', async () => {
    const ws = await server.workspace();
    await ws.client.put(
      '/v1/adapters/manual',
      { bankAccounts: [{ bankName: 'BNI', accountNumber: '987', accountHolder: 'PT Teh' }] },
      key(),
    );
    const s = (await create(ws, { methods: ['va'] })).json.data;
    await page(s.id, '/attempt', { method: 'va' });
    await page(s.id, '/attempt/declare-paid', {});
    const results = await Promise.all(
      Array.from({ length: 20 }, () => ws.client.post(`/v1/checkout-sessions/${s.id}/confirm`, {})),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(19).fill(409)]);
    const { rows } = await db().system.query(
      `SELECT (SELECT count(*) FROM payments WHERE "checkoutSessionId" = $1)::int AS payments, (SELECT count(*) FROM receipts WHERE "sourceId" = $1)::int AS receipts,
              (SELECT count(*) FROM events WHERE "objectId" = $1)::int AS events`,
      [s.id],
    );
    expect(rows[0]).toEqual({ payments: 1, receipts: 1, events: 1 });
  });
});

describe('cancel and expiry', () => {
  it('cancel needs an Idempotency-Key, emits nothing, and the page then refuses attempts', async () => {
    const ws = await server.workspace();
    const s = (await create(ws)).json.data;
    expect((await ws.client.post(`/v1/checkout-sessions/${s.id}/cancel`, {})).status).toBe(400);
    const canceled = await ws.client.post(`/v1/checkout-sessions/${s.id}/cancel`, {}, key());
    expect(canceled.json.data.status).toBe('canceled');
    expect((await ws.client.get(`/v1/events?objectId=${s.id}`)).json.data).toEqual([]);
    expectError(await page(s.id, '/attempt', { method: 'qris' }), 409, 'conflict');
    expect((await page(s.id, '')).text).toContain('Payment canceled');
  });

  it('the sweep expires sessions past expiresAt (moved clock), emits the event, and a late settlement is refused', async () => {
    const ws = await server.workspace();
    const s = (await create(ws, { expiresInSec: 300 })).json.data;
    await page(s.id, '/attempt', { method: 'qris' });
    // Signed API calls use the real time, so the clock moves only around the sweep and the page.
    clock.advance(301_000);
    try {
      expect((await page(s.id, '')).text).toContain('expired');
      expect(await expireDueSessions()).toBeGreaterThanOrEqual(1);
    } finally {
      clock.reset();
    }
    expect((await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data.status).toBe('expired');
    const types = (await ws.client.get(`/v1/events?objectId=${s.id}`)).json.data.map((e: any) => e.type);
    expect(types).toEqual(['svc.checkout_session.expired.v1']);
    expectError(await page(s.id, '/simulate', { outcome: 'success' }), 409, 'conflict');
    expect((await ws.client.get(`/v1/payments?checkoutSessionId=${s.id}`)).json.data).toEqual([]);
  });
});

describe('receipt documents and email', () => {
  it('pdf, html and escpos bytes for a completed session; email needs a recipient', async () => {
    const ws = await server.workspace();
    const s = (await create(ws)).json.data;
    await page(s.id, '/attempt', { method: 'qris' });
    await page(s.id, '/simulate', { outcome: 'success' });
    const receipt = (await ws.client.get(`/v1/checkout-sessions/${s.id}/receipt`)).json.data;
    const raw = async (path: string) => {
      const res = await ws.client.get(path);
      return res;
    };
    const pdf = await raw(`/v1/receipts/${receipt.receiptId}/receipt.pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    // The real bytes, read back: number, merchant, amounts.
    const target = `/v1/receipts/${receipt.receiptId}/receipt.pdf`;
    const bytes = new Uint8Array(
      await (
        await fetch(server.url + target, {
          headers: signRequest({ keyId: ws.keyId, secret: ws.secret, method: 'GET', target }),
        })
      ).arrayBuffer(),
    );
    expect(Buffer.from(bytes.subarray(0, 5)).toString()).toBe('%PDF-');
    const { text } = await extractText(bytes, { mergePages: true });
    expect(text).toContain(receipt.number);
    expect(text).toContain(receipt.merchant.name);
    expect(text).toContain('Rp 150.000');
    expect(text).toContain('Kopi susu');
    const html = await raw(`/v1/receipts/${receipt.receiptId}/receipt.html`);
    expect(html.headers.get('content-type')).toContain('text/html');
    expect(html.text).toContain(receipt.number);
    expect(html.text).toContain('Rp 150.000');
    const escpos = await raw(`/v1/receipts/${receipt.receiptId}/receipt.escpos?width=58`);
    expect(escpos.headers.get('content-type')).toBe('application/octet-stream');
    expect(escpos.text.charCodeAt(0)).toBe(0x1b);
    expect((await raw(`/v1/receipts/${receipt.receiptId}/receipt.escpos?width=70`)).status).toBe(400);
    expect((await raw(`/v1/receipts/rcpt_01M82PP879NVMT2NEX4PQNAEX2/receipt.pdf`)).status).toBe(404);
    const noRecipient = await ws.client.post(`/v1/receipts/${receipt.receiptId}/email`, {});
    expect(noRecipient.status, noRecipient.text).toBe(409);
    expect(noRecipient.json.error.code).toBe('no_recipient');
  });
});

describe('POST /v1/receipts/:id/email over a real SMTP server', () => {
  it('sends the PDF to the customer by default, then records emailedAt and emailedTo', async () => {
    const smtp = await startSmtp();
    const { received } = smtp;
    const previous = config.smtpUrl;
    config.smtpUrl = smtp.url;
    try {
      const ws = await server.workspace();
      // Test mode mails joined members only: this customer is the owner's address.
      const { rows } = await db().system.query(
        `SELECT email FROM members WHERE "workspaceId" = $1 AND role = 'owner'`,
        [ws.workspaceId],
      );
      const owner = rows[0].email as string;
      const customer = (await ws.client.post('/v1/customers', { name: 'Budi', email: owner })).json.data;
      const s = (await create(ws, { customerId: customer.id })).json.data;
      await page(s.id, '/attempt', { method: 'qris' });
      await page(s.id, '/simulate', { outcome: 'success' });
      const receipt = (await ws.client.get(`/v1/checkout-sessions/${s.id}/receipt`)).json.data;
      const sent = await ws.client.post(`/v1/receipts/${receipt.receiptId}/email`, {});
      expect(sent.status, sent.text).toBe(200);
      expect(sent.json.data).toEqual({ sent: true, to: owner });
      expect(received.at(-1)!.rcpt).toEqual([owner]);
      const pdf = leaves(parseMime(received.at(-1)!.raw)).find((p) =>
        (p.headers['content-type'] ?? '').includes('application/pdf'),
      );
      expect(pdf?.body.subarray(0, 5).toString()).toBe('%PDF-');
      const summary = (await ws.client.get('/v1/receipts')).json.data.find((r: any) => r.id === receipt.receiptId);
      expect(summary.emailedTo).toBe(owner);
      expect(Date.parse(summary.emailedAt)).not.toBeNaN();

      // test mode: no arbitrary recipients, not even businessEmail (the merchant types it): joined members only
      await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, { businessEmail: 'billing@elsewhere.example' });
      const count = received.length;
      for (const to of ['victim@elsewhere.example', 'billing@elsewhere.example']) {
        const stranger = await ws.client.post(`/v1/receipts/${receipt.receiptId}/email`, { to });
        expect(stranger.status, stranger.text).toBe(400);
        expect(stranger.json.error).toMatchObject({ code: 'validation_error', field: 'to' });
      }
      expect(received.length).toBe(count);
      const toOwner = await ws.client.post(`/v1/receipts/${receipt.receiptId}/email`, { to: owner.toUpperCase() });
      expect(toOwner.status, toOwner.text).toBe(200);
      expect(received.at(-1)!.rcpt.map((r) => r.toLowerCase())).toEqual([owner]);

      // A customer whose email the merchant typed (anyone's): kept in the development outbox, not sent.
      const other = (await ws.client.post('/v1/customers', { name: 'Victim', email: 'victim@elsewhere.example' })).json
        .data;
      const s2 = (await create(ws, { customerId: other.id })).json.data;
      await page(s2.id, '/attempt', { method: 'qris' });
      await page(s2.id, '/simulate', { outcome: 'success' });
      const r2 = (await ws.client.get(`/v1/checkout-sessions/${s2.id}/receipt`)).json.data;
      const kept = await ws.client.post(`/v1/receipts/${r2.receiptId}/email`, {});
      expect(kept.status, kept.text).toBe(200);
      expect(kept.json.data).toEqual({ sent: false, to: 'victim@elsewhere.example' });
      expect(received.length).toBe(count + 1);
    } finally {
      config.smtpUrl = previous;
      await smtp.close();
    }
  });
});
