// Invoice documents: the invoice view over the shared document renderers (PDF read back with unpdf and
// rasterised by pdftoppm when it is installed, HTML, ESC/POS bytes, the MJML email).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractText } from 'unpdf';
import { describe, expect, it } from 'vitest';
import { renderEmail } from '../../../src/modules/documents/render/email.ts';
import { renderEscpos } from '../../../src/modules/documents/render/escpos.ts';
import { renderHtml } from '../../../src/modules/documents/render/html.ts';
import { renderPdf } from '../../../src/modules/documents/render/pdf.ts';
import { buildInvoiceView, type InvoiceRecord } from '../../../src/modules/invoices/view.ts';
import { overlappingWords, pdfWords } from '../../helpers/pdf-words.ts';

const pdfText = async (pdf: Buffer) => {
  const { text, totalPages } = await extractText(new Uint8Array(pdf), { mergePages: true });
  return { text: text.replace(/\s+/g, ' '), totalPages };
};

const at = new Date('2026-11-05T03:04:05Z');
function invoice(over: Partial<InvoiceRecord> = {}): InvoiceRecord {
  return {
    id: 'inv_01JCKZ3V6Q8Y2X4W5T7R9P0M1N',
    number: 'SVC-2026-11-0007',
    status: 'open',
    currency: 'IDR',
    subtotal: 300_000n,
    discount: 25_000n,
    tax: 30_250n,
    total: 305_250n,
    amountPaid: 0n,
    amountDue: 305_250n,
    dueAt: new Date('2026-11-19T03:04:05Z'),
    issuedAt: at,
    paidAt: null,
    createdAt: at,
    metadata: { memo: 'Pembayaran paling lambat 14 hari' },
    lines: [
      { description: 'Langganan Pro (November)', quantity: 1, unitAmount: 250_000n, amount: 250_000n },
      { description: 'Kursi tambahan', quantity: 2, unitAmount: 25_000n, amount: 50_000n },
    ],
    ...over,
  };
}
const ctx = {
  mode: 'live' as const,
  merchantName: 'Toko Awan',
  template: { taxLabel: 'PPN', merchantAddress: 'Jl. Sudirman 1\nJakarta', merchantTaxId: '01.234.567.8-901.000' },
  customer: { name: 'Budi Santoso', email: 'budi@example.com', phone: null },
  hostedUrl: 'https://pay.example.com/i/inv_01JCKZ3V6Q8Y2X4W5T7R9P0M1N_0123456789abcdef0123456789abcdef01234567',
};

describe('buildInvoiceView', () => {
  it('an open invoice: flat tax added, discount, amounts due, the pay link, the memo', () => {
    const v = buildInvoiceView(invoice(), ctx);
    expect(v.kind).toBe('invoice');
    expect(v.tax).toEqual({ label: 'PPN', rate: null, amount: 30_250, included: false });
    expect(v.invoice).toMatchObject({ status: 'open', discount: 25_000, amountDue: 305_250, payUrl: ctx.hostedUrl });
    expect(v.invoice?.memo).toBe('Pembayaran paling lambat 14 hari');
    expect(v.language).toBe('id');
  });
  it('drafts show their id and no link; paid and void invoices no link', () => {
    const draft = buildInvoiceView(invoice({ status: 'draft', number: null, issuedAt: null }), ctx);
    expect(draft.number).toBe('inv_01JCKZ3V6Q8Y2X4W5T7R9P0M1N');
    expect(draft.invoice?.payUrl).toBeNull();
    expect(buildInvoiceView(invoice({ status: 'paid' }), ctx).invoice?.payUrl).toBeNull();
    expect(buildInvoiceView(invoice({ status: 'void' }), ctx).invoice?.payUrl).toBeNull();
    expect(buildInvoiceView(invoice({ status: 'past_due' }), ctx).invoice?.payUrl).toBe(ctx.hostedUrl);
    expect(buildInvoiceView(invoice(), { ...ctx, hostedUrl: 'javascript:alert(1)' }).invoice?.payUrl).toBeNull();
  });
});

