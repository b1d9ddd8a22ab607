// A document (receipt or invoice) by email: an MJML template compiled to HTML (tables and inline styles that mail
// clients render), the fixed-width text receipt as the plain-text part, the PDF attached, sent
// over SMTP (config.smtpUrl) with nodemailer.
import { config } from '../../../core/config.ts';
import { keepInOutbox, transportFor } from '../../../core/mail.ts';
import { DomainError } from '../../../core/errors.ts';
import { logger } from '../../../core/logger.ts';
import { documentText } from './format.ts';
import { escapeHtml as e } from './html.ts';
import { renderPdf } from './pdf.ts';
import { renderText } from './text.ts';
import type { DocumentView } from '../view.ts';

export interface DocumentEmail {
  subject: string;
  html: string;
  text: string;
}

/** Escaped, with line breaks kept (mail clients ignore `white-space: pre-line`). */
const eBr = (s: string) => e(s).replace(/\r?\n/g, '<br>');
const oneLine = (s: string) => s.replace(/[\r\n\t]+/g, ' ').trim();

/** mjml loads juice, cheerio and htmlnano (~0.4 s): only the first email pays for it. */
let mjml: Promise<typeof import('mjml').default> | undefined;

function template(view: DocumentView): { subject: string; mjml: string } {
  const t = documentText(view);
  const L = t.L;
  const m = view.merchant;
  const subject = oneLine(t.subject);
  const td = (s: string, style = '', attrs = '') => `<td style="padding:4px 0;${style}"${attrs}>${s}</td>`;
  const num = 'text-align:right;white-space:nowrap;';
  const detail = (label: string, value: string | null) =>
    value ? `<tr>${td(e(label), 'color:#6b7280;width:38%;')}${td(e(value))}</tr>` : '';
  const customer = view.customer
    ? [view.customer.name, view.customer.email, view.customer.phone].filter(Boolean).join(', ')
    : null;
  const items = view.lineItems
    .map(
      (i) =>
        `<tr style="border-bottom:1px solid #e5e7eb;">${td(
          `${e(i.name)}<br><span style="color:#6b7280;font-size:12px;">` +
            `${e(t.quantity(i.quantity))} x ${e(t.money(i.unitAmount))}</span>`,
        )}${td(e(t.money(i.amount)), `${num}vertical-align:top;`)}</tr>`,
    )
    .join('');
  const totals =
    t.above.map(([label, value]) => `<tr>${td(e(label), 'color:#6b7280;')}${td(e(value), num)}</tr>`).join('') +
    `<tr style="border-top:2px solid #111827;">${td(e(L.total), 'font-size:16px;font-weight:700;padding-top:8px;')}` +
    `${td(e(t.money(view.total)), `${num}font-size:16px;font-weight:700;padding-top:8px;`)}</tr>` +
    (view.tax?.included
      ? `<tr>${td(e(L.taxIncluded(view.tax.label)), 'color:#6b7280;font-size:12px;', ' colspan="2"')}</tr>`
      : '') +
    t.below
      .map(([label, value, strong]) => {
        const weight = strong ? 'font-weight:700;' : '';
        return `<tr>${td(e(label), weight)}${td(e(value), num + weight)}</tr>`;
      })
      .join('');
  const payUrl = view.invoice?.payUrl;
  const pay = payUrl
    ? `<mj-button href="${e(payUrl)}" background-color="${t.accent}" padding="12px 24px">${e(
        view.invoice?.waiting?.kind === 'action' ? L.confirmPayment : L.payOnline,
      )}</mj-button>`
    : '';
  const logo = t.logoUrl
    ? `<mj-image src="${e(t.logoUrl)}" alt="${e(m.name)}" width="120px" align="left" padding="0 24px 8px" />`
    : '';
  const heading =
    `<tr>${td(`<strong style="color:${t.accent};">${e(t.title)}</strong>`)}` +
    `${td(`<strong>${e(view.number)}</strong>`, num)}</tr>`;
  const details =
    detail(L.issued, t.issuedAt) +
    detail(L.due, t.dueAt) +
    detail(L.paid, t.paidAt) +
    detail(L.method, view.paymentMethodLabel) +
    detail(L.cashier, view.cashierName) +
    detail(L.customer, customer);
  const thanks = eBr(view.thankYouText);
  const footer = view.footerText
    ? `<mj-text align="center" color="#6b7280" font-size="12px">${eBr(view.footerText)}</mj-text>`
    : '';
  const imprint =
    e(m.name) + (m.address ? `<br>${eBr(m.address)}` : '') + (m.taxId ? `<br>${e(L.taxId)}: ${e(m.taxId)}` : '');

  const source = `<mjml lang="${e(view.language)}">
  <mj-head>
    <mj-title>${e(subject)}</mj-title>
    <mj-preview>${e(t.intro)}</mj-preview>
    <mj-attributes>
      <mj-all font-family="-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif" />
      <mj-text font-size="14px" line-height="1.45" color="#111827" padding="4px 24px" />
      <mj-table font-size="14px" line-height="1.45" color="#111827" padding="4px 24px" />
    </mj-attributes>
  </mj-head>
  <mj-body background-color="#f3f4f6" width="560px">
    <mj-section background-color="${t.accent}" padding="3px 0">
      <mj-column><mj-spacer height="0px" /></mj-column>
    </mj-section>
    <mj-section background-color="#ffffff" padding="20px 0 4px">
      <mj-column>
        ${logo}
        <mj-text font-size="20px" font-weight="700">${e(m.name)}</mj-text>
        ${m.tagline ? `<mj-text color="#6b7280">${e(m.tagline)}</mj-text>` : ''}
        ${view.mode === 'test' ? `<mj-text color="#b91c1c" font-weight="700">${e(L.testMode)}</mj-text>` : ''}
        <mj-text padding="12px 24px 4px">${e(t.intro)}</mj-text>
      </mj-column>
    </mj-section>
    <mj-section background-color="#ffffff" padding="0 0 20px">
      <mj-column>
        <mj-table font-size="13px">
          ${heading}
          ${details}
        </mj-table>
        <mj-divider border-color="#e5e7eb" border-width="1px" padding="8px 24px" />
        <mj-table>${items}</mj-table>
        <mj-table>${totals}</mj-table>
        ${pay}
        <mj-text align="center" color="${t.accent}" font-weight="700" padding="16px 24px 0">${thanks}</mj-text>
        ${footer}
      </mj-column>
    </mj-section>
    <mj-section padding="8px 0">
      <mj-column>
        <mj-text align="center" color="#9ca3af" font-size="11px">${imprint}</mj-text>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;
  return { subject, mjml: source };
}

/** Subject, HTML body and plain-text body of a document's email. */
export async function renderEmail(view: DocumentView): Promise<DocumentEmail> {
  const { subject, mjml: source } = template(view);
  const compile = await (mjml ??= import('mjml').then((mod) => mod.default));
  // strict: a template mistake fails loudly here, not as a broken email. fonts: no web-font links.
  const { html } = await compile(source, { validationLevel: 'strict', fonts: {}, keepComments: false });
  return { subject, html, text: `${documentText(view).intro}\n\n${renderText(view)}\n` };
}

const ADDRESS = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;

/**
 * The address a document goes to: `to`, else the customer's email. 409 no_recipient without
 * either; 400 validation_error (field `to`) for anything but one plain address (no lists, no
 * header injection). Spelled for the document's resource.
 */
export function recipientOf(view: DocumentView, to?: string | null): string {
  const resource = view.kind ?? 'receipt';
  const address = (to ?? view.customer?.email ?? '').trim();
  if (!address)
    throw new DomainError('no_recipient', `The ${resource} has no customer email; give \`to\``, { resource });
  if (address.length > 254 || !ADDRESS.test(address))
    throw new DomainError('validation_error', 'Not an email address', { field: 'to', resource });
  return address;
}

