// An invoice's documents over real HTTP: invoice.pdf|html|escpos, the 302 to a signed PDF URL that
// expires with the injected clock, and send-email (development outbox, a real SMTP server, a
// refusing one), each send in the audit trail.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractText } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../../src/core/auth/signing.ts';
import { clock } from '../../../src/core/clock.ts';
import { config } from '../../../src/core/config.ts';
import { leaves, parseMime } from '../../helpers/mime.ts';
import { invoiceWithBalanceApplied } from '../../helpers/payments.ts';
import { db, useServer, type Workspace } from '../../helpers/server.ts';
import { startSmtp } from '../../helpers/smtp.ts';

const server = useServer();

let outbox: string;
const previous = { outbox: config.mailOutboxDir, smtp: config.smtpUrl };
beforeAll(() => {
  outbox = mkdtempSync(join(tmpdir(), 'svc-outbox-'));
  config.mailOutboxDir = outbox;
  config.smtpUrl = undefined;
});
afterAll(() => {
  config.mailOutboxDir = previous.outbox;
  config.smtpUrl = previous.smtp;
  rmSync(outbox, { recursive: true, force: true });
});

async function openInvoice(
  ws: Workspace,
  customer: Record<string, unknown> = { name: 'Budi', email: 'budi@example.com' },
) {
  const cus = (await ws.client.post('/v1/customers', customer)).json.data.id;
  const res = await ws.client.post('/v1/invoices', {
    customerId: cus,
    currency: 'IDR',
    status: 'open',
    discount: 10_000,
    tax: 11_000,
    memo: 'Terima kasih atas kerja samanya',
    lines: [
      { description: 'Konsultasi', quantity: 2, unitAmount: 50_000 },
      { description: 'Café & kue', quantity: 1, unitAmount: 25_000 },
    ],
  });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data;
}

