// Text every renderer shares: the fixed labels in the receipt's language, dates in its zone,
// amounts in its currency. Intl objects are cached: building one costs far more than using it.
import { formatMoney } from '../../../core/money.ts';
import { DEFAULT_ACCENT_COLOR, type ReceiptLanguage, type ReceiptView } from './view.ts';

const LABELS = {
  en: {
    receipt: 'Receipt',
    number: 'No.',
    issued: 'Date',
    paid: 'Paid',
    method: 'Payment',
    cashier: 'Cashier',
    reference: 'Reference',
    customer: 'Customer',
    item: 'Item',
    qty: 'Qty',
    unitPrice: 'Price',
    amount: 'Amount',
    subtotal: 'Subtotal',
    total: 'Total',
    taxId: 'Tax ID',
    taxIncluded: (label: string) => `Prices include ${label}`,
    testMode: 'TEST MODE - not a real payment',
    emailSubject: (number: string, merchant: string) => `Receipt ${number} from ${merchant}`,
    emailIntro: (merchant: string) => `Here is your receipt from ${merchant}. The PDF copy is attached.`,
  },
  id: {
    receipt: 'Struk',
    number: 'No.',
    issued: 'Tanggal',
    paid: 'Dibayar',
    method: 'Pembayaran',
    cashier: 'Kasir',
    reference: 'Referensi',
    customer: 'Pelanggan',
    item: 'Barang',
    qty: 'Jml',
    unitPrice: 'Harga',
    amount: 'Jumlah',
    subtotal: 'Subtotal',
    total: 'Total',
    taxId: 'NPWP',
    taxIncluded: (label: string) => `Harga sudah termasuk ${label}`,
    testMode: 'MODE UJI - bukan pembayaran sungguhan',
    emailSubject: (number: string, merchant: string) => `Struk ${number} dari ${merchant}`,
    emailIntro: (merchant: string) => `Berikut struk Anda dari ${merchant}. Salinan PDF terlampir.`,
  },
} as const;

export type Labels = (typeof LABELS)[ReceiptLanguage];
export const labelsFor = (view: Pick<ReceiptView, 'language'>): Labels => LABELS[view.language] ?? LABELS.en;

const dateFormats = new Map<string, Intl.DateTimeFormat>();
const percentFormats = new Map<string, Intl.NumberFormat>();

/** "5 Nov 2026, 10.04 WIB" (id-ID) or "Nov 5, 2026, 10:04 GMT+7" (en-US), 24-hour clock. */
export function formatDateTime(at: Date, locale: string, timezone: string): string {
  const key = `${locale}|${timezone}`;
  let df = dateFormats.get(key);
  if (!df) {
    df = new Intl.DateTimeFormat(locale, {
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      timeZone: timezone,
      timeZoneName: 'short',
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

/** The strings a receipt shows, computed once per render and shared by every layout. */
export function receiptText(view: ReceiptView) {
  const L = labelsFor(view);
  const { accentColor, logoUrl } = view.merchant;
  const money = (amount: number) => formatMoney(amount, view.currency);
  return {
    L,
    money,
    issuedAt: formatDateTime(view.issuedAt, view.locale, view.timezone),
    paidAt: view.paidAt ? formatDateTime(view.paidAt, view.locale, view.timezone) : null,
    taxLine: view.tax ? `${view.tax.label} ${formatRate(view.tax.rate, view.locale)}` : null,
    quantity: (q: number) => formatInteger(q, view.locale),
    // Views can be built by hand: these two reach CSS, a PDF colour and an <img src>, so check again.
    accent: /^#[0-9a-f]{6}$/i.test(accentColor) ? accentColor : DEFAULT_ACCENT_COLOR,
    logoUrl: logoUrl && /^https?:\/\/[^\s]+$/i.test(logoUrl) ? logoUrl : null,
  };
}
