// Receipt rendering: money formatting, the view, PDF (text read back with unpdf), HTML, ESC/POS
// bytes, and email through a real SMTP server started here.
import { startSmtp, type ReceivedMail } from '../../helpers/smtp.ts';
import { extractText } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMoney } from '../../../src/core/money.ts';
import { toAscii, toWinAnsi } from '../../../src/modules/documents/render/charset.ts';
import { sendDocumentEmail, renderEmail } from '../../../src/modules/documents/render/email.ts';
import { CMD, renderEscpos } from '../../../src/modules/documents/render/escpos.ts';
import { renderHtml } from '../../../src/modules/documents/render/html.ts';
import { renderPdf } from '../../../src/modules/documents/render/pdf.ts';
import { buildReceiptView, type ReceiptRecord } from '../../../src/modules/receipts/view.ts';
import { decodeWords, leaves, parseMime } from '../../helpers/mime.ts';
import { sampleReceiptView, sampleUsdView } from '../../helpers/receipts.ts';

const pdfText = async (pdf: Buffer) => {
  const { text, totalPages } = await extractText(new Uint8Array(pdf), { mergePages: true });
  return { text: text.replace(/\s+/g, ' '), totalPages };
};

describe('formatMoney', () => {
  it('IDR: no minor digits, Indonesian grouping', () => {
    expect(formatMoney(150_000, 'IDR')).toBe('Rp 150.000');
    expect(formatMoney(0, 'IDR')).toBe('Rp 0');
    expect(formatMoney(1_234_567_890, 'IDR')).toBe('Rp 1.234.567.890');
    expect(formatMoney(-14_865, 'IDR')).toBe('-Rp 14.865');
  });
  it('USD: two minor digits', () => {
    expect(formatMoney(1234, 'USD')).toBe('$12.34');
    expect(formatMoney(5, 'USD')).toBe('$0.05');
    expect(formatMoney(100_000_00, 'USD')).toBe('$100,000.00');
    expect(formatMoney(-1234, 'USD')).toBe('-$12.34');
  });
  it('exact at any safe size (decimal string, no float), plain spaces, locale override', () => {
    expect(formatMoney(Number.MAX_SAFE_INTEGER, 'USD')).toBe('$90,071,992,547,409.91');
    expect(formatMoney(Number.MAX_SAFE_INTEGER, 'IDR')).toBe('Rp 9.007.199.254.740.991');
    expect(formatMoney(150_000, 'IDR')).not.toMatch(/[\u00a0\u202f]/);
    expect(formatMoney(1234, 'USD', 'id-ID')).toBe('US$12,34');
    expect(formatMoney(123, 'SGD')).toBe('SGD 1.23');
  });
  it('refuses non-integer amounts', () => {
    expect(() => formatMoney(12.5, 'USD')).toThrow(RangeError);
    expect(() => formatMoney(Number.NaN, 'IDR')).toThrow(RangeError);
  });
});

describe('character sets', () => {
  it('toAscii: printable ASCII only, transliterated, control bytes dropped', () => {
    expect(toAscii('Café Señor Łódź ß “x” – €5')).toBe('Cafe Senor Lodz ss "x" - EUR5');
    expect(toAscii('咖啡 😀')).toBe('?? ?');
    expect(toAscii('a\x1bp\x00\x19b\tc\nd')).toBe('apb c d');
    expect(toAscii('ｆｕｌｌ')).toBe('full');
  });
  it('toWinAnsi: keeps Latin-1 and the WinAnsi extras, folds or replaces the rest', () => {
    expect(toWinAnsi('Café € “x” – ½')).toBe('Café € “x” – ½');
    expect(toWinAnsi('e\u0301')).toBe('é'); // composed
    expect(toWinAnsi('Łódź 咖啡 ￥')).toBe('Lódz ?? ¥');
    expect(toWinAnsi('a\nb')).toBe('a b');
    expect(toWinAnsi('a\r\nb', true)).toBe('a\nb');
  });
});

