// What a document (receipt or invoice) shows, fully decided before any renderer runs: the PDF,
// HTML, ESC/POS and email renderers only lay it out. One view model for both kinds; each kind has
// its own builder (receipts/view.ts, invoices/view.ts). Amounts stay integers in minor units.

import type { Language } from '../../core/i18n/index.ts';
import { templateDefaults } from '../templates/fields.ts';

/** spec Receipt defaults, from the one list templates store (PPN, 0.11, the bilingual thank-you). */
export const DEFAULT_TAX_LABEL = templateDefaults.taxLabel;
export const DEFAULT_TAX_RATE = templateDefaults.taxRate;
export const DEFAULT_THANK_YOU_TEXT = templateDefaults.thankYouText;
export const DEFAULT_ACCENT_COLOR = '#0f766e';

/** The catalog's languages (src/core/i18n). */
export type DocumentLanguage = Language;
export type DocumentKind = 'receipt' | 'invoice' | 'credit_note';

export interface DocumentViewItem {
  name: string;
  quantity: number;
  /** Minor units. */
  unitAmount: number;
  /** quantity x unitAmount, minor units. */
  amount: number;
}

export interface DocumentView {
  /** Which labels and blocks: absent means a receipt (views built by hand, tests). */
  kind?: DocumentKind;
  /** `rcpt_` or `inv_` id. */
  id: string;
  /** `SVC-RCPT-YYYY-MM-NNNN` or `SVC-YYYY-MM-NNNN` (a draft invoice: "DRAFT"). */
  number: string;
  /** Test documents carry a visible "test mode" mark. */
  mode: 'live' | 'test';
  /** Language of the fixed labels ("Total", "Kasir", ...). */
  language: DocumentLanguage;
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
  lineItems: DocumentViewItem[];
  /** Pre-tax, minor units. */
  subtotal: number;
  /** Null: the tax block is suppressed (tax not configured, `showTax` false). */
  tax: {
    label: string;
    /** Fractional, 0.11 = 11%; null for a flat tax amount (invoices). */
    rate: number | null;
    amount: number;
    /** spec: taxAmount = round(total x rate / (1 + rate)), i.e. prices include the tax. */
    included: boolean;
  } | null;
  /** Receipt: = subtotal + tax amount; invoice: max(0, subtotal - discount + tax). Minor units. */
  total: number;
  /** e.g. "QRIS", "BCA Virtual Account". */
  paymentMethodLabel: string | null;
  cashierName: string | null;
  /** The source the receipt is for (checkout session or invoice id). */
  reference: string | null;
  thankYouText: string;
  /** Free text from the template; may hold line breaks. */
  footerText: string | null;
  /** Only on invoices (and credit notes, which reuse its status stamp, discount and memo). */
  invoice?: InvoiceViewPart;
  /** Only on credit notes: where the credited money went (docs/credit-notes.md, Outcomes), minor units. */
  creditNote?: { prePayment: number; refund: number; credit: number; outOfBand: number };
}

/** What an invoice adds to the shared view (spec Invoice). */
export interface InvoiceViewPart {
  /** `draft`, `open`, `past_due`, `paid`, `void`, `uncollectible`: drives the stamp. */
  status: string;
  dueAt: Date | null;
  /** Flat discount, minor units (0: no row); its rows are `discounts` when given. */
  discount: number;
  /** docs/coupons.md, Invoice discounts: a row each, named by its coupon (null: the flat "Diskon / Discount"). */
  discounts?: { name: string | null; amount: number }[];
  /** From the customer balance at finalization (docs/credit-notes.md, Invoice amounts); absent: 0. */
  balanceApplied?: number;
  amountPaid: number;
  amountDue: number;
  /** The hosted invoice page (null for drafts, paid and void invoices). */
  payUrl: string | null;
  /** On the hosted page itself: where its "Pay" button posts (instead of the link to the page). */
  payAction?: string | null;
  /** On the hosted page itself: its `doc.downloadPdf` link (answered with a signed PDF URL). */
  pdfLink?: string | null;
  /**
   * An automatic charge waits for the customer (docs/guides/payment-methods.md, Requires action):
   * `action` with `confirmUrl` (the hosted page's confirm link `doc.confirmPayment`; the Pay button becomes
   * `doc.payAnotherWay`), or `pending` (a charge in progress: no Pay button). Email: the action notice.
   */
  waiting?: { kind: 'action'; confirmUrl: string | null } | { kind: 'provider' } | null;
  /** Free text from `metadata.memo`. */
  memo: string | null;
  /**
   * Issued credit notes of the invoice, oldest first; absent or empty: none. The totals show the pre-payment
   * part above what is paid and the rest after the amount due (../totals.ts).
   */
  creditNotes?: { number: string; total: number; prePaymentAmount: number }[];
}

export const nonEmpty = (s: string | null | undefined): string | null => (s != null && s.trim() !== '' ? s : null);
export const safeUrl = (s: string | null | undefined): string | null =>
  s && /^https?:\/\/[^\s]+$/i.test(s) ? s : null;
export const safeColor = (s: string | null | undefined): string =>
  s && /^#[0-9a-f]{6}$/i.test(s) ? s.toLowerCase() : DEFAULT_ACCENT_COLOR;
