// The hosted invoice page (src/modules/checkout-sessions/invoice-page.ts): in Chromium like the checkout page, a
// customer opens the invoice's link, pays it through the checkout page's sandbox and lands back on
// the invoice, now paid: one payment, one receipt (`sourceType: invoice`), balanced ledger, the
// paid event. Then the race between the page's payment and POST /v1/invoices/:id/pay.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { extractText } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../src/core/clock.ts';
import { config } from '../../src/core/config.ts';
import { unbalancedTxIds, unthrottled, invoiceWithBalanceApplied } from '../helpers/payments.ts';
import { db, useServer, type Workspace } from '../helpers/server.ts';
import { haveChromium, OUT, useBrowser } from '../helpers/browser.ts';

const server = useServer();
const browsers = useBrowser('the hosted invoice page browser test');
const previousBase = config.hostedBaseUrl;
beforeAll(() => {
  // Links the API hands out (hostedInvoiceUrl, the session's successUrl) point at this test server.
  config.hostedBaseUrl = server.url;
});
afterAll(() => {
  config.hostedBaseUrl = previousBase;
});

async function openInvoice(ws: Workspace, status: 'open' | 'draft' = 'open') {
  const cus = (await ws.client.post('/v1/customers', { name: 'Budi', email: 'budi@example.com' })).json.data.id;
  const res = await ws.client.post('/v1/invoices', {
    customerId: cus,
    currency: 'IDR',
    status,
    tax: 11_000,
    lines: [
      { description: 'Sewa alat <b>pesta</b>', quantity: 2, unitAmount: 50_000 },
      { description: 'Ongkos kirim', quantity: 1, unitAmount: 15_000 },
    ],
  });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data;
}

const tokenOf = (url: string) => new URL(url).pathname.split('/').pop()!;

/** What paying left behind, from the database: payments, receipts and the invoice's status. */
async function paidState(invoiceId: string) {
  const q = (text: string) =>
    db()
      .system.query(text, [invoiceId])
      .then((r) => r.rows);
  return {
    payments: await q(`SELECT id, "checkoutSessionId", adapter FROM payments WHERE "invoiceId" = $1`),
    receipts: await q(`SELECT id, "sourceType", "paymentId" FROM receipts WHERE "sourceId" = $1`),
    sessionReceipts: await q(
      `SELECT r.id FROM receipts r JOIN checkout_sessions s ON s.id = r."sourceId" WHERE s."invoiceId" = $1`,
    ),
    status: (await q(`SELECT status FROM invoices WHERE id = $1`))[0].status as string,
  };
}

describe.skipIf(!haveChromium)('hosted invoice page in Chromium', () => {
  it('open the link, pay with QRIS in the sandbox, land on the paid invoice (390 px wide)', async ({ annotate }) => {
    const ws = await server.workspace();
    const inv = await openInvoice(ws);
    expect(inv.hostedInvoiceUrl).toMatch(new RegExp(`^${server.url}/i/${inv.id}_[0-9a-f]{40}$`));
    // An Indonesian browser (the page follows the browser's language: docs/decisions.md, Customer language).
    const context = await browsers.browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      locale: 'id-ID',
    });
    const page = await context.newPage();
    const res = await page.goto(inv.hostedInvoiceUrl);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['cache-control']).toBe('no-store');
    expect(await page.locator('.doc .kind').textContent()).toBe('Faktur');
    // User text is shown as text, never as markup.
    expect(await page.locator('td.name').first().textContent()).toBe('Sewa alat <b>pesta</b>');
    expect(await page.locator('#pay').textContent()).toBe('Bayar online Rp 126.000');
    mkdirSync(OUT, { recursive: true });
    const shot = join(OUT, 'hosted-invoice-390.png');
    await page.screenshot({ path: shot, fullPage: true });
    await annotate('hosted invoice page at 390 px', { path: shot });

    await Promise.all([page.waitForURL(/\/c\/cs_/), page.click('#pay')]);
    await expect(page.locator('[data-amount]').textContent()).resolves.toBe('Rp 126.000');
    await page.click('button[data-method="qris"]');
    await page.locator('img.qr').waitFor();
    await Promise.all([page.waitForURL(/\/i\/inv_.*session_id=/), page.click('#simulate-success')]);
    expect(await page.locator('.stamp').textContent()).toBe('LUNAS');
    expect(await page.locator('#pay').count()).toBe(0);
    await context.close();

    const after = (await ws.client.get(`/v1/invoices/${inv.id}`)).json.data;
    expect(after).toMatchObject({ status: 'paid', amountPaid: 126_000, amountDue: 0 });
    const state = await paidState(inv.id);
    expect(state.payments).toHaveLength(1);
    expect(state.payments[0].checkoutSessionId).toMatch(/^cs_/);
    expect(state.receipts).toEqual([
      { id: expect.any(String), sourceType: 'invoice', paymentId: state.payments[0].id },
    ]);
    expect(state.sessionReceipts).toEqual([]);
    // The session's receipt is the invoice's, found through the payment.
    const sessionReceipt = await ws.client.get(`/v1/checkout-sessions/${state.payments[0].checkoutSessionId}/receipt`);
    expect(sessionReceipt.json.data).toMatchObject({ sourceType: 'invoice', sourceId: inv.id, total: 126_000 });
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
    const ledger = await db().system.query(
      `SELECT code, direction, amount::int AS amount FROM ledger_entries WHERE "sourceId" = $1 ORDER BY code, direction`,
      [inv.id],
    );
    expect(ledger.rows.find((r) => r.code.startsWith('settlement:') && r.direction === 'debit')?.amount).toBe(126_000);
    const events = (await ws.client.get(`/v1/events?objectId=${inv.id}&order=asc`)).json.data.map((e: any) => e.type);
    expect(events).toContain('svc.invoice.paid.v1');
  });
});