describe('buildReceiptView', () => {
  const record: ReceiptRecord = {
    receiptId: 'rcpt_01',
    number: 'SVC-RCPT-2026-11-0007',
    sourceType: 'checkout_session',
    sourceId: 'cs_01',
    status: 'completed',
    paidAt: '2026-11-05T03:03:59.000Z',
    amount: 111_000,
    currency: 'IDR',
    method: 'qris',
    methodLabel: null,
    adapter: 'provider_a',
    customer: { name: 'Budi', email: 'budi@example.com', phone: null },
    merchant: {
      name: 'Toko',
      logoUrl: 'javascript:alert(1)',
      accentColor: 'red;x',
      tagline: '',
      address: 'Jl. A',
      taxId: null,
    },
    lineItems: [{ name: 'Teh', qty: 2, unitPrice: 55_500, subtotal: 111_000 }],
    subtotal: 100_000,
    taxAmount: 11_000,
    total: 111_000,
    template: {
      showTax: true,
      taxRate: 0.11,
      cashierLabel: 'Siti',
      showMerchantAddress: false,
      merchantTaxId: '01.234',
    },
  };
  const view = buildReceiptView(record, { issuedAt: new Date('2026-11-05T03:04:05Z'), mode: 'live' });

  it('fills the spec defaults: PPN, the bilingual thank-you, Indonesian for IDR in Jakarta time', () => {
    expect(view.tax).toEqual({ label: 'PPN', rate: 0.11, amount: 11_000, included: true });
    expect(view.thankYouText).toBe('Terima kasih / Thank you');
    expect(view).toMatchObject({
      language: 'id',
      locale: 'id-ID',
      timezone: 'Asia/Jakarta',
      cashierName: 'Siti',
      paymentMethodLabel: 'QRIS',
    });
    expect(view.lineItems).toEqual([{ name: 'Teh', quantity: 2, unitAmount: 55_500, amount: 111_000 }]);
  });
  it('applies the template switches and drops unsafe merchant values', () => {
    expect(view.merchant).toMatchObject({
      address: null,
      taxId: '01.234',
      logoUrl: null,
      accentColor: '#0f766e',
      tagline: null,
    });
    const noTax = buildReceiptView(
      { ...record, taxAmount: 0, subtotal: 111_000, template: {} },
      { issuedAt: new Date(), mode: 'test' },
    );
    expect(noTax.tax).toBeNull();
    expect(noTax.merchant.address).toBe('Jl. A');
  });
});

describe('PDF', () => {
  it('is a PDF whose text shows the number, merchant, every amount, PPN, total and cashier', async () => {
    const pdf = await renderPdf(sampleReceiptView());
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.subarray(-6).toString('latin1')).toContain('%%EOF');
    const { text, totalPages } = await pdfText(pdf);
    expect(totalPages).toBe(1);
    for (const s of [
      'SVC-RCPT-2026-11-0001',
      'Warung Kopi Nusantara',
      'NPWP: 01.234.567.8-901.000',
      'Kopi Susu Gula Aren',
      'Rp 25.000',
      'Rp 50.000',
      'Rp 65.000',
      'Rp 7.000',
      'Rp 35.000',
      'Subtotal',
      'Rp 135.135',
      'PPN 11%',
      'Rp 14.865',
      'Total',
      'Rp 150.000',
      'Kasir',
      'Siti Rahma',
      'QRIS',
      'Budi Santoso',
      '5 Nov 2026, 10.04 WIB',
      'Terima kasih / Thank you',
    ])
      expect(text, s).toContain(s);
  });

  it('USD without tax: dollar amounts, no tax line, English labels, test-mode mark', async () => {
    const { text } = await pdfText(await renderPdf(sampleUsdView({ mode: 'test' })));
    for (const s of ['$12.34', '$5.00', '$15.00', '$27.34', 'RECEIPT', 'TEST MODE']) expect(text, s).toContain(s);
    expect(text).not.toContain('PPN');
  });

  it('draws text the standard fonts cannot encode as "?" instead of garbage', async () => {
    const view = sampleReceiptView({
      lineItems: [{ name: 'Café 咖啡 Łódź', quantity: 1, unitAmount: 150_000, amount: 150_000 }],
    });
    const { text } = await pdfText(await renderPdf(view));
    expect(text).toContain('Café ?? Lódz');
  });

  it('continues on further pages when the items do not fit, every item and the total included', async () => {
    const lineItems = Array.from({ length: 60 }, (_, i) => ({
      name: `Item ${i + 1} ${'panjang '.repeat(i % 7)}`,
      quantity: 1,
      unitAmount: 1000,
      amount: 1000,
    }));
    const view = sampleReceiptView({
      lineItems,
      subtotal: 54_054,
      tax: { label: 'PPN', rate: 0.11, amount: 5946, included: true },
      total: 60_000,
    });
    const { text: pages, totalPages } = await extractText(new Uint8Array(await renderPdf(view)));
    expect(totalPages).toBeGreaterThan(1);
    const all = pages.join(' ');
    for (let i = 1; i <= 60; i++) expect(all).toMatch(new RegExp(`Item ${i}\\b`));
    expect(pages.at(-1)).toContain('Rp 60.000');
  });

  it('is deterministic, and sharing font tables across documents changes no byte', async () => {
    const view = sampleReceiptView();
    const a = await renderPdf(view, { shareFonts: false });
    const b = await renderPdf(view);
    const c = await renderPdf(view);
    expect(b.equals(a)).toBe(true);
    expect(c.equals(a)).toBe(true);
  });
});

