// A document as fixed-width lines: the layout of the ESC/POS slip (32 or 48 columns, ASCII) and of
// the plain-text part of the email (Unicode). Right-aligned columns are made with spaces, so a
// line never depends on the printer's own alignment except for centred header and footer lines.
import { documentText } from './format.ts';
import type { DocumentView } from '../view.ts';

export interface TextLine {
  text: string;
  align: 'left' | 'center';
  bold?: boolean;
  /** Double height (same width), for the merchant name. */
  tall?: boolean;
}

/** Display width in columns: one per code point (the ESC/POS path is ASCII by then). */
const width = (s: string) => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/** Greedy word wrap; words longer than the line are cut. Line breaks in the text are kept. */
export function wrap(text: string, cols: number): string[] {
  const out: string[] = [];
  for (const para of text.split(/\r?\n/)) {
    let line = '';
    for (const word of para.split(/\s+/).filter(Boolean)) {
      let w = word;
      if (line && width(line) + 1 + width(w) <= cols) {
        line += ` ${w}`;
        continue;
      }
      if (line) out.push(line);
      line = '';
      while (width(w) > cols) {
        const cps = [...w];
        out.push(cps.slice(0, cols).join(''));
        w = cps.slice(cols).join('');
      }
      line = w;
    }
    if (line) out.push(line);
  }
  return out;
}

/** `left ........ right` on one line when both fit, else left wrapped and right on its own line. */
export function columns(left: string, right: string, cols: number): string[] {
  const gap = cols - width(left) - width(right);
  if (gap >= 1) return [left + ' '.repeat(gap) + right];
  const lines = wrap(left, cols);
  for (const r of wrap(right, cols)) lines.push(' '.repeat(cols - width(r)) + r);
  return lines;
}

/**
 * The receipt's lines for a `cols`-wide slip. Every string that reaches a line goes through
 * `clean` first (the ESC/POS renderer passes toAscii), so widths are measured on what prints.
 */
export function layoutLines(view: DocumentView, cols: number, clean: (s: string) => string = (s) => s): TextLine[] {
  const t = documentText(view);
  const L = t.L;
  const lines: TextLine[] = [];
  const push = (texts: string[], align: TextLine['align'] = 'left', style: Pick<TextLine, 'bold' | 'tall'> = {}) => {
    for (const text of texts) lines.push({ text, align, ...style });
  };
  const rule = () => push(['-'.repeat(cols)]);
  const kv = (label: string, value: string | null, style: Pick<TextLine, 'bold'> = {}) => {
    if (value) push(columns(clean(label), clean(value), cols), 'left', style);
  };
  const centred = (text: string | null, style: Pick<TextLine, 'bold' | 'tall'> = {}) => {
    if (text)
      push(
        text.split(/\r?\n/).flatMap((part) => wrap(clean(part), cols)),
        'center',
        style,
      );
  };

  centred(view.merchant.name, { bold: true, tall: true });
  centred(view.merchant.tagline);
  centred(view.merchant.address);
  if (view.merchant.taxId) centred(`${L.taxId}: ${view.merchant.taxId}`);
  if (view.mode === 'test') centred(L.testMode, { bold: true });
  if (view.kind === 'invoice' || view.kind === 'credit_note') centred(t.title.toUpperCase(), { bold: true });
  centred(t.stamp, { bold: true });
  rule();
  kv(L.number, view.number);
  kv(L.issued, t.issuedAt);
  kv(L.due, t.dueAt);
  kv(L.paid, t.paidAt);
  kv(L.method, view.paymentMethodLabel);
  kv(L.cashier, view.cashierName);
  kv(L.customer, view.customer ? (view.customer.name ?? view.customer.email ?? view.customer.phone) : null);
  kv(L.reference, view.reference);
  rule();
  for (const item of view.lineItems) {
    push(wrap(clean(item.name), cols));
    push(
      columns(clean(`  ${t.quantity(item.quantity)} x ${t.money(item.unitAmount)}`), clean(t.money(item.amount)), cols),
    );
  }
  rule();
  for (const [label, amount] of t.above) kv(label, amount);
  kv(L.total.toUpperCase(), t.money(view.total), { bold: true });
  if (view.tax?.included) push(wrap(clean(L.taxIncluded(view.tax.label)), cols));
  for (const [label, amount, strong] of t.below) kv(label, amount, { bold: strong });
  if (view.invoice?.memo) push(wrap(clean(`${L.memo}: ${view.invoice.memo}`), cols));
  if (view.invoice?.payUrl) {
    push(wrap(clean(`${L.payOnline}:`), cols));
    push(wrap(clean(view.invoice.payUrl), cols));
  }
  rule();
  centred(view.thankYouText);
  centred(view.footerText);
  return lines;
}

/** The plain-text receipt (the email's text part): lines joined, centred lines padded. */
export function renderText(view: DocumentView, cols = 48): string {
  const clean = (s: string) => s.normalize('NFC').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
  return layoutLines(view, cols, clean)
    .map((l) => (l.align === 'center' ? ' '.repeat(Math.floor((cols - width(l.text)) / 2)) + l.text : l.text).trimEnd())
    .join('\n');
}
