// What a receipt shows, fully decided before any renderer runs: the PDF, HTML, ESC/POS and email
// renderers only lay it out. Amounts stay integers in minor units; renderers format them.

import { templateDefaults } from '../../templates/fields.ts';

/** spec Receipt defaults, from the one list templates store (PPN, 0.11, the bilingual thank-you). */
export const DEFAULT_TAX_LABEL = templateDefaults.taxLabel;
export const DEFAULT_TAX_RATE = templateDefaults.taxRate;
export const DEFAULT_THANK_YOU_TEXT = templateDefaults.thankYouText;
export const DEFAULT_ACCENT_COLOR = '#0f766e';

export type ReceiptLanguage = 'id' | 'en';

export interface ReceiptViewItem {
  name: string;
  quantity: number;
  /** Minor units. */
  unitAmount: number;
  /** quantity x unitAmount, minor units. */
  amount: number;
}

export interface ReceiptView {
  /** `rcpt_` id. */
  id: string;
  /** `SVC-RCPT-YYYY-MM-NNNN`. */
  number: string;
  /** Test receipts carry a visible "test mode" mark. */
  mode: 'live' | 'test';
  /** Language of the fixed labels ("Total", "Kasir", ...). */
  language: ReceiptLanguage;
  /** BCP 47 locale for dates and percentages (amounts follow their currency: see formatMoney). */
  locale: string;
  /** IANA zone the dates are shown in, e.g. Asia/Jakarta. */
  timezone: string;
  issuedAt: Date;
  paidAt: Date | null;
  /** Uppercase ISO 4217. */
  currency: string;
  merchant: {
    name: string;
    /** Shown under the name (the template's header line). */
    tagline: string | null;
    /** Null when the template hides it (`showMerchantAddress` false). */
    address: string | null;
    /** NPWP for Indonesian merchants. */
    taxId: string | null;
    /** http(s) only; HTML and email show it, the PDF and ESC/POS do not fetch it. */
    logoUrl: string | null;
    /** `#rrggbb`. */
    accentColor: string;
  };
  customer: { name: string | null; email: string | null; phone: string | null } | null;
  lineItems: ReceiptViewItem[];
  /** Pre-tax, minor units. */
  subtotal: number;
  /** Null: the tax block is suppressed (tax not configured, `showTax` false). */
  tax: {
    label: string;
    /** Fractional, 0.11 = 11%. */
    rate: number;
    amount: number;
    /** spec: taxAmount = round(total x rate / (1 + rate)), i.e. prices include the tax. */
    included: boolean;
  } | null;
  /** = subtotal + tax amount, minor units. */
  total: number;
  /** e.g. "QRIS", "BCA Virtual Account". */
  paymentMethodLabel: string | null;
  cashierName: string | null;
  /** The source the receipt is for (checkout session or invoice id). */
  reference: string | null;
  thankYouText: string;
  /** Free text from the template; may hold line breaks. */
  footerText: string | null;
}

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

const METHOD_LABELS: Record<string, string> = {
  qris: 'QRIS',
  va: 'Virtual Account',
  card: 'Card',
  ewallet: 'E-wallet',
  retail: 'Retail outlet',
  bank_transfer: 'Bank transfer',
  manual: 'Bank transfer',
};

const nonEmpty = (s: string | null | undefined): string | null => (s != null && s.trim() !== '' ? s : null);
const safeUrl = (s: string | null | undefined): string | null => (s && /^https?:\/\/[^\s]+$/i.test(s) ? s : null);
const safeColor = (s: string | null | undefined): string =>
  s && /^#[0-9a-f]{6}$/i.test(s) ? s.toLowerCase() : DEFAULT_ACCENT_COLOR;

/**
 * Decides what a stored receipt shows: template switches applied (address shown or not, tax
 * block or not), defaults filled in (PPN, the bilingual thank-you), labels for methods. Pure.
 */
export function buildReceiptView(
  r: ReceiptRecord,
  ctx: { issuedAt: Date; mode: 'live' | 'test'; timezone?: string; language?: ReceiptLanguage; locale?: string },
): ReceiptView {
  const t = r.template ?? {};
  const language = ctx.language ?? (r.currency === 'IDR' ? 'id' : 'en');
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
    locale: ctx.locale ?? (language === 'id' ? 'id-ID' : 'en-US'),
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
    paymentMethodLabel: nonEmpty(r.methodLabel) ?? (r.method ? (METHOD_LABELS[r.method] ?? r.method) : null),
    cashierName: nonEmpty(t.cashierLabel),
    reference: r.sourceId,
    thankYouText: nonEmpty(t.thankYouText) ?? DEFAULT_THANK_YOU_TEXT,
    footerText: nonEmpty(t.footerText),
  };
}