describe('HTML', () => {
  const hostile = sampleReceiptView({
    merchant: {
      ...sampleReceiptView().merchant,
      name: 'Toko "Kita" <b>',
      logoUrl: 'javascript:alert(1)',
      accentColor: 'red;}</style><script>',
    },
    lineItems: [
      {
        name: '<script>alert("x")</script> & <img src=x onerror=alert(1)>',
        quantity: 1,
        unitAmount: 150_000,
        amount: 150_000,
      },
    ],
    footerText: "</footer><script>alert('f')</script>",
  });

  it('escapes every user string: no script element, no injected attribute', () => {
    const html = renderHtml(hostile);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img src=x/i);
    expect(html).toContain(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(1)&gt;',
    );
    expect(html).toContain('Toko &quot;Kita&quot; &lt;b&gt;');
    expect(html).not.toContain('javascript:');
    expect(html).toContain('--accent:#0f766e');
  });

  it('is a complete page with the number, amounts, PPN and a restrictive CSP', () => {
    const html = renderHtml(
      sampleReceiptView({ merchant: { ...sampleReceiptView().merchant, logoUrl: 'https://cdn.example.com/logo.png' } }),
    );
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<html lang="id">');
    expect(html).toContain("default-src 'none'");
    expect(html).toContain('<img class="logo" src="https://cdn.example.com/logo.png"');
    for (const s of [
      'SVC-RCPT-2026-11-0001',
      'Rp 50.000',
      'Rp 65.000',
      'Rp 35.000',
      'PPN 11%',
      'Rp 14.865',
      'Rp 150.000',
      'Siti Rahma',
      '@page',
    ])
      expect(html, s).toContain(s);
  });
});

describe('ESC/POS', () => {
  /** The printed lines: the known commands removed, split at LF. */
  const printed = (bytes: Buffer) =>
    bytes
      .toString('latin1')
      .replace(/\x1b@|\x1b[tEad][\s\S]|\x1d![\s\S]|\x1dVB[\s\S]/g, '')
      .split('\n');
  const long = sampleReceiptView({
    merchant: {
      ...sampleReceiptView().merchant,
      name: 'Warung Kopi Nusantara Cabang Bandara Internasional Soekarno-Hatta Terminal 3',
    },
    lineItems: [
      {
        name: 'Nasi Goreng Spesial dengan Telur Mata Sapi, Sate Ayam Madura, dan Kerupuk Udang Sidoarjo',
        quantity: 12,
        unitAmount: 1_250_000,
        amount: 15_000_000,
      },
      {
        name: 'Supercalifragilisticexpialidocious-Extra-Long-Word-Without-Spaces',
        quantity: 1,
        unitAmount: 999_999_999,
        amount: 999_999_999,
      },
      { name: 'Café crème brûlée 咖啡 😀 \x1bp\x00\x19\xfa', quantity: 1, unitAmount: 1, amount: 1 },
    ],
    total: 1_015_000_000,
  });

  for (const width of [58, 80] as const) {
    const cols = width === 58 ? 32 : 48;
    it(`${width} mm: init first, bold centred header, lines within ${cols} columns, cut last`, () => {
      const bytes = renderEscpos(long, { width });
      expect([...bytes.subarray(0, 2)]).toEqual([0x1b, 0x40]);
      expect([...bytes.subarray(-4)]).toEqual(CMD.cut);
      const s = bytes.toString('latin1');
      const boldOn = s.indexOf('\x1bE\x01');
      const name = s.indexOf('Warung Kopi');
      const boldOff = s.indexOf('\x1bE\x00', boldOn);
      expect(boldOn).toBeGreaterThan(0);
      expect(boldOn).toBeLessThan(name);
      expect(boldOff).toBeGreaterThan(name);
      expect(s.lastIndexOf('\x1ba\x01', name)).toBeGreaterThan(0); // centred
      const lines = printed(bytes);
      for (const line of lines) expect(line.length, JSON.stringify(line)).toBeLessThanOrEqual(cols);
      expect(lines.some((l) => l.length === cols)).toBe(true); // rules use the full width
      expect(lines.join('\n')).toContain('Rp 1.015.000.000');
      expect(lines.join('\n')).toContain('Cafe creme brulee ?? ?');
    });
  }

  it('only printable ASCII between the commands: user text cannot inject printer commands', () => {
    const lines = printed(renderEscpos(long));
    for (const line of lines) expect(line).toMatch(/^[\x20-\x7e]*$/);
    // the ESC p (cash drawer) in the item name is gone
    expect(renderEscpos(long).includes(Buffer.from([0x1b, 0x70]))).toBe(false);
  });

  it('default receipt: the totals, PPN and cashier, amounts right-aligned at the edge', () => {
    const lines = printed(renderEscpos(sampleReceiptView(), { width: 58 }));
    expect(lines).toContain(`PPN 11%${' '.repeat(32 - 7 - 9)}Rp 14.865`);
    expect(lines).toContain(`TOTAL${' '.repeat(32 - 5 - 10)}Rp 150.000`);
    expect(lines.find((l) => l.startsWith('Kasir'))).toMatch(/Siti Rahma$/);
    expect(lines.find((l) => l.startsWith('No.'))).toMatch(/SVC-RCPT-2026-11-0001$/);
    expect(lines).toEqual(expect.arrayContaining(['Jl. Sudirman No. 1', 'Jakarta Pusat 10220'])); // address lines kept
    expect(() => renderEscpos(sampleReceiptView(), { width: 57 as 58 })).toThrow(RangeError);
  });
});