describe.skipIf(!haveChromium)('hosted invoice page totals and PDF in Chromium', () => {
  it('shows the balance applied among rows that add up; Download PDF opens the same invoice as a PDF', async () => {
    const ws = await server.workspace();
    const inv = await invoiceWithBalanceApplied(ws);

    const context = await browsers.browser.newContext({ locale: 'en-US' });
    try {
      const page = await context.newPage();
      expect((await page.goto(inv.hostedInvoiceUrl))?.status()).toBe(200);
      const rows = await page
        .locator('table.totals tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim()).join(' ')),
        );
      expect(rows).toEqual([
        'Subtotal Rp 100.000',
        'PPN Rp 20.000',
        'Total Rp 120.000',
        'Balance applied -Rp 30.000',
        'Amount paid Rp 0',
        'Amount due Rp 90.000',
      ]);
      expect(await page.locator('#pay').textContent()).toBe('Pay online Rp 90.000');

      const link = page.locator('#download-pdf');
      expect(await link.textContent()).toBe('Download PDF');
      // Followed as a click: the page's link, then the signed PDF URL it is sent to (Chromium shows the PDF).
      const [response] = await Promise.all([
        page.waitForResponse((r) => new URL(r.url()).pathname === `/f/${inv.id}.pdf`),
        link.click(),
      ]);
      expect(response.status()).toBe(200);
      expect(response.headers()['content-type']).toBe('application/pdf');
      // Chromium hands its PDF viewer's page to response.body(): the bytes are read again from the URL it opened.
      const pdf = Buffer.from(await (await fetch(response.url())).arrayBuffer());
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
      const { text } = await extractText(new Uint8Array(pdf), { mergePages: true });
      // The PDF is in the workspace's language (docs/decisions.md, Customer language).
      expect(text.replace(/\s+/g, ' ')).toContain(
        'Total Rp 120.000 Dibayar dari saldo -Rp 30.000 Sudah dibayar Rp 0 Sisa tagihan Rp 90.000',
      );
      expect(text).toContain(inv.number);
    } finally {
      await context.close();
    }
    // The link is the page's token: a wrong secret is 404 like the page, and no signed URL is handed out.
    const token = tokenOf(inv.hostedInvoiceUrl);
    const wrong = await fetch(`${server.url}/i/${token.slice(0, -1)}${token.endsWith('0') ? '1' : '0'}/pdf`, {
      redirect: 'manual',
    });
    expect(wrong.status).toBe(404);
    expect(wrong.headers.get('location')).toBeNull();
  });
});

