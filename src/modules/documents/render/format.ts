// Text every renderer shares: the fixed labels in the document's kind and language, dates in its zone,
// amounts in its currency. Intl objects are cached: building one costs far more than using it.
import { formatMoney } from '../../../core/money.ts';
import { type Messages, messages } from '../../../core/i18n/index.ts';
import { invoiceTotals } from '../totals.ts';
import { DEFAULT_ACCENT_COLOR, type DocumentView } from '../view.ts';

export type Labels = Messages['doc'];
/** The fixed labels of a document, from the one catalog (src/core/i18n). */
export const labelsFor = (view: Pick<DocumentView, 'language'>): Labels => messages(view.language ?? 'en').doc;

const dateFormats = new Map<string, Intl.DateTimeFormat>();
const percentFormats = new Map<string, Intl.NumberFormat>();

/**
 * Indonesia's zones by the names its customers use, in every language (Intl names them only in
 * id-ID; en-* says "GMT+7").
 */
const namedZones: Record<string, string> = {
  'Asia/Jakarta': 'WIB',
  'Asia/Pontianak': 'WIB',
  'Asia/Makassar': 'WITA',
  'Asia/Jayapura': 'WIT',
};

/** The zone's short name: WIB/WITA/WIT for Indonesia's, else what Intl calls it in the locale ("UTC", "GMT+9"). */
export function zoneLabel(timezone: string, locale: string): string {
  const named = namedZones[timezone];
  if (named) return named;
  const part = new Intl.DateTimeFormat(locale, { timeZone: timezone, timeZoneName: 'short' })
    .formatToParts(new Date())
    .find((p) => p.type === 'timeZoneName');
  return part?.value ?? timezone;
}

/** "5 Nov 2026, 10.04 WIB" (id-ID) or "Nov 5, 2026, 10:04 WIB" (en-US), 24-hour clock, the zone named. */
export function formatDateTime(at: Date, locale: string, timezone: string): string {
  const zone = namedZones[timezone];
  if (zone) return `${formatDateTime(at, locale, `${timezone}|unnamed`)} ${zone}`;
  const key = `${locale}|${timezone}`;
  let df = dateFormats.get(key);
  if (!df) {
    const [tz, unnamed] = timezone.split('|');
    df = new Intl.DateTimeFormat(locale, {
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      timeZone: tz,
      ...(unnamed ? {} : { timeZoneName: 'short' as const }),
    });
    dateFormats.set(key, df);
  }
  return df.format(at).replace(/[\u00a0\u202f]/g, ' ');
}

/** 0.11 -> "11%", 0.075 -> "7.5%" (locale digits). */
export function formatRate(rate: number, locale: string): string {
  let nf = percentFormats.get(locale);
  if (!nf) {
    nf = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 2 });
    percentFormats.set(locale, nf);
  }
  return nf.format(rate).replace(/[\u00a0\u202f]/g, ' ');
}

const integerFormats = new Map<string, Intl.NumberFormat>();
export function formatInteger(n: number, locale: string): string {
  let nf = integerFormats.get(locale);
  if (!nf) {
    nf = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
    integerFormats.set(locale, nf);
  }
  return nf.format(n);
}

/** An invoice view's totals rows (../totals.ts): what every layout of the invoice shows. */
export function invoiceTotalsOf(view: DocumentView) {
  const inv = view.invoice!;
  return invoiceTotals({
    subtotal: view.subtotal,
    tax: view.tax ? view.tax.amount : null,
    discount: inv.discount,
    discounts: inv.discounts,
    total: view.total,
    creditNotes: inv.creditNotes,
    balanceApplied: inv.balanceApplied,
    amountPaid: inv.amountPaid,
    amountDue: inv.amountDue,
  });
}