describe('email', () => {
  let received: ReceivedMail[] = [];
  let smtpUrl: string;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;

  beforeAll(async () => {
    smtp = await startSmtp();
    ({ received, url: smtpUrl } = smtp);
  });
  afterAll(() => smtp.close());

  it('sends HTML and text with the PDF attached, to the customer by default', async () => {
    const view = sampleReceiptView();
    const result = await sendDocumentEmail(view, { smtpUrl });
    expect(result.to).toBe('budi@example.com');
    expect(result.messageId).toMatch(/^<.+@.+>$/);
    const msg = received.at(-1)!;
    expect(msg.rcpt).toEqual(['budi@example.com']);
    const mail = parseMime(msg.raw);
    expect(decodeWords(mail.headers.subject)).toBe('Struk SVC-RCPT-2026-11-0001 dari Warung Kopi Nusantara');
    expect(mail.headers.to).toBe('budi@example.com');
    expect(mail.headers.from).toContain('Warung Kopi Nusantara');
    expect(mail.headers['message-id']).toBe(result.messageId);
    expect(mail.headers['auto-submitted']).toBe('auto-generated');

    const parts = leaves(mail);
    const html = parts.find((p) => p.headers['content-type'].startsWith('text/html'))!.body.toString('utf8');
    const text = parts.find((p) => p.headers['content-type'].startsWith('text/plain'))!.body.toString('utf8');
    const pdf = parts.find((p) => p.headers['content-type'].startsWith('application/pdf'))!;
    for (const s of ['SVC-RCPT-2026-11-0001', 'Rp 150.000', 'PPN 11%', 'Siti Rahma']) {
      expect(html, s).toContain(s);
      expect(text, s).toContain(s);
    }
    expect(html).not.toMatch(/<\/?mj-/); // compiled, not MJML
    expect(pdf.headers['content-disposition']).toMatch(/attachment; filename="?SVC-RCPT-2026-11-0001\.pdf"?/);
    expect(pdf.body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.body.equals(await renderPdf(view))).toBe(true);
  });

  it('an explicit `to` wins; hostile text stays escaped in the HTML part', async () => {
    const view = sampleReceiptView({
      lineItems: [{ name: '<script>alert(1)</script>', quantity: 1, unitAmount: 150_000, amount: 150_000 }],
    });
    const result = await sendDocumentEmail(view, { smtpUrl, to: 'kasir@toko.example' });
    expect(result.to).toBe('kasir@toko.example');
    expect(received.at(-1)!.rcpt).toEqual(['kasir@toko.example']);
    const { html } = await renderEmail(view);
    expect(html).not.toContain('<script>alert(1)');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('no recipient is 409 no_recipient; a bad address is 400 on `to`; a dead server is 502', async () => {
    const anonymous = sampleUsdView();
    await expect(sendDocumentEmail(anonymous, { smtpUrl })).rejects.toMatchObject({
      canonical: 'no_recipient',
      status: 409,
    });
    await expect(sendDocumentEmail(anonymous, { smtpUrl, to: 'a@b.c, evil@x.y' })).rejects.toMatchObject({
      canonical: 'validation_error',
      field: 'to',
    });
    await expect(sendDocumentEmail(anonymous, { smtpUrl, to: 'a@b.c\r\nBcc: evil@x.y' })).rejects.toMatchObject({
      canonical: 'validation_error',
    });
    await expect(sendDocumentEmail(anonymous, { smtpUrl: '', to: 'a@b.example' })).rejects.toMatchObject({
      canonical: 'email_failed',
      status: 502,
    });
    await expect(
      sendDocumentEmail(anonymous, { smtpUrl: 'smtp://127.0.0.1:1', to: 'a@b.example' }),
    ).rejects.toMatchObject({ canonical: 'email_failed', status: 502 });
  });
});