/**
 * Sends the document (HTML, text, PDF attached as `<number>.pdf`) to `to`, or to the customer's
 * email (recipientOf). With SMTP configured (config.smtpUrl or `smtpUrl`): sent, or 502
 * email_failed when the server refuses it. Without: given an `outbox` folder, the message is kept
 * there as an `.eml` file and `sent` is false (docs/decisions.md, Invoice email); with none,
 * 502 email_failed as before (receipts).
 */
export async function sendDocumentEmail(
  view: DocumentView,
  opts: { to?: string | null; pdf?: Buffer; smtpUrl?: string; from?: string; outbox?: string; keep?: boolean } = {},
): Promise<{ sent: boolean; messageId: string; to: string; file?: string }> {
  const resource = view.kind ?? 'receipt';
  const to = recipientOf(view, opts.to);
  // `keep`: into the outbox even with SMTP (test mode's rule for addresses it may not mail).
  const smtpUrl = opts.keep && opts.outbox ? undefined : (opts.smtpUrl ?? config.smtpUrl);
  if (!smtpUrl && !opts.outbox)
    throw new DomainError('email_failed', 'Email is not configured (SMTP_URL)', { resource });

  const [mail, pdf] = await Promise.all([renderEmail(view), opts.pdf ?? renderPdf(view)]);
  const fromAddress = opts.from ?? config.smtpFrom;
  const message = {
    from: fromAddress.includes('<') ? fromAddress : { name: oneLine(view.merchant.name), address: fromAddress },
    to,
    subject: mail.subject,
    html: mail.html,
    text: mail.text,
    headers: { 'Auto-Submitted': 'auto-generated' }, // RFC 3834: no vacation auto-replies
    attachments: [
      {
        filename: `${view.number.replace(/[^A-Za-z0-9._-]/g, '_')}.pdf`,
        content: pdf,
        contentType: 'application/pdf',
      },
    ],
  };
  if (!smtpUrl) {
    const kept = await keepInOutbox(opts.outbox!, view.id, message);
    return { sent: false, messageId: kept.messageId, to, file: kept.file };
  }
  try {
    const info = await (await transportFor(smtpUrl)).sendMail(message);
    return { sent: true, messageId: info.messageId, to };
  } catch (err) {
    logger.warn({ [resource]: view.number, err: (err as Error).message }, `${resource} email not sent`);
    throw new DomainError('email_failed', `The mail server did not accept the ${resource}`, { resource });
  }
}
