// The receipt as a PDF: one A5 portrait page (more when the items overflow), pdfkit with the
// standard Helvetica fonts (referenced, not embedded: no font file is read, every viewer has
// them), WinAnsi text. Fast enough to render on request: no disk or network I/O per render, Intl
// formatters cached, and the fonts' metric tables built once per process (sharedFonts below).
import PDFDocument from 'pdfkit';
import { toWinAnsi } from './charset.ts';
import { receiptText } from './format.ts';
import type { ReceiptView } from './view.ts';

const PAGE = { size: 'A5' as const, width: 419.53, height: 595.28, margin: 36 };
const W = PAGE.width - 2 * PAGE.margin;
const LEFT = PAGE.margin;
const RIGHT = PAGE.width - PAGE.margin;
const BOTTOM = PAGE.height - PAGE.margin;
const INK = '#111827';
const MUTED = '#6b7280';
const LINE = '#e5e7eb';
const BAND = '#f3f4f6';
const REGULAR = 'Helvetica';
const BOLD = 'Helvetica-Bold';

// Item table columns: name wraps, the numbers are right-aligned in theirs.
const GAP = 6;
const COL = { amount: 84, unit: 78, qty: 28 };
const X = {
  name: LEFT,
  nameW: W - COL.amount - COL.unit - COL.qty - 3 * GAP,
  qtyR: RIGHT - COL.amount - COL.unit - 2 * GAP,
  unitR: RIGHT - COL.amount - GAP,
  amountR: RIGHT,
};

type Doc = PDFKit.PDFDocument;

/**
 * pdfkit builds a standard font's glyph-width and kerning tables (AFMFont) for every document:
 * about 0.1 ms per font, a third of a whole receipt. The tables are pure data, so the first
 * document's are kept and later documents get a fresh font object (their own id and PDF
 * reference) around the same tables. Guarded: if pdfkit's internals ever change shape, each
 * document simply builds its own as before (the test compares both outputs byte for byte).
 */
interface InternalDoc {
  _fontFamilies?: Record<string, object>;
  _fontCount?: number;
  _font?: object & { font?: unknown; document?: unknown };
}
const sharedFonts = new Map<string, { proto: object; fields: Record<string, unknown> }>();
const PER_DOCUMENT = new Set(['document', 'id', 'dictionary', 'embedded']);

function useFont(doc: Doc, name: string, share: boolean) {
  const d = doc as unknown as InternalDoc;
  const cached = share ? sharedFonts.get(name) : undefined;
  if (cached && d._fontFamilies && typeof d._fontCount === 'number' && !d._fontFamilies[name]) {
    d._fontFamilies[name] = Object.assign(Object.create(cached.proto), cached.fields, { document: doc, id: `F${++d._fontCount}` });
  }
  doc.font(name);
  const font = d._font;
  if (share && !cached && font && font.font && font.document === doc) {
    const fields = Object.fromEntries(Object.entries(font).filter(([k]) => !PER_DOCUMENT.has(k)));
    sharedFonts.set(name, { proto: Object.getPrototypeOf(font), fields });
  }
}