/** The strings a document shows, computed once per render and shared by every layout. */
export function documentText(view: DocumentView) {
  const L = labelsFor(view);
  const { accentColor, logoUrl } = view.merchant;
  const money = (amount: number) => formatMoney(amount, view.currency);
  const inv = view.invoice;
  const stamp = inv ? (L.stamps[inv.status] ?? null) : null;
  const cn = view.creditNote;
  const taxLine = view.tax
    ? cn
      ? L.taxReversed(view.tax.label)
      : view.tax.rate == null
        ? view.tax.label
        : `${view.tax.label} ${formatRate(view.tax.rate, view.locale)}`
    : null;
  // The totals block in reading order: rows above the grand total, then rows below it. An invoice's come
  // from its one totals model (../totals.ts); `strong` marks the row a layout emphasises (the amount due).
  const above: [string, string][] = [];
  const below: [string, string, boolean][] = [];
  if (inv && !cn) {
    for (const row of invoiceTotalsOf(view)) {
      const value = money(row.amount);
      if (row.kind === 'subtotal') above.push([L.subtotal, value]);
      else if (row.kind === 'discount') above.push([row.name ? `${L.discount}: ${row.name}` : L.discount, value]);
      else if (row.kind === 'tax') above.push([taxLine ?? '', value]);
      else if (row.kind === 'credit_note') below.push([`${L.creditNoteRow} ${row.number}`, value, false]);
      else if (row.kind === 'balance_applied') below.push([L.balanceApplied, value, false]);
      else if (row.kind === 'amount_paid') below.push([L.amountPaid, value, false]);
      else if (row.kind === 'amount_due') below.push([L.amountDue, value, true]);
      else if (row.kind === 'credit_note_after_payment')
        below.push([L.creditNoteAfterPayment(row.number), value, false]);
    }
  } else {
    if (view.tax || inv?.discount) above.push([L.subtotal, money(view.subtotal)]);
    // A credit note's share of its invoice's discount.
    if (inv?.discount) above.push([L.discount, money(-inv.discount)]);
    if (view.tax && taxLine) above.push([taxLine, money(view.tax.amount)]);
    // A credit note shows where its total went instead of what is paid and due.
    if (cn)
      for (const [label, amount] of [
        [L.prePaymentPart, cn.prePayment],
        [L.refundPart, cn.refund],
        [L.creditPart, cn.credit],
        [L.outOfBandPart, cn.outOfBand],
      ] as const)
        if (amount > 0) below.push([label, money(amount), true]);
  }
  const titled = {
    invoice: [L.invoice, L.invoiceSubject, L.invoiceIntro],
    credit_note: [L.creditNote, L.creditNoteSubject, L.creditNoteIntro],
  } as const;
  const [title, plainSubject, plainIntro] =
    view.kind === 'invoice' || view.kind === 'credit_note'
      ? titled[view.kind]
      : [L.receipt, L.emailSubject, L.emailIntro];
  // An invoice whose automatic charge waits for the customer is sent with the action notice (billing-email.ts).
  const action = inv?.waiting?.kind === 'action';
  const subject = action ? L.actionRequiredSubject : plainSubject;
  const intro = action ? L.actionRequiredIntro : plainIntro;
  return {
    L,
    money,
    /** "Struk"/"Receipt", "Faktur"/"Invoice" or "Nota Kredit"/"Credit Note". */
    title,
    /** DRAFT / PAID / VOID / PAST DUE on invoices; null on open invoices and receipts. */
    stamp,
    dueAt: inv?.dueAt ? formatDateTime(inv.dueAt, view.locale, view.timezone) : null,
    subject: subject(view.number, view.merchant.name),
    intro: intro(view.merchant.name),
    issuedAt: formatDateTime(view.issuedAt, view.locale, view.timezone),
    paidAt: view.paidAt ? formatDateTime(view.paidAt, view.locale, view.timezone) : null,
    taxLine,
    above,
    below,
    quantity: (q: number) => formatInteger(q, view.locale),
    // Views can be built by hand: these two reach CSS, a PDF colour and an <img src>, so check again.
    accent: /^#[0-9a-f]{6}$/i.test(accentColor) ? accentColor : DEFAULT_ACCENT_COLOR,
    logoUrl: logoUrl && /^https?:\/\/[^\s]+$/i.test(logoUrl) ? logoUrl : null,
  };
}
