// A credit note's documents over real HTTP: credit-note.pdf|html|escpos through the invoice pipeline.
import { randomUUID } from 'node:crypto';
import { extractText } from 'unpdf';
import { describe, expect, it } from 'vitest';
import { signRequest } from '../../../src/core/auth/signing.ts';
import { useServer, type Workspace } from '../../helpers/server.ts';

const server = useServer();
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

    expect((await ws.client.post(`/v1/credit-notes/${note.id}/void`, {}, key())).status).toBe(200);
    const voided = await ws.client.get(`/v1/credit-notes/${note.id}/credit-note.html`);
    expect(voided.text).toContain('BATAL');
    const other = await server.workspace();
    expect((await other.client.get(`/v1/credit-notes/${note.id}/credit-note.pdf`)).status).toBe(404);
  });
});
