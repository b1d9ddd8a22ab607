// A document (receipt or invoice) as one self-contained HTML page: inline CSS, no script, no external resource but
// the merchant's logo (http(s) only), a CSP that forbids anything else, print styles for A5.
// Every piece of merchant or customer text goes through escapeHtml.
import { documentText } from './format.ts';
import type { DocumentView } from '../view.ts';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

const CSS = `
*{box-sizing:border-box}
body{margin:0;background:#f3f4f6;color:#111827;
font:14px/1.45 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
.receipt{max-width:560px;margin:24px auto;background:#fff;border-top:6px solid var(--accent);border-radius:6px;
box-shadow:0 1px 3px rgba(0,0,0,.12);padding:28px 32px}
header{display:flex;justify-content:space-between;gap:16px;align-items:flex-start}
.logo{max-height:48px;max-width:160px;display:block;margin-bottom:8px}
h1{font-size:20px;margin:0 0 2px}
.muted{color:#6b7280}.small{font-size:12px}.pre{white-space:pre-line}
.doc{text-align:right;white-space:nowrap}
.doc .kind{color:var(--accent);font-weight:700;letter-spacing:.04em;text-transform:uppercase}
.test{margin:12px 0 0;padding:6px 10px;border-radius:4px;background:#fef2f2;color:#b91c1c;font-weight:700;
text-align:center}
.meta{display:flex;justify-content:space-between;gap:16px;border-top:1px solid #e5e7eb;margin-top:16px;padding-top:12px}
.meta dl{display:grid;grid-template-columns:auto 1fr;gap:2px 12px;margin:0;font-size:13px}
.meta dt{color:#6b7280}.meta dd{margin:0;overflow-wrap:anywhere}
.customer{font-size:13px;text-align:right;overflow-wrap:anywhere}.strong{font-weight:700}
table{width:100%;border-collapse:collapse;margin-top:18px;font-size:13px}
th{background:#f3f4f6;text-align:left;font-size:12px;padding:6px}
td{padding:6px;border-bottom:1px solid #e5e7eb;vertical-align:top}
.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
.name{overflow-wrap:anywhere}
.totals{margin:10px 0 0 auto;width:60%;min-width:240px;font-size:13px}
.totals td{border:0;padding:3px 6px}
.totals .grand td{border-top:2px solid #111827;font-size:16px;font-weight:700;padding-top:6px}
footer{text-align:center;margin-top:22px}
footer .thanks{color:var(--accent);font-weight:700}
@page{size:A5;margin:12mm}
@media print{body{background:#fff}.receipt{box-shadow:none;border-radius:0;margin:0;max-width:none;padding:0}}
`;

/** Invoice-only rules (receipts keep their exact bytes). */
const INVOICE_CSS = `.stamp{display:inline-block;margin-top:4px;padding:1px 8px;border:2px solid #b91c1c;color:#b91c1c;
font-weight:700}
.pay{display:inline-block;margin-top:12px;padding:8px 18px;border:0;border-radius:4px;background:var(--accent);
color:#fff;font:inherit;font-weight:700;text-decoration:none;cursor:pointer}
`;

/**
 * The document as a complete HTML page (`text/html; charset=utf-8`). `top`: markup a hosted page puts
 * above the document (its language switch, src/hosted/language.ts); trusted, not escaped.
 */
