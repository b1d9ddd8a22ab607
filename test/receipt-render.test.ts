// Receipt rendering: money formatting, the view, ESC/POS bytes.
import { describe, expect, it } from 'vitest';
import { formatMoney } from '../src/core/money.ts';
import { toAscii, toWinAnsi } from '../src/modules/receipts/render/charset.ts';
import { CMD, renderReceiptEscpos } from '../src/modules/receipts/render/escpos.ts';
import { buildReceiptView, type ReceiptRecord } from '../src/modules/receipts/render/view.ts';
import { sampleReceiptView, sampleUsdView } from './helpers/receipts.ts';

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
    merchant: { name: 'Toko', logoUrl: 'javascript:alert(1)', accentColor: 'red;x', tagline: '', address: 'Jl. A', taxId: null },
    lineItems: [{ name: 'Teh', qty: 2, unitPrice: 55_500, subtotal: 111_000 }],
    subtotal: 100_000,
    taxAmount: 11_000,
    total: 111_000,
    template: { showTax: true, taxRate: 0.11, cashierLabel: 'Siti', showMerchantAddress: false, merchantTaxId: '01.234' },
  };
  const view = buildReceiptView(record, { issuedAt: new Date('2026-11-05T03:04:05Z'), mode: 'live' });

  it('fills the spec defaults: PPN, the bilingual thank-you, Indonesian for IDR in Jakarta time', () => {
    expect(view.tax).toEqual({ label: 'PPN', rate: 0.11, amount: 11_000, included: true });
    expect(view.thankYouText).toBe('Terima kasih / Thank you');
    expect(view).toMatchObject({ language: 'id', locale: 'id-ID', timezone: 'Asia/Jakarta', cashierName: 'Siti', paymentMethodLabel: 'QRIS' });
    expect(view.lineItems).toEqual([{ name: 'Teh', quantity: 2, unitAmount: 55_500, amount: 111_000 }]);
  });
  it('applies the template switches and drops unsafe merchant values', () => {
    expect(view.merchant).toMatchObject({ address: null, taxId: '01.234', logoUrl: null, accentColor: '#0f766e', tagline: null });
    const noTax = buildReceiptView({ ...record, taxAmount: 0, subtotal: 111_000, template: {} }, { issuedAt: new Date(), mode: 'test' });
    expect(noTax.tax).toBeNull();
    expect(noTax.merchant.address).toBe('Jl. A');
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
    merchant: { ...sampleReceiptView().merchant, name: 'Warung Kopi Nusantara Cabang Bandara Internasional Soekarno-Hatta Terminal 3' },
    lineItems: [
      { name: 'Nasi Goreng Spesial dengan Telur Mata Sapi, Sate Ayam Madura, dan Kerupuk Udang Sidoarjo', quantity: 12, unitAmount: 1_250_000, amount: 15_000_000 },
      { name: 'Supercalifragilisticexpialidocious-Extra-Long-Word-Without-Spaces', quantity: 1, unitAmount: 999_999_999, amount: 999_999_999 },
      { name: 'Café crème brûlée 咖啡 😀 \x1bp\x00\x19\xfa', quantity: 1, unitAmount: 1, amount: 1 },
    ],
    total: 1_015_000_000,
  });

  for (const width of [58, 80] as const) {
    const cols = width === 58 ? 32 : 48;
    it(`${width} mm: init first, bold centred header, lines within ${cols} columns, cut last`, () => {
      const bytes = renderReceiptEscpos(long, { width });
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
    const lines = printed(renderReceiptEscpos(long));
    for (const line of lines) expect(line).toMatch(/^[\x20-\x7e]*$/);
    // the ESC p (cash drawer) in the item name is gone
    expect(renderReceiptEscpos(long).includes(Buffer.from([0x1b, 0x70]))).toBe(false);
  });

  it('default receipt: the totals, PPN and cashier, amounts right-aligned at the edge', () => {
    const lines = printed(renderReceiptEscpos(sampleReceiptView(), { width: 58 }));
    expect(lines).toContain(`PPN 11%${' '.repeat(32 - 7 - 9)}Rp 14.865`);
    expect(lines).toContain(`TOTAL${' '.repeat(32 - 5 - 10)}Rp 150.000`);
    expect(lines.find((l) => l.startsWith('Kasir'))).toMatch(/Siti Rahma$/);
    expect(lines.find((l) => l.startsWith('No.'))).toMatch(/SVC-RCPT-2026-11-0001$/);
    expect(lines).toEqual(expect.arrayContaining(['Jl. Sudirman No. 1', 'Jakarta Pusat 10220'])); // address lines kept
    expect(() => renderReceiptEscpos(sampleReceiptView(), { width: 57 as 58 })).toThrow(RangeError);
  });
});