/** A signed GET answered as it is (bytes, no redirect followed). */
async function signedGet(ws: Workspace, target: string) {
  const res = await fetch(server.url + target, {
    headers: signRequest({ keyId: ws.keyId, secret: ws.secret, method: 'GET', target }),
    redirect: 'manual',
  });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

const auditActions = async (id: string) =>
  (await db().system.query(`SELECT action FROM audit_log WHERE "targetId" = $1 ORDER BY at, id`, [id])).rows.map(
    (r) => r.action,
  );

describe('invoice documents', () => {
  it('invoice.pdf is a real PDF of the invoice; html and escpos (58 and 80 mm); 400 on width; 404', async () => {
    const ws = await server.workspace();
    const inv = await openInvoice(ws);
    const pdf = await signedGet(ws, `/v1/invoices/${inv.id}/invoice.pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.body.subarray(0, 5).toString()).toBe('%PDF-');
    const { text } = await extractText(new Uint8Array(pdf.body), { mergePages: true });
    const flat = text.replace(/\s+/g, ' ');
    for (const s of [inv.number, 'FAKTUR', 'Konsultasi', 'Café & kue', 'Rp 126.000', 'Diskon', 'Budi'])
      expect(flat).toContain(s);

    const html = await ws.client.get(`/v1/invoices/${inv.id}/invoice.html`);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html.text).toContain(inv.number);
    expect(html.text).toContain(`href="${inv.hostedInvoiceUrl}"`);

    const e80 = await signedGet(ws, `/v1/invoices/${inv.id}/invoice.escpos?width=80`);
    const e58 = await signedGet(ws, `/v1/invoices/${inv.id}/invoice.escpos?width=58`);
    expect(e80.status).toBe(200);
    expect(e80.headers.get('content-type')).toBe('application/octet-stream');
    expect(e80.body.subarray(0, 2)).toEqual(Buffer.from([0x1b, 0x40]));
    expect(e58.body.equals(e80.body)).toBe(false);
    const bad = await ws.client.get(`/v1/invoices/${inv.id}/invoice.escpos?width=57`);
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'width' });
    const missing = await ws.client.get('/v1/invoices/inv_01JCKZ3V6Q8Y2X4W5T7R9P0M1N/invoice.pdf');
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe('not_found');

    const other = await server.workspace();
    expect((await other.client.get(`/v1/invoices/${inv.id}/invoice.html`)).status).toBe(404);
  });

  it('the template of kind invoice drives the rendering: its own, else the default, never a receipt one', async () => {
    const ws = await server.workspace();
    const tpl = (body: Record<string, unknown>) => ws.client.post('/v1/templates', body).then((r) => r.json.data.id);
    await tpl({ kind: 'receipt', name: 'R', isDefault: true, footerText: 'RECEIPT FOOTER' });
    await tpl({ kind: 'invoice', name: 'Default', isDefault: true, footerText: 'Default invoice footer' });
    const own = await tpl({
      kind: 'invoice',
      name: 'Own',
      footerText: 'Rekening BCA 123',
      accentColor: '#1d4ed8',
      merchantTaxId: '09.876.543.2-109.000',
    });
    const cus = (await ws.client.post('/v1/customers', { name: 'Budi' })).json.data.id;
    const body = { customerId: cus, currency: 'IDR', lines: [{ description: 'Jasa', quantity: 1, unitAmount: 1000 }] };
    const withOwn = (await ws.client.post('/v1/invoices', { ...body, templateId: own })).json.data;
    const html = (await ws.client.get(`/v1/invoices/${withOwn.id}/invoice.html`)).text;
    expect(html).toContain('Rekening BCA 123');
    expect(html).toContain('--accent:#1d4ed8');
    expect(html).toContain('09.876.543.2-109.000');
    expect(html).not.toContain('RECEIPT FOOTER');
    const plain = (await ws.client.post('/v1/invoices', body)).json.data;
    const other = (await ws.client.get(`/v1/invoices/${plain.id}/invoice.html`)).text;
    expect(other).toContain('Default invoice footer');
    // A draft: its id stands in for the number it does not have yet, and it says DRAF(T).
    expect(other).toContain(plain.id);
    expect(other).toContain('<div class="stamp">DRAF</div>');
  });

  it('GET /pdf: 302 to a signed URL that serves the PDF without a key for about 5 minutes', async () => {
    const ws = await server.workspace();
    const inv = await openInvoice(ws);
    const res = await signedGet(ws, `/v1/invoices/${inv.id}/pdf`);
    expect(res.status).toBe(302);
    const location = res.headers.get('location')!;
    expect(location).toMatch(new RegExp(`/f/${inv.id}\\.pdf\\?w=.+&m=test&e=\\d+&s=[A-Za-z0-9_-]{43}$`));
    const url = new URL(location);
    const local = `${server.url}${url.pathname}${url.search}`;
    const doc = await fetch(local);
    expect(doc.status).toBe(200);
    expect(doc.headers.get('content-type')).toBe('application/pdf');
    expect(
      Buffer.from(await doc.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');

    // Tampered: another invoice id, another workspace, a changed expiry: 403 before any lookup.
    const other = await openInvoice(ws);
    expect((await fetch(local.replace(inv.id, other.id))).status).toBe(403);
    expect((await fetch(local.replace(/e=(\d+)/, (_, e) => `e=${Number(e) + 600}`))).status).toBe(403);
    expect((await fetch(`${server.url}/f/${inv.id}.pdf`)).status).toBe(403);
    const forged = await fetch(local.replace(/w=[^&]+/, `w=${(await server.workspace()).workspaceId}`));
    expect(forged.status).toBe(403);
    expect((await forged.json()).error.code).toBe('invalid_link');

    clock.advance(301_000);
    try {
      expect((await fetch(local)).status).toBe(403);
    } finally {
      clock.reset();
    }
    expect((await ws.client.get('/v1/invoices/inv_01JCKZ3V6Q8Y2X4W5T7R9P0M1N/pdf')).status).toBe(404);

    const gql = await ws.client.graphql(`{ invoice(id: "${inv.id}") { pdfUrl } }`);
    expect(gql.json.data.invoice.pdfUrl).toMatch(/\/f\/inv_.+\.pdf\?/);
  });
});

describe('the totals of an invoice paid partly from the customer balance', () => {
  it('PDF, email, portal and receipt show the balance applied; the rows add up to what is paid', async () => {
    const ws = await server.workspace();
    const inv = await invoiceWithBalanceApplied(ws);
    const paid = await ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, { 'idempotency-key': randomUUID() });
    expect(paid.json.data).toMatchObject({ status: 'paid', amountPaid: 90_000, amountDue: 0 });

    // Total 120.000 - balance applied 30.000 - amount paid 90.000 = amount due 0.
    const pdf = await signedGet(ws, `/v1/invoices/${inv.id}/invoice.pdf`);
    const { text } = await extractText(new Uint8Array(pdf.body), { mergePages: true });
    expect(text.replace(/\s+/g, ' ')).toContain(
      'Total Rp 120.000 Dibayar dari saldo -Rp 30.000 Sudah dibayar Rp 90.000 Sisa tagihan Rp 0',
    );

    const sent = await ws.client.post(`/v1/invoices/${inv.id}/send-email`, {});
    expect(sent.json.data).toEqual({ sent: false, to: 'budi@example.com' });
    const [file] = readdirSync(outbox).filter((f) => f.includes(inv.id));
    const parts = leaves(parseMime(readFileSync(join(outbox, file), 'utf8')));
    const html = parts.find((p) => (p.headers['content-type'] ?? '').startsWith('text/html'))!.body.toString();
    expect(html).toMatch(/Dibayar dari saldo<\/td>\s*<td[^>]*>-Rp 30\.000<\/td>/);
    const plain = parts.find((p) => (p.headers['content-type'] ?? '').startsWith('text/plain'))!.body.toString();
    expect(plain).toMatch(/Total +Rp 120\.000\nDibayar dari saldo +-Rp 30\.000\nSudah dibayar +Rp 90\.000/i);

    // The portal lists it under the invoice.
    const ps = (
      await ws.client.post('/v1/portal-sessions', { customerId: inv.customerId, returnUrl: 'https://shop.example' })
    ).json.data;
    const portal = new URL(ps.url);
    const state = await fetch(`${server.url}/portal/${portal.pathname.split('/')[2]}/api/state`, {
      headers: { 'x-portal-token': portal.hash.slice('#t='.length) },
    }).then((r) => r.json());
    expect(state.data.invoices.find((i: { id: string }) => i.id === inv.id)).toMatchObject({
      total: 'Rp 120.000',
      balanceApplied: 'Rp 30.000',
    });

    // The receipt is for the 90.000 paid: its lines add up to it, the balance shown as one.
    const { rows } = await db().system.query(
      `SELECT total::int, "taxAmount"::int AS tax, subtotal::int, "lineItems" FROM receipts WHERE "sourceId" = $1`,
      [inv.id],
    );
    expect(rows).toEqual([
      {
        total: 90_000,
        tax: 20_000,
        subtotal: 70_000,
        lineItems: [
          { name: 'Konsultasi', qty: 1, unitPrice: 100_000, subtotal: 100_000 },
          { name: 'Balance applied', qty: 1, unitPrice: -30_000, subtotal: -30_000 },
        ],
      },
    ]);
  });
});

describe('POST /v1/invoices/:id/send-email', () => {
  it('without a mail server: 200 {sent: false}, the message kept in the outbox, audited', async () => {
    const ws = await server.workspace();
    const inv = await openInvoice(ws);
    const res = await ws.client.post(`/v1/invoices/${inv.id}/send-email`, {});
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data).toEqual({ sent: false, to: 'budi@example.com' });
    const files = readdirSync(outbox).filter((f) => f.includes(inv.id));
    expect(files).toHaveLength(1);
    const mail = parseMime(readFileSync(join(outbox, files[0]), 'utf8'));
    expect(mail.headers.to).toBe('budi@example.com');
    expect(mail.headers.subject).toContain(inv.number);
    const pdf = leaves(mail).find((p) => (p.headers['content-type'] ?? '').includes('application/pdf'));
    expect(pdf?.body.subarray(0, 5).toString()).toBe('%PDF-');
    // `to` wins over the customer's email; without either: 409 no_recipient; a list is refused.
    const to = await ws.client.post(`/v1/invoices/${inv.id}/send-email`, { to: 'finance@example.com' });
    expect(to.json.data).toEqual({ sent: false, to: 'finance@example.com' });
    const bad = await ws.client.post(`/v1/invoices/${inv.id}/send-email`, { to: 'a@b.example, c@d.example' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'to' });
    const anonymous = await openInvoice(ws, { name: 'No email' });
    const none = await ws.client.post(`/v1/invoices/${anonymous.id}/send-email`, {});
    expect(none.status).toBe(409);
    expect(none.json.error.code).toBe('no_recipient');
    expect((await ws.client.post('/v1/invoices/inv_01JCKZ3V6Q8Y2X4W5T7R9P0M1N/send-email', {})).status).toBe(404);
    expect(await auditActions(inv.id)).toEqual(['invoice.email_kept', 'invoice.email_kept']);
  });

  it('over a real SMTP server: sent true with the PDF attached; 502 when the server refuses', async () => {
    const smtp = await startSmtp();
    config.smtpUrl = smtp.url;
    try {
      const ws = await server.workspace();
      // Test mode mails joined members only: a customer the merchant typed in is kept in the outbox ...
      const typed = await openInvoice(ws);
      const kept = await ws.client.post(`/v1/invoices/${typed.id}/send-email`, {});
      expect(kept.json.data).toEqual({ sent: false, to: 'budi@example.com' });
      expect(smtp.received).toHaveLength(0);
      const explicit = await ws.client.post(`/v1/invoices/${typed.id}/send-email`, { to: 'budi@example.com' });
      expect({ status: explicit.status, code: explicit.json.error?.code?.toLowerCase() }).toEqual({
        status: 400,
        code: 'validation_error',
      });
      // ... and the owner's address is sent.
      const inv = await openInvoice(ws, { name: 'Owner', email: 'owner@example.com' });
      const res = await ws.client.post(`/v1/invoices/${inv.id}/send-email`, {});
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      expect(res.json.data).toEqual({ sent: true, to: 'owner@example.com' });
      expect(smtp.received.at(-1)!.rcpt).toEqual(['owner@example.com']);
      const pdf = leaves(parseMime(smtp.received.at(-1)!.raw)).find((p) =>
        (p.headers['content-type'] ?? '').includes('application/pdf'),
      );
      expect(pdf?.body.subarray(0, 5).toString()).toBe('%PDF-');
      config.smtpUrl = 'smtp://127.0.0.1:1';
      const refused = await ws.client.post(`/v1/invoices/${inv.id}/send-email`, {});
      expect(refused.status).toBe(502);
      expect(refused.json.error.code).toBe('email_failed');
      expect(await auditActions(inv.id)).toEqual(['invoice.email_sent', 'invoice.email_failed']);
    } finally {
      config.smtpUrl = undefined;
      await smtp.close();
    }
  });
});