export function renderHtml(view: DocumentView, opts: { top?: string } = {}): string {
  const t = documentText(view);
  const L = t.L;
  const e = escapeHtml;
  const m = view.merchant;
  const row = (label: string, value: string | null) => (value ? `<dt>${e(label)}</dt><dd>${e(value)}</dd>` : '');
  const items = view.lineItems
    .map(
      (i) =>
        `<tr><td class="name">${e(i.name)}</td><td class="num">${e(t.quantity(i.quantity))}</td>` +
        `<td class="num">${e(t.money(i.unitAmount))}</td><td class="num">${e(t.money(i.amount))}</td></tr>`,
    )
    .join('');
  const customer = view.customer
    ? `<div class="customer"><div class="muted small">${e(L.customer)}</div>${[
        view.customer.name,
        view.customer.email,
        view.customer.phone,
      ]
        .map((v, i) => (v ? `<div${i === 0 ? ' class="strong"' : ''}>${e(v)}</div>` : ''))
        .join('')}</div>`
    : '';
  const tax = t.above
    .map(([label, amount]) => `<tr><td class="muted">${e(label)}</td><td class="num">${e(amount)}</td></tr>`)
    .join('');
  const below = t.below
    .map(([label, amount, strong]) =>
      strong
        ? `<tr><td class="strong">${e(label)}</td><td class="num strong">${e(amount)}</td></tr>`
        : `<tr><td>${e(label)}</td><td class="num">${e(amount)}</td></tr>`,
    )
    .join('');
  const inv = view.invoice;
  const extras =
    (inv?.memo ? `<p class="pre"><span class="muted">${e(L.memo)}:</span> ${e(inv.memo)}</p>\n` : '') +
    (inv?.waiting?.kind === 'provider'
      ? `<p class="muted" id="in-progress">${e(L.paymentInProgress)}</p>\n`
      : inv?.waiting?.kind === 'action' && inv.payAction
        ? `<p id="action-required">${e(L.actionRequiredNote)}</p>\n` +
          (inv.waiting.confirmUrl
            ? `<p><a class="pay" id="confirm" href="${e(inv.waiting.confirmUrl)}">${e(L.confirmPayment)}</a></p>\n`
            : '') +
          `<form method="post" action="${e(inv.payAction)}"><button type="submit" id="pay-another-way">` +
          `${e(L.payAnotherWay)}</button></form>\n`
        : inv?.payAction
          ? `<form method="post" action="${e(inv.payAction)}"><button class="pay" type="submit" id="pay">` +
            `${e(L.payOnline)} ${e(t.money(inv.amountDue))}</button></form>\n`
          : inv?.payUrl
            ? `<p><a class="pay" href="${e(inv.payUrl)}">${e(L.payOnline)}</a></p>\n`
            : '') +
    (inv?.pdfLink ? `<p><a id="download-pdf" href="${e(inv.pdfLink)}">${e(L.downloadPdf)}</a></p>\n` : '');
  const meta =
    row(L.number, view.number) +
    row(L.issued, t.issuedAt) +
    row(L.due, t.dueAt) +
    row(L.paid, t.paidAt) +
    row(L.method, view.paymentMethodLabel) +
    row(L.cashier, view.cashierName) +
    row(L.reference, view.reference);
  const head =
    `<th>${e(L.item)}</th><th class="num">${e(L.qty)}</th>` +
    `<th class="num">${e(L.unitPrice)}</th><th class="num">${e(L.amount)}</th>`;
  return `<!doctype html>
<html lang="${e(view.language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy"
 content="default-src 'none'; style-src 'unsafe-inline'; img-src https: http: data:">
<meta name="robots" content="noindex">
<title>${e(`${t.title} ${view.number} - ${m.name}`)}</title>
<style>:root{--accent:${t.accent}}${CSS}${view.kind === 'invoice' || view.kind === 'credit_note' ? INVOICE_CSS : ''}</style>
</head>
<body>
<main class="receipt">
${opts.top ?? ''}<header>
<div>
${t.logoUrl ? `<img class="logo" src="${e(t.logoUrl)}" alt="${e(m.name)}">` : ''}<h1>${e(m.name)}</h1>
${m.tagline ? `<div class="muted">${e(m.tagline)}</div>` : ''}
${m.address ? `<div class="muted small pre">${e(m.address)}</div>` : ''}
${m.taxId ? `<div class="muted small">${e(L.taxId)}: ${e(m.taxId)}</div>` : ''}
</div>
<div class="doc"><div class="kind">${e(t.title)}</div><div><strong>${e(view.number)}</strong></div>${t.stamp ? `<div class="stamp">${e(t.stamp)}</div>` : ''}</div>
</header>
${view.mode === 'test' ? `<p class="test">${e(L.testMode)}</p>` : ''}
<section class="meta">
<dl>${meta}</dl>
${customer}
</section>
<table>
<thead><tr>${head}</tr></thead>
<tbody>${items}</tbody>
</table>
<table class="totals">
${tax}<tr class="grand"><td>${e(L.total)}</td><td class="num">${e(t.money(view.total))}</td></tr>
${view.tax?.included ? `<tr><td colspan="2" class="num muted small">${e(L.taxIncluded(view.tax.label))}</td></tr>` : ''}
${below}</table>
${extras}<footer>
<div class="thanks pre">${e(view.thankYouText)}</div>
${view.footerText ? `<div class="muted small pre">${e(view.footerText)}</div>` : ''}
</footer>
</main>
</body>
</html>
`;
}