describe('hosted invoice page over HTTP', () => {
  it('drafts, wrong secrets and bare ids are 404; Pay reuses the one live session, replaces an expired one', async () => {
    const ws = await server.workspace();
    const draft = await openInvoice(ws, 'draft');
    expect(draft.hostedInvoiceUrl).toBeNull();
    const { rows } = await db().system.query(`SELECT "hostedSecret" FROM invoices WHERE id = $1`, [draft.id]);
    expect((await fetch(`${server.url}/i/${draft.id}_${rows[0].hostedSecret}`)).status).toBe(404);

    const inv = await openInvoice(ws);
    const token = tokenOf(inv.hostedInvoiceUrl);
    expect((await fetch(`${server.url}/i/${inv.id}`)).status).toBe(404);
    expect((await fetch(`${server.url}/i/${inv.id}_${'0'.repeat(40)}`)).status).toBe(404);
    const page = await fetch(`${server.url}/i/${token}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self'");

    const pay = () => fetch(`${server.url}/i/${token}/pay`, { method: 'POST', redirect: 'manual' });
    const first = await pay();
    expect(first.status).toBe(303);
    const location = first.headers.get('location')!;
    expect(location).toMatch(/^\/c\/cs_[0-9A-Z]{26}_[0-9a-f]{40}$/);
    expect((await pay()).headers.get('location')).toBe(location);
    const session = (
      await ws.client.get(`/v1/checkout-sessions/${location.split('/')[2].split('_').slice(0, 2).join('_')}`)
    ).json.data;
    expect(session).toMatchObject({ amount: 126_000, currency: 'IDR', status: 'open' });
    // The database itself holds one live session per invoice (partial unique index).
    await expect(
      db().system.query(
        `INSERT INTO checkout_sessions (id, "workspaceId", mode, status, amount, currency, methods, "successUrl",
           "cancelUrl", "expiresAt", "invoiceId")
         SELECT 'cs_01JCKZ3V6Q8Y2X4W5T7R9P0M1N', "workspaceId", mode, 'pending', amount, currency, methods,
           "successUrl", "cancelUrl", "expiresAt", "invoiceId" FROM checkout_sessions WHERE id = $1`,
        [session.id],
      ),
    ).rejects.toMatchObject({ code: '23505' });

    clock.advance(25 * 3600 * 1000);
    try {
      const renewed = (await pay()).headers.get('location');
      expect(renewed).not.toBe(location);
      const live = await db().system.query(
        `SELECT status FROM checkout_sessions WHERE "invoiceId" = $1 ORDER BY "createdAt"`,
        [inv.id],
      );
      expect(live.rows.map((r) => r.status)).toEqual(['expired', 'open']);
    } finally {
      clock.reset();
    }
  });

  it('either order: the second payer gets 409 and writes nothing', async () => {
    const ws = await server.workspace();
    const start = async () => {
      const inv = await openInvoice(ws);
      const cs = (
        await fetch(`${server.url}/i/${tokenOf(inv.hostedInvoiceUrl)}/pay`, { method: 'POST', redirect: 'manual' })
      ).headers.get('location')!;
      const call = (path: string, body: unknown) =>
        fetch(`${server.url}${cs}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect((await call('/attempt', { method: 'qris' })).status).toBe(200);
      const apiPay = () => ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, { 'idempotency-key': randomUUID() });
      return { inv, cs, call, apiPay };
    };
    // POST /pay first: the page's payment is refused, its session stays unpaid.
    const a = await start();
    expect((await a.apiPay()).status).toBe(201);
    const late = await a.call('/simulate', { outcome: 'success' });
    expect(late.status).toBe(409);
    expect((await late.json()).error.code).toBe('conflict');
    // Nor can a new attempt ask the customer for money any more.
    const again = await a.call('/attempt', { method: 'va' });
    expect(again.status).toBe(409);
    expect((await again.json()).error.code).toBe('conflict');
    const stateA = await paidState(a.inv.id);
    expect(stateA.payments).toHaveLength(1);
    expect(stateA.payments[0].checkoutSessionId).toBeNull();
    expect(stateA.receipts).toHaveLength(1);
    // The page first: POST /pay is 409 conflict.
    const b = await start();
    expect((await b.call('/simulate', { outcome: 'success' })).status).toBe(200);
    const second = await b.apiPay();
    expect(second.status).toBe(409);
    expect(second.json.error.code).toBe('conflict');
    const stateB = await paidState(b.inv.id);
    expect(stateB.payments).toHaveLength(1);
    expect(stateB.payments[0].checkoutSessionId).toMatch(/^cs_/);
    expect(stateB.receipts).toHaveLength(1);
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
  });

  it('race: the hosted page pays while POST /v1/invoices/:id/pay runs: exactly one payment, one receipt', async () => {
    const ws = await server.workspace();
    await unthrottled(async () => {
      const outcomes: string[] = [];
      for (let round = 0; round < 8; round++) {
        const inv = await openInvoice(ws);
        const token = tokenOf(inv.hostedInvoiceUrl);
        const cs = (await fetch(`${server.url}/i/${token}/pay`, { method: 'POST', redirect: 'manual' })).headers.get(
          'location',
        )!;
        const call = (path: string, body: unknown) =>
          fetch(`${server.url}${cs}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
        expect((await call('/attempt', { method: 'qris' })).status).toBe(200);
        const [hosted, api] = await Promise.all([
          call('/simulate', { outcome: 'success' }),
          ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, { 'idempotency-key': randomUUID() }),
        ]);
        const statuses = [hosted.status, api.status].sort();
        expect([
          [200, 409],
          [201, 409],
        ]).toContainEqual(statuses);
        outcomes.push(hosted.status === 200 ? 'hosted' : 'api');
        const state = await paidState(inv.id);
        expect(state.status).toBe('paid');
        expect(state.payments).toHaveLength(1);
        expect(state.receipts).toHaveLength(1);
        expect(state.receipts[0].paymentId).toBe(state.payments[0].id);
        expect(state.sessionReceipts).toEqual([]);
      }
      expect(outcomes).toHaveLength(8);
    });
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
  });
});