/** The receipt as PDF bytes (`%PDF-1.3 ...`). Same view, same bytes: dates come from the view. */
export function renderReceiptPdf(view: ReceiptView, opts: { shareFonts?: boolean } = {}): Promise<Buffer> {
  const share = opts.shareFonts ?? true;
  const doc = new PDFDocument({
    size: PAGE.size,
    margin: PAGE.margin,
    autoFirstPage: false,
    font: null as unknown as string, // no default font: useFont sets them up (the types want a string)
    info: {
      Title: toWinAnsi(`${view.number}`),
      Author: toWinAnsi(view.merchant.name),
      Subject: toWinAnsi(`${view.merchant.name} ${view.number}`),
      Creator: 'svc',
      Producer: 'svc (pdfkit)',
      CreationDate: view.issuedAt,
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  useFont(doc, BOLD, share);
  useFont(doc, REGULAR, share);
  doc.addPage();
  draw(doc, view);
  doc.end();
  return done;
}

function draw(doc: Doc, view: ReceiptView) {
  const t = receiptText(view);
  const L = t.L;
  const accent = t.accent;

  // One-line text, no wrapper (the fast path); right-aligned by measuring. Text wider than
  // `fit` (a huge amount in its column) is set smaller until it fits, down to 5 pt.
  type LineOpts = { font?: string; size?: number; color?: string; align?: 'left' | 'right' | 'center'; fit?: number };
  const line = (s: string, x: number, y: number, o: LineOpts = {}) => {
    const text = toWinAnsi(s);
    let size = o.size ?? 9;
    doc.font(o.font ?? REGULAR).fontSize(size).fillColor(o.color ?? INK);
    let w = o.align && o.align !== 'left' ? doc.widthOfString(text) : 0;
    if (o.fit) {
      w = doc.widthOfString(text);
      if (w > o.fit) {
        size = Math.max(5, (size * o.fit) / w);
        w = doc.fontSize(size).widthOfString(text);
      }
    }
    const at = o.align === 'right' ? x - w : o.align === 'center' ? x - w / 2 : x;
    doc.text(text, at, y, { lineBreak: false });
  };
  // Cut to `width` with an ellipsis (one-line headers).
  const clip = (s: string, width: number, font = REGULAR, size = 9) => {
    doc.font(font).fontSize(size);
    let text = toWinAnsi(s);
    if (doc.widthOfString(text) <= width) return text;
    while (text.length > 1 && doc.widthOfString(`${text}...`) > width) text = text.slice(0, Math.floor(text.length * 0.9));
    return `${text}...`;
  };
  // Wrapped text in a box; returns the y below it.
  const block = (s: string, x: number, y: number, width: number, o: { font?: string; size?: number; color?: string; align?: 'left' | 'center' | 'right' } = {}) => {
    doc.font(o.font ?? REGULAR).fontSize(o.size ?? 9).fillColor(o.color ?? INK);
    doc.text(toWinAnsi(s, true), x, y, { width, align: o.align ?? 'left', lineGap: 1 });
    return doc.y;
  };
  const heightOf = (s: string, width: number, font = REGULAR, size = 9) =>
    doc.font(font).fontSize(size).heightOfString(toWinAnsi(s, true), { width, lineGap: 1 });
  const rule = (y: number, color = LINE, weight = 0.75) => {
    doc.moveTo(LEFT, y).lineTo(RIGHT, y).lineWidth(weight).strokeColor(color).stroke();
  };

  // Header: accent band, merchant on the left, "RECEIPT" and its number on the right.
  doc.rect(0, 0, PAGE.width, 6).fill(accent);
  let y = PAGE.margin;
  let left = block(view.merchant.name, LEFT, y, W * 0.58, { font: BOLD, size: 15 });
  if (view.merchant.tagline) left = block(view.merchant.tagline, LEFT, left + 1, W * 0.58, { color: MUTED });
  if (view.merchant.address) left = block(view.merchant.address, LEFT, left + 2, W * 0.58, { size: 8, color: MUTED });
  if (view.merchant.taxId) left = block(`${L.taxId}: ${view.merchant.taxId}`, LEFT, left + 1, W * 0.58, { size: 8, color: MUTED });
  line(L.receipt.toUpperCase(), RIGHT, y + 2, { font: BOLD, size: 11, color: accent, align: 'right' });
  line(view.number, RIGHT, y + 17, { font: BOLD, size: 9, align: 'right' });
  y = Math.max(left, y + 30) + 6;
  if (view.mode === 'test') {
    line(L.testMode, PAGE.width / 2, y, { font: BOLD, size: 9, color: '#b91c1c', align: 'center' });
    y += 14;
  }
  rule(y);
  y += 10;

  // Details on the left, the customer on the right.
  const detailsTop = y;
  const customerX = LEFT + W * 0.6;
  const valueX = LEFT + 62;
  const valueW = (view.customer ? customerX - 8 : RIGHT) - valueX;
  const details: [string, string | null, number][] = [
    [L.number, view.number, 8.5],
    [L.issued, t.issuedAt, 8.5],
    [L.paid, t.paidAt, 8.5],
    [L.method, view.paymentMethodLabel, 8.5],
    [L.cashier, view.cashierName, 8.5],
    [L.reference, view.reference, 7.5],
  ];
  for (const [label, value, size] of details) {
    if (!value) continue;
    line(label, LEFT, y, { size: 8, color: MUTED });
    y = block(value, valueX, y + (8.5 - size) / 2, valueW, { size }) + 2;
  }
  if (view.customer) {
    let cy = detailsTop;
    line(L.customer, customerX, cy, { size: 8, color: MUTED });
    cy += 11;
    for (const v of [view.customer.name, view.customer.email, view.customer.phone]) {
      if (v) cy = block(v, customerX, cy, RIGHT - customerX, { size: 8.5, font: v === view.customer.name ? BOLD : REGULAR }) + 1;
    }
    y = Math.max(y, cy);
  }
  y += 8;

  // Items.
  const tableHeader = (top: number) => {
    doc.rect(LEFT, top, W, 16).fill(BAND);
    const hy = top + 4.5;
    line(L.item, X.name + 3, hy, { font: BOLD, size: 8 });
    line(L.qty, X.qtyR, hy, { font: BOLD, size: 8, align: 'right' });
    line(L.unitPrice, X.unitR, hy, { font: BOLD, size: 8, align: 'right' });
    line(L.amount, X.amountR - 3, hy, { font: BOLD, size: 8, align: 'right' });
    return top + 21;
  };
  const newPage = () => {
    doc.addPage();
    doc.rect(0, 0, PAGE.width, 6).fill(accent);
    line(clip(`${view.number} - ${view.merchant.name}`, W, REGULAR, 7.5), LEFT, PAGE.margin - 14, { size: 7.5, color: MUTED });
    return PAGE.margin;
  };
  y = tableHeader(y);
  for (const item of view.lineItems) {
    const h = Math.max(heightOf(item.name, X.nameW - 3), 11) + 6;
    if (y + h > BOTTOM) y = tableHeader(newPage());
    block(item.name, X.name + 3, y, X.nameW - 3);
    line(t.quantity(item.quantity), X.qtyR, y, { align: 'right', fit: COL.qty });
    line(t.money(item.unitAmount), X.unitR, y, { align: 'right', fit: COL.unit });
    line(t.money(item.amount), X.amountR - 3, y, { align: 'right', fit: COL.amount - 3 });
    y += h;
    rule(y - 3.5);
  }

  // Totals, right-aligned under the amount column; then the closing lines.
  const closing = [view.thankYouText, view.footerText].filter((s): s is string => !!s);
  const needed = 18 * (view.tax ? 3 : 1) + 24 + closing.reduce((n, s) => n + heightOf(s, W, BOLD, 10) + 6, 0);
  if (y + needed > BOTTOM) y = newPage();
  y += 4;
  const labelX = RIGHT - 190;
  if (view.tax) {
    line(L.subtotal, labelX, y, { color: MUTED });
    line(t.money(view.subtotal), X.amountR - 3, y, { align: 'right', fit: 120 });
    y += 14;
    line(t.taxLine!, labelX, y, { color: MUTED });
    line(t.money(view.tax.amount), X.amountR - 3, y, { align: 'right', fit: 120 });
    y += 14;
  }
  doc.moveTo(labelX, y).lineTo(RIGHT, y).lineWidth(1).strokeColor(INK).stroke();
  y += 6;
  line(L.total, labelX, y, { font: BOLD, size: 11 });
  line(t.money(view.total), X.amountR - 3, y, { font: BOLD, size: 11, align: 'right', fit: 120 });
  y += 17;
  if (view.tax?.included) {
    line(L.taxIncluded(view.tax.label), X.amountR - 3, y, { size: 7.5, color: MUTED, align: 'right' });
    y += 12;
  }
  y += 10;
  y = block(view.thankYouText, LEFT, y, W, { font: BOLD, size: 10, color: accent, align: 'center' }) + 4;
  if (view.footerText) block(view.footerText, LEFT, y, W, { size: 8, color: MUTED, align: 'center' });
}
