// What an invoice shows: the invoice's view builder over the shared document view
// (src/modules/documents/view.ts); the same renderers as receipts lay it out.

import { localeOf, workspaceLanguage } from '../../core/i18n/index.ts';
import { invoicePayable } from './states.ts';
import {
  DEFAULT_TAX_LABEL,
  DEFAULT_THANK_YOU_TEXT,
  type DocumentLanguage,
  type DocumentView,
  nonEmpty,
  safeColor,
  safeUrl,
} from '../documents/view.ts';

type Amount = number | bigint | string;

/** The stored invoice and its lines, as much of them as a document shows. */
export interface InvoiceRecord {
  id: string;
  number: string | null;
  status: string;
  currency: string;
  subtotal: Amount;
  discount: Amount;
  tax: Amount;
  total: Amount;
  /** Paid from the customer balance at finalization (absent: 0). */
  balanceApplied?: Amount;
  amountPaid: Amount;
  amountDue: Amount;
  dueAt: Date | null;
  issuedAt: Date | null;
  paidAt: Date | null;
  createdAt: Date;
  metadata: unknown;
  lines: { description: string; quantity: number; unitAmount: Amount; amount: Amount }[];
  /** `invoice.discounts[]` (docs/coupons.md): a row each, the coupon's name shown. */
  discounts?: { couponId: string | null; name: string; amount: Amount }[];
  /** Issued credit notes: their pre-payment part above what is paid and due, the rest after (documents/totals.ts). */
  creditNotes?: { number: string; total: Amount; prePaymentAmount: Amount }[];
}

/** The template fields an invoice uses (a template of kind `invoice`, or null for the defaults). */
export interface InvoiceTemplate {
  footerText?: string | null;
  thankYouText?: string | null;
  showTax?: boolean | null;
  taxLabel?: string | null;
  showMerchantAddress?: boolean | null;
  merchantAddress?: string | null;
  merchantTaxId?: string | null;
  logoUrl?: string | null;
  accentColor?: string | null;
  tagline?: string | null;
}

export interface InvoiceViewContext {
  mode: 'live' | 'test';
  /** The workspace's display name (brand name first). */
  merchantName: string;
  template: InvoiceTemplate | null;
  customer: { name: string | null; email: string | null; phone: string | null } | null;
  /** The hosted invoice page; shown only while the invoice can be paid. */
  hostedUrl: string | null;
  timezone?: string;
  language?: DocumentLanguage;
  locale?: string;
}

/** Statuses whose document carries the "pay online" link. */
const PAYABLE = new Set<string>(invoicePayable);

/**
 * Decides what an invoice shows: the `invoice` template's branding and texts, the flat tax as an
 * added row (spec Invoice: total = max(0, subtotal - discount + tax)), the discount row, credit notes,
 * balance applied, amounts paid and due (their rows: documents/totals.ts), a status stamp, and the hosted
 * page link while it is payable. Pure.
 */
export function buildInvoiceView(inv: InvoiceRecord, ctx: InvoiceViewContext): DocumentView {
  const t = ctx.template ?? {};
  // The caller passes the customer's, else the workspace's language; a view built by hand: by its currency.
  const language = ctx.language ?? workspaceLanguage(inv.currency);
  const n = (a: Amount) => Number(a);
  const tax = n(inv.tax);
  const customer =
    ctx.customer && (nonEmpty(ctx.customer.name) || nonEmpty(ctx.customer.email) || nonEmpty(ctx.customer.phone))
      ? {
          name: nonEmpty(ctx.customer.name),
          email: nonEmpty(ctx.customer.email),
          phone: nonEmpty(ctx.customer.phone),
        }
      : null;
  const memo = (inv.metadata as { memo?: unknown } | null)?.memo;
  return {
    kind: 'invoice',
    id: inv.id,
    // A draft has no number yet (numbers are allocated at finalization): its id stands in.
    number: inv.number ?? inv.id,
    mode: ctx.mode,
    language,
    locale: ctx.locale ?? localeOf(language),
    timezone: ctx.timezone ?? (inv.currency === 'IDR' ? 'Asia/Jakarta' : 'UTC'),
    issuedAt: inv.issuedAt ?? inv.createdAt,
    paidAt: inv.paidAt,
    currency: inv.currency,
    merchant: {
      name: ctx.merchantName,
      tagline: nonEmpty(t.tagline),
      address: (t.showMerchantAddress ?? true) ? nonEmpty(t.merchantAddress) : null,
      taxId: nonEmpty(t.merchantTaxId),
      logoUrl: safeUrl(t.logoUrl),
      accentColor: safeColor(t.accentColor),
    },
    customer,
    lineItems: inv.lines.map((l) => ({
      name: l.description,
      quantity: l.quantity,
      unitAmount: n(l.unitAmount),
      amount: n(l.amount),
    })),
    subtotal: n(inv.subtotal),
    // The invoice's tax is a flat amount added on top (no rate to show).
    tax:
      tax > 0 || t.showTax
        ? { label: nonEmpty(t.taxLabel) ?? DEFAULT_TAX_LABEL, rate: null, amount: tax, included: false }
        : null,
    total: n(inv.total),
    paymentMethodLabel: null,
    cashierName: null,
    reference: null,
    thankYouText: nonEmpty(t.thankYouText) ?? DEFAULT_THANK_YOU_TEXT,
    footerText: nonEmpty(t.footerText),
    invoice: {
      status: inv.status,
      dueAt: inv.dueAt,
      discount: n(inv.discount),
      discounts: (inv.discounts ?? []).map((d) => ({ name: d.couponId ? d.name : null, amount: n(d.amount) })),
      balanceApplied: n(inv.balanceApplied ?? 0),
      amountPaid: n(inv.amountPaid),
      amountDue: n(inv.amountDue),
      payUrl: PAYABLE.has(inv.status) ? safeUrl(ctx.hostedUrl) : null,
      memo: typeof memo === 'string' ? nonEmpty(memo) : null,
      creditNotes: (inv.creditNotes ?? []).map((c) => ({
        number: c.number,
        total: n(c.total),
        prePaymentAmount: n(c.prePaymentAmount),
      })),
    },
  };
}
