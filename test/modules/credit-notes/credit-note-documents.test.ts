// A credit note's documents over real HTTP: credit-note.pdf|html|escpos through the invoice pipeline.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractText } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../../src/core/auth/signing.ts';
import { config } from '../../../src/core/config.ts';
import { useServer, type Workspace } from '../../helpers/server.ts';

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
const key = () => ({ 'idempotency-key': randomUUID() });

async function signedGet(ws: Workspace, target: string) {
  const res = await fetch(server.url + target, {
    headers: signRequest({ keyId: ws.keyId, secret: ws.secret, method: 'GET', target }),
    redirect: 'manual',
  });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

describe('credit note documents', () => {
  it('pdf, html and escpos show the note, its invoice, the reversed tax and the outcome; VOID once voided', async () => {
    const ws = await server.workspace();
    const cus = (await ws.client.post('/v1/customers', { name: 'Budi', email: 'budi@example.com' })).json.data.id;
    const inv = (
      await ws.client.post('/v1/invoices', {
        customerId: cus,
        currency: 'IDR',
        status: 'open',
        tax: 11_000,
        lines: [{ description: 'Konsultasi', quantity: 2, unitAmount: 50_000 }],
      })
    ).json.data;
    await ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, key());
    const note = (
      await ws.client.post(
        '/v1/credit-notes',
        { invoiceId: inv.id, lines: [{ invoiceLineId: inv.lines[0].id, quantity: 1 }], memo: 'Satu sesi batal' },
        key(),
      )
    ).json.data;
    expect(note.total).toBe(55_500);

    const pdf = await signedGet(ws, `/v1/credit-notes/${note.id}/credit-note.pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const { text } = await extractText(new Uint8Array(pdf.body), { mergePages: true });
    const flat = text.replace(/\s+/g, ' ');
    for (const s of [
      note.number,
      'NOTA KREDIT',
      inv.number,
      'Konsultasi',
      'PPN dikembalikan',
      'Rp 55.500',
      'Dikreditkan ke saldo',
      'Budi',
    ])
      expect(flat.toUpperCase()).toContain(s.toUpperCase());

    const html = await ws.client.get(`/v1/credit-notes/${note.id}/credit-note.html`);
    expect(html.status).toBe(200);
    expect(html.text).toContain(note.number);
    expect(html.text).toContain('Nota Kredit');
    expect(html.text).toContain('Satu sesi batal');

    const e58 = await signedGet(ws, `/v1/credit-notes/${note.id}/credit-note.escpos?width=58`);
    expect(e58.status).toBe(200);
    expect(e58.body.subarray(0, 2)).toEqual(Buffer.from([0x1b, 0x40]));
    expect(e58.body.toString('latin1')).toContain(note.number);
    const bad = await ws.client.get(`/v1/credit-notes/${note.id}/credit-note.escpos?width=57`);
    expect(bad.json.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'width' });

    // The invoice's own documents and its hosted page list the note.
    const invHtml = await ws.client.get(`/v1/invoices/${inv.id}/invoice.html`);
    expect(invHtml.text).toContain(`Nota kredit ${note.number}`);
    const hostedUrl = new URL(inv.hostedInvoiceUrl);
    const page = await fetch(server.url + hostedUrl.pathname);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`Nota kredit ${note.number}`);

    // The portal lists it under its invoice.
    const ps = (await ws.client.post('/v1/portal-sessions', { customerId: cus, returnUrl: 'https://shop.example' }))
      .json.data;
    const u0 = new URL(ps.url);
    const state = await fetch(`${server.url}/portal/${u0.pathname.split('/')[2]}/api/state`, {
      headers: { 'x-portal-token': u0.hash.slice('#t='.length) },
    }).then((r) => r.json());
    const listed = state.data.invoices.find((i: any) => i.id === inv.id);
    expect(listed.creditNotes).toEqual([{ number: note.number, total: expect.stringContaining('55.500') }]);

    // The 302 to a signed PDF URL, public and for this note only; GraphQL pdfUrl likewise.
    const link = await signedGet(ws, `/v1/credit-notes/${note.id}/pdf`);
    expect(link.status).toBe(302);
    const location = link.headers.get('location')!;
    expect(location).toContain(`/f/${note.id}.pdf?`);
    const u = new URL(location, server.url);
    const local = server.url + u.pathname + u.search;
    const signed = await fetch(local);
    expect(signed.status).toBe(200);
    expect(
      Buffer.from(await signed.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    // Another last character (an id may end in X already: the same URL would then be the signed one).
    const last = note.id.endsWith('X') ? 'Y' : 'X';
    const tampered = await fetch(local.replace(note.id, `${note.id.slice(0, -1)}${last}`));
    expect(tampered.status).toBeGreaterThanOrEqual(400);
    const gql = await ws.client.post('/graphql', {
      query: `query($id: ID!) { creditNote(id: $id) { pdfUrl } }`,
      variables: { id: note.id },
    });
    expect(gql.json.data.creditNote.pdfUrl).toContain(`/f/${note.id}.pdf?`);

    // send-email without SMTP: kept in the development outbox, {sent: false, to}.
    const sent = await ws.client.post(`/v1/credit-notes/${note.id}/send-email`, {}, key());
    expect(sent.status, JSON.stringify(sent.json)).toBe(200);
    expect(sent.json.data).toEqual({ sent: false, to: 'budi@example.com' });
    const kept = readdirSync(outbox).map((f) => readFileSync(join(outbox, f), 'utf8'));
    expect(kept.some((m) => m.includes(`Nota kredit ${note.number}`))).toBe(true);

    expect((await ws.client.post(`/v1/credit-notes/${note.id}/void`, {}, key())).status).toBe(200);
    const voided = await ws.client.get(`/v1/credit-notes/${note.id}/credit-note.html`);
    expect(voided.text).toContain('BATAL');
    const other = await server.workspace();
    expect((await other.client.get(`/v1/credit-notes/${note.id}/credit-note.pdf`)).status).toBe(404);
  });
});
