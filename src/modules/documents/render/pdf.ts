// A document (receipt or invoice) as a PDF: one A5 portrait page (more when the items overflow), pdfkit with the
// standard Helvetica fonts (referenced, not embedded: no font file is read, every viewer has
// them), WinAnsi text. Fast enough to render on request: no disk or network I/O per render, Intl
// formatters cached, and the fonts' metric tables built once per process (sharedFonts below).
import PDFDocument from 'pdfkit';
import { toWinAnsi } from './charset.ts';
import { documentText } from './format.ts';
import type { DocumentView } from '../view.ts';

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
    d._fontFamilies[name] = Object.assign(Object.create(cached.proto), cached.fields, {
      document: doc,
      id: `F${++d._fontCount}`,
    });
  }
  doc.font(name);
  const font = d._font;
  if (share && !cached && font && font.font && font.document === doc) {
    const fields = Object.fromEntries(Object.entries(font).filter(([k]) => !PER_DOCUMENT.has(k)));
    sharedFonts.set(name, { proto: Object.getPrototypeOf(font), fields });
  }
}

/** The receipt as PDF bytes (`%PDF-1.3 ...`). Same view, same bytes: dates come from the view. */
export function renderPdf(view: DocumentView, opts: { shareFonts?: boolean } = {}): Promise<Buffer> {
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

type Font = typeof REGULAR | typeof BOLD;
interface TextOpts {
  font?: Font;
  size?: number;
  color?: string;
  align?: 'left' | 'right' | 'center';
}

/** Drawing primitives over one document: text is always WinAnsi-safe (toWinAnsi). */
class Pen {
  constructor(readonly doc: Doc) {}

  /** One line, no wrapper (the fast path); right/centre by measuring. Wider than `fit` (a huge
   *  amount in its column): set smaller until it fits, down to 5 pt. */
  line(s: string, x: number, y: number, o: TextOpts & { fit?: number } = {}) {
    const text = toWinAnsi(s);
    let size = o.size ?? 9;
    this.doc
      .font(o.font ?? REGULAR)
      .fontSize(size)
      .fillColor(o.color ?? INK);
    let w = o.align && o.align !== 'left' ? this.doc.widthOfString(text) : 0;
    if (o.fit) {
      w = this.doc.widthOfString(text);
      if (w > o.fit) {
        size = Math.max(5, (size * o.fit) / w);
        w = this.doc.fontSize(size).widthOfString(text);
      }
    }
    const at = o.align === 'right' ? x - w : o.align === 'center' ? x - w / 2 : x;
    this.doc.text(text, at, y, { lineBreak: false });
  }

  /** Wrapped text in a box (line breaks kept); returns the y below it. */
  block(s: string, x: number, y: number, width: number, o: TextOpts = {}): number {
    this.doc
      .font(o.font ?? REGULAR)
      .fontSize(o.size ?? 9)
      .fillColor(o.color ?? INK);
    this.doc.text(toWinAnsi(s, true), x, y, { width, align: o.align ?? 'left', lineGap: 1 });
    return this.doc.y;
  }

  /**
   * `s` in lines no wider than `width`, broken at spaces only: a number such as "SVC-CN-2026-11-0001" stays whole
   * (a word wider than `width` gets a line of its own, drawn smaller by `line`'s `fit`).
   */
  wordLines(s: string, width: number, font: Font = REGULAR, size = 9): string[] {
    this.doc.font(font).fontSize(size);
    const lines: string[] = [];
    let current = '';
    for (const word of toWinAnsi(s).split(' ').filter(Boolean)) {
      const next = current ? `${current} ${word}` : word;
      if (current && this.doc.widthOfString(next) > width) {
        lines.push(current);
        current = word;
      } else current = next;
    }
    return current ? [...lines, current] : lines;
  }

  heightOf(s: string, width: number, font: Font = REGULAR, size = 9): number {
    return this.doc.font(font).fontSize(size).heightOfString(toWinAnsi(s, true), { width, lineGap: 1 });
  }

  /** Cut to `width` with an ellipsis (one-line headers). */
  clip(s: string, width: number, font: Font = REGULAR, size = 9): string {
    this.doc.font(font).fontSize(size);
    let text = toWinAnsi(s);
    if (this.doc.widthOfString(text) <= width) return text;
    while (text.length > 1 && this.doc.widthOfString(`${text}...`) > width)
      text = text.slice(0, Math.floor(text.length * 0.9));
    return `${text}...`;
  }

  rule(y: number, from = LEFT, color = LINE, weight = 0.75) {
    this.doc.moveTo(from, y).lineTo(RIGHT, y).lineWidth(weight).strokeColor(color).stroke();
  }
}

type Ctx = { pen: Pen; view: DocumentView; t: ReturnType<typeof documentText> };

function draw(doc: Doc, view: DocumentView) {
  const ctx: Ctx = { pen: new Pen(doc), view, t: documentText(view) };
  let y = drawHeader(ctx);
  y = drawDetails(ctx, y);
  y = drawItems(ctx, y);
  drawTotals(ctx, y);
}

/** Accent band, merchant on the left, "STRUK" and the number on the right, test-mode line. */
function drawHeader({ pen, view, t }: Ctx): number {
  const { L, accent } = t;
  const m = view.merchant;
  pen.doc.rect(0, 0, PAGE.width, 6).fill(accent);
  let y = PAGE.margin;
  let left = pen.block(m.name, LEFT, y, W * 0.58, { font: BOLD, size: 15 });
  if (m.tagline) left = pen.block(m.tagline, LEFT, left + 1, W * 0.58, { color: MUTED });
  if (m.address) left = pen.block(m.address, LEFT, left + 2, W * 0.58, { size: 8, color: MUTED });
  if (m.taxId) left = pen.block(`${L.taxId}: ${m.taxId}`, LEFT, left + 1, W * 0.58, { size: 8, color: MUTED });
  pen.line(t.title.toUpperCase(), RIGHT, y + 2, { font: BOLD, size: 11, color: accent, align: 'right' });
  pen.line(view.number, RIGHT, y + 17, { font: BOLD, size: 9, align: 'right' });
  if (t.stamp) pen.line(t.stamp, RIGHT, y + 31, { font: BOLD, size: 10, color: '#b91c1c', align: 'right' });
  y = Math.max(left, y + (t.stamp ? 44 : 30)) + 6;
  if (view.mode === 'test') {
    pen.line(L.testMode, PAGE.width / 2, y, { font: BOLD, size: 9, color: '#b91c1c', align: 'center' });
    y += 14;
  }
  pen.rule(y);
  return y + 10;
}

/** Number, dates, payment, cashier, reference on the left; the customer on the right. */
function drawDetails({ pen, view, t }: Ctx, top: number): number {
  const { L } = t;
  const customerX = LEFT + W * 0.6;
  const valueX = LEFT + 62;
  const valueW = (view.customer ? customerX - 8 : RIGHT) - valueX;
  const details: [string, string | null, number][] = [
    [L.number, view.number, 8.5],
    [L.issued, t.issuedAt, 8.5],
    [L.due, t.dueAt, 8.5],
    [L.paid, t.paidAt, 8.5],
    [L.method, view.paymentMethodLabel, 8.5],
    [L.cashier, view.cashierName, 8.5],
    [L.reference, view.reference, 7.5],
  ];
  let y = top;
  for (const [label, value, size] of details) {
    if (!value) continue;
    pen.line(label, LEFT, y, { size: 8, color: MUTED });
    y = pen.block(value, valueX, y + (8.5 - size) / 2, valueW, { size }) + 2;
  }
  if (view.customer) {
    pen.line(L.customer, customerX, top, { size: 8, color: MUTED });
    let cy = top + 11;
    for (const v of [view.customer.name, view.customer.email, view.customer.phone]) {
      if (v)
        cy =
          pen.block(v, customerX, cy, RIGHT - customerX, {
            size: 8.5,
            font: v === view.customer.name ? BOLD : REGULAR,
          }) + 1;
    }
    y = Math.max(y, cy);
  }
  return y + 8;
}

/** A further page: accent band and a "number - merchant" line above the margin. */
function newPage({ pen, view, t }: Ctx): number {
  pen.doc.addPage();
  pen.doc.rect(0, 0, PAGE.width, 6).fill(t.accent);
  pen.line(pen.clip(`${view.number} - ${view.merchant.name}`, W, REGULAR, 7.5), LEFT, PAGE.margin - 14, {
    size: 7.5,
    color: MUTED,
  });
  return PAGE.margin;
}

function drawTableHeader({ pen, t }: Ctx, top: number): number {
  pen.doc.rect(LEFT, top, W, 16).fill(BAND);
  const y = top + 4.5;
  pen.line(t.L.item, X.name + 3, y, { font: BOLD, size: 8 });
  pen.line(t.L.qty, X.qtyR, y, { font: BOLD, size: 8, align: 'right' });
  pen.line(t.L.unitPrice, X.unitR, y, { font: BOLD, size: 8, align: 'right' });
  pen.line(t.L.amount, X.amountR - 3, y, { font: BOLD, size: 8, align: 'right' });
  return top + 21;
}

/** The item table; a row that does not fit starts a new page with the table header again. */
function drawItems(ctx: Ctx, top: number): number {
  const { pen, view, t } = ctx;
  let y = drawTableHeader(ctx, top);
  for (const item of view.lineItems) {
    const h = Math.max(pen.heightOf(item.name, X.nameW - 3), 11) + 6;
    if (y + h > BOTTOM) y = drawTableHeader(ctx, newPage(ctx));
    pen.block(item.name, X.name + 3, y, X.nameW - 3);
    pen.line(t.quantity(item.quantity), X.qtyR, y, { align: 'right', fit: COL.qty });
    pen.line(t.money(item.unitAmount), X.unitR, y, { align: 'right', fit: COL.unit });
    pen.line(t.money(item.amount), X.amountR - 3, y, { align: 'right', fit: COL.amount - 3 });
    y += h;
    pen.rule(y - 3.5);
  }
  return y;
}

/** Subtotal, PPN, Total under the amount column, then thank-you and footer, kept together. */
function drawTotals(ctx: Ctx, top: number) {
  const { pen, view, t } = ctx;
  const labelX = LEFT + W * 0.3;
  const amountR = X.amountR - 3;
  // A label gets the width its row's amount leaves it and wraps there ("Credit note SVC-CN-..." beside
  // "-Rp 100.000"): label and amount never overlap.
  const layout = (label: string, value: string, font: Font, size: number) => {
    const amountW = Math.min(120, pen.doc.font(font).fontSize(size).widthOfString(toWinAnsi(value)));
    const labelW = amountR - amountW - 10 - labelX;
    const lines = pen.wordLines(label, labelW, font, size);
    return { labelW, lines, height: Math.max(14, lines.length * (size + 2.5) + 3.5) };
  };
  const rows = [
    ...t.above.map(([label, value]) => ({ label, value, font: REGULAR as Font, size: 9, color: MUTED, total: false })),
    { label: t.L.total, value: t.money(view.total), font: BOLD as Font, size: 11, color: INK, total: true },
    ...t.below.map(([label, value, strong]) => ({
      label,
      value,
      font: (strong ? BOLD : REGULAR) as Font,
      size: 9,
      color: INK,
      total: false,
    })),
  ].map((r) => ({ ...r, ...layout(r.label, r.value, r.font, r.size) }));
  const closing = [view.thankYouText, view.footerText].filter((s): s is string => !!s);
  const extra = view.invoice?.memo || view.invoice?.payUrl ? 40 : 0;
  const needed =
    rows.reduce((n, r) => n + r.height, 0) +
    30 +
    extra +
    closing.reduce((n, s) => n + pen.heightOf(s, W, BOLD, 10) + 6, 0);
  let y = (top + needed > BOTTOM ? newPage(ctx) : top) + 4;
  for (const r of rows) {
    if (r.total) {
      pen.rule(y, labelX, INK, 1);
      y += 6;
    }
    for (const [i, line] of r.lines.entries())
      pen.line(line, labelX, y + i * (r.size + 2.5), { font: r.font, size: r.size, color: r.color, fit: r.labelW });
    pen.line(r.value, amountR, y, { font: r.font, size: r.size, align: 'right', fit: 120 });
    y += r.total ? Math.max(17, r.height) : r.height;
    if (r.total && view.tax?.included) {
      pen.line(t.L.taxIncluded(view.tax.label), amountR, y, { size: 7.5, color: MUTED, align: 'right' });
      y += 12;
    }
  }
  const inv = view.invoice;
  if (inv?.memo) y = pen.block(`${t.L.memo}: ${inv.memo}`, LEFT, y + 6, W, { size: 8.5 });
  if (inv?.payUrl) {
    pen.line(`${t.L.payOnline}:`, LEFT, y + 8, { font: BOLD, size: 8.5, color: t.accent });
    pen.doc.font(REGULAR).fontSize(7.5).fillColor(INK);
    pen.doc.text(toWinAnsi(inv.payUrl), LEFT, y + 19, { width: W, link: inv.payUrl });
    y = pen.doc.y;
  }
  y = pen.block(view.thankYouText, LEFT, y + 10, W, { font: BOLD, size: 10, color: t.accent, align: 'center' }) + 4;
  if (view.footerText) pen.block(view.footerText, LEFT, y, W, { size: 8, color: MUTED, align: 'center' });
}
