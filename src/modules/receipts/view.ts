// What a receipt shows: the receipt's own view builder over the shared document view
// (src/modules/documents/view.ts); the renderers in src/modules/documents/render lay it out.

import {
  DEFAULT_TAX_LABEL,
  DEFAULT_TAX_RATE,
  DEFAULT_THANK_YOU_TEXT,
  type DocumentLanguage,
  type DocumentView,
  nonEmpty,
  safeColor,
  safeUrl,
} from '../documents/view.ts';
import { localeOf, workspaceLanguage } from '../../core/i18n/index.ts';
import { isDisplayedMethod, methodReceiptLabel } from '../adapters/display.ts';

export {
  DEFAULT_ACCENT_COLOR,
  DEFAULT_TAX_LABEL,
  DEFAULT_TAX_RATE,
  DEFAULT_THANK_YOU_TEXT,
} from '../documents/view.ts';

/** A receipt's view: a document view without the invoice block. */
export type ReceiptView = DocumentView;
export type ReceiptLanguage = DocumentLanguage;

/** The spec's full receipt object (GET /v1/receipts/:id), the input of `buildReceiptView`. */
export interface ReceiptRecord {
  receiptId: string;
  number: string;
  sourceType: 'checkout_session' | 'invoice';
  sourceId: string;
  status: string;
  paidAt: string | Date | null;
  amount: number;
  currency: string;
  method: string | null;
  methodLabel: string | null;
  adapter: string | null;
  customer: { name?: string | null; email?: string | null; phone?: string | null } | null;
  merchant: {
    name: string;
    logoUrl?: string | null;
    accentColor?: string | null;
    tagline?: string | null;
    address?: string | null;
    taxId?: string | null;
  };
  lineItems: { name: string; qty: number; unitPrice: number; subtotal: number }[];
  subtotal: number;
  taxAmount: number;
  total: number;
  template: {
    footerText?: string | null;
    thankYouText?: string | null;
    showTax?: boolean | null;
    taxLabel?: string | null;
    taxRate?: number | null;
    cashierLabel?: string | null;
    showMerchantAddress?: boolean | null;
    merchantAddress?: string | null;
    merchantTaxId?: string | null;
  };
}

/**
 * Decides what a stored receipt shows: template switches applied (address shown or not, tax
 * block or not), defaults filled in (PPN, the bilingual thank-you), labels for methods. Pure.
 */
export function buildReceiptView(
  r: ReceiptRecord,
  ctx: { issuedAt: Date; mode: 'live' | 'test'; timezone?: string; language?: ReceiptLanguage; locale?: string },
): ReceiptView {
  const t = r.template ?? {};
  // The caller passes the customer's, else the workspace's language; a view built by hand: by its currency.
  const language = ctx.language ?? workspaceLanguage(r.currency);
  const showAddress = t.showMerchantAddress ?? true;
  const customer =
    r.customer && (nonEmpty(r.customer.name) || nonEmpty(r.customer.email) || nonEmpty(r.customer.phone))
      ? { name: nonEmpty(r.customer.name), email: nonEmpty(r.customer.email), phone: nonEmpty(r.customer.phone) }
      : null;
  return {
    id: r.receiptId,
    number: r.number,
    mode: ctx.mode,
    language,
    locale: ctx.locale ?? localeOf(language),
    timezone: ctx.timezone ?? (r.currency === 'IDR' ? 'Asia/Jakarta' : 'UTC'),
    issuedAt: ctx.issuedAt,
    paidAt: r.paidAt == null ? null : new Date(r.paidAt),
    currency: r.currency,
    merchant: {
      name: r.merchant.name,
      tagline: nonEmpty(r.merchant.tagline),
      address: showAddress ? (nonEmpty(t.merchantAddress) ?? nonEmpty(r.merchant.address)) : null,
      taxId: nonEmpty(t.merchantTaxId) ?? nonEmpty(r.merchant.taxId),
      logoUrl: safeUrl(r.merchant.logoUrl),
      accentColor: safeColor(r.merchant.accentColor),
    },
    customer,
    lineItems: r.lineItems.map((li) => ({
      name: li.name,
      quantity: li.qty,
      unitAmount: li.unitPrice,
      amount: li.subtotal,
    })),
    subtotal: r.subtotal,
    tax: t.showTax
      ? {
          label: nonEmpty(t.taxLabel) ?? DEFAULT_TAX_LABEL,
          rate: t.taxRate ?? DEFAULT_TAX_RATE,
          amount: r.taxAmount,
          included: true,
        }
      : null,
    total: r.total,
    // A known method in the document's language (the stored label is its English name); else what was stored.
    paymentMethodLabel:
      r.method && isDisplayedMethod(r.method)
        ? methodReceiptLabel(r.method, language)
        : (nonEmpty(r.methodLabel) ?? r.method),
    cashierName: nonEmpty(t.cashierLabel),
    reference: r.sourceId,
    thankYouText: nonEmpty(t.thankYouText) ?? DEFAULT_THANK_YOU_TEXT,
    footerText: nonEmpty(t.footerText),
  };
}