describe('invoice PDF', () => {
  it('is a real PDF with the title, the lines, discount, tax, total, due and the link', async () => {
    const pdf = await renderPdf(buildInvoiceView(invoice(), ctx));
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const { text, totalPages } = await pdfText(pdf);
    expect(totalPages).toBe(1);
    for (const s of [
      'FAKTUR',
      'SVC-2026-11-0007',
      'Langganan Pro (November)',
      'Kursi tambahan',
      'Diskon',
      '-Rp 25.000',
      'PPN',
      'Rp 30.250',
      'Rp 305.250',
      'Sisa tagihan',
      'Jatuh tempo',
      'Bayar online',
      'Budi Santoso',
    ])
      expect(text).toContain(s);
    expect(pdf.toString('latin1')).toContain('/URI (https://pay.example.com/i/inv_');
  });
  it('stamps paid and void invoices; English for USD', async () => {
    const paid = await pdfText(
      await renderPdf(buildInvoiceView(invoice({ status: 'paid', amountPaid: 305_250n, amountDue: 0n }), ctx)),
    );
    expect(paid.text).toContain('LUNAS');
    expect(paid.text).not.toContain('Bayar online');
    const usd = await pdfText(
      await renderPdf(buildInvoiceView(invoice({ currency: 'USD', status: 'void' }), { ...ctx, template: null })),
    );
    expect(usd.text).toContain('INVOICE');
    expect(usd.text).toContain('VOID');
    expect(usd.text).toContain('Amount due');
  });
  it('rasterises with poppler when it is installed (a PDF other readers accept)', async (t) => {
    let poppler = true;
    try {
      execFileSync('pdftoppm', ['-v'], { stdio: 'ignore' });
    } catch {
      poppler = false;
    }
    if (!poppler) return t.skip();
    const dir = mkdtempSync(join(tmpdir(), 'inv-pdf-'));
    try {
      writeFileSync(join(dir, 'i.pdf'), await renderPdf(buildInvoiceView(invoice(), ctx)));
      execFileSync('pdftoppm', ['-png', '-r', '30', join(dir, 'i.pdf'), join(dir, 'page')]);
      expect(readdirSync(dir).filter((f) => f.endsWith('.png'))).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * Paid after a pre-payment credit note and the customer balance: 220.000 - 100.000 - 30.000 - 90.000 = 0, and a
 * second note credited after payment (docs/billing.md, Invoice totals).
 */
const settled = () =>
  invoice({
    status: 'paid',
    subtotal: 200_000n,
    discount: 0n,
    tax: 20_000n,
    total: 220_000n,
    balanceApplied: 30_000n,
    amountPaid: 90_000n,
    amountDue: 0n,
    creditNotes: [
      { number: 'SVC-CN-2026-11-0001', total: 100_000n, prePaymentAmount: 100_000n },
      { number: 'SVC-CN-2026-11-0002', total: 5_500n, prePaymentAmount: 0n },
    ],
  });

describe('invoice totals on every layout', () => {
  it('PDF: the credit notes, the balance applied, amount paid and due, in that order', async () => {
    const { text } = await pdfText(await renderPdf(buildInvoiceView(settled(), ctx)));
    const order = [
      'Total Rp 220.000',
      'Nota kredit SVC-CN-2026-11-0001',
      'Dibayar dari saldo -Rp 30.000',
      'Sudah dibayar Rp 90.000',
      'Sisa tagihan Rp 0',
      'Nota kredit SVC-CN-2026-11-0002, setelah pembayaran',
    ];
    for (const s of order) expect(text).toContain(s);
    expect(order.map((s) => text.indexOf(s))).toEqual(order.map((s) => text.indexOf(s)).sort((a, b) => a - b));
    const usd = await pdfText(await renderPdf(buildInvoiceView({ ...settled(), currency: 'USD' }, ctx)));
    expect(usd.text).toContain('Balance applied');
  });
  it('PDF: a long label wraps beside its amount, never over it', async () => {
    for (const language of ['id', 'en'] as const) {
      const words = pdfWords(await renderPdf(buildInvoiceView(settled(), { ...ctx, language })));
      // The note's number reads whole, left of its amount, and no two words share ink.
      const number = words.find((w) => w.text === 'SVC-CN-2026-11-0001');
      expect(number, `${language}: ${words.map((w) => w.text).join(' ')}`).toBeDefined();
      const amount = words.find((w) => w.text === '-Rp' && w.yMin >= number!.yMin - 12 && w.yMin <= number!.yMax);
      expect(amount).toBeDefined();
      expect(number!.xMax).toBeLessThan(amount!.xMin);
      expect(overlappingWords(words)).toEqual([]);
    }
  });
  it('HTML, email (HTML and text) and ESC/POS show the same rows', async () => {
    const view = buildInvoiceView(settled(), ctx);
    const html = renderHtml(view);
    expect(html).toContain('<tr><td>Dibayar dari saldo</td><td class="num">-Rp 30.000</td></tr>');
    const mail = await renderEmail(view);
    expect(mail.html).toContain('Dibayar dari saldo');
    expect(mail.html).toContain('-Rp 30.000');
    expect(mail.text).toMatch(/Dibayar dari saldo +-Rp 30\.000\nSudah dibayar +Rp 90\.000\nSisa tagihan +Rp 0/);
    const slip = renderEscpos(view, { width: 80 }).toString('latin1');
    expect(slip).toMatch(/Dibayar dari saldo +-Rp 30\.000/);
  });
});

describe('invoice HTML, ESC/POS, email', () => {
  it('HTML: title, stamp, pay button, escaped text', () => {
    const html = renderHtml(
      buildInvoiceView(invoice({ lines: [{ description: '<b>x</b>', quantity: 1, unitAmount: 1n, amount: 1n }] }), ctx),
    );
    expect(html).toContain('<title>Faktur SVC-2026-11-0007 - Toko Awan</title>');
    expect(html).toContain(`<a class="pay" href="${ctx.hostedUrl}">Bayar online</a>`);
    expect(html).toContain('&lt;b&gt;x&lt;/b&gt;');
    expect(renderHtml(buildInvoiceView(invoice({ status: 'void' }), ctx))).toContain('<div class="stamp">BATAL</div>');
  });
  it('ESC/POS: 48 columns of ASCII with the amounts due', () => {
    const bytes = renderEscpos(buildInvoiceView(invoice(), ctx), { width: 80 });
    const text = bytes.toString('latin1');
    expect(text).toContain('FAKTUR');
    expect(text).toMatch(/Sisa tagihan +Rp 305\.250/);
    const printed = text.replace(/\x1b@|\x1b[tEad][\s\S]|\x1d![\s\S]|\x1dVB[\s\S]/g, '').split('\n');
    for (const line of printed) expect(line.length).toBeLessThanOrEqual(48);
    expect(printed.join('')).toMatch(/^[\x20-\x7e]*$/);
  });
  it('email: invoice subject, the pay button, the plain-text part', async () => {
    const mail = await renderEmail(buildInvoiceView(invoice({ currency: 'USD' }), ctx));
    expect(mail.subject).toBe('Invoice SVC-2026-11-0007 from Toko Awan');
    expect(mail.html).toContain(ctx.hostedUrl);
    expect(mail.text).toContain('Here is your invoice from Toko Awan');
    expect(mail.text).toContain('Amount due');
  });
});
