import type { ReceiptView } from '../../src/modules/receipts/view.ts';
import { DEFAULT_THANK_YOU_TEXT } from '../../src/modules/receipts/view.ts';

/** A paid IDR receipt with PPN included, three items, a cashier and a customer. */
export function sampleReceiptView(over: Partial<ReceiptView> = {}): ReceiptView {
  const lineItems = [
    { name: 'Kopi Susu Gula Aren', quantity: 2, unitAmount: 25_000, amount: 50_000 },
    {
      name: 'Nasi Goreng Spesial dengan Telur Mata Sapi dan Kerupuk Udang',
      quantity: 1,
      unitAmount: 65_000,
      amount: 65_000,
    },
    { name: 'Air Mineral', quantity: 5, unitAmount: 7_000, amount: 35_000 },
  ];
  const total = 150_000;
  const tax = Math.round((total * 0.11) / 1.11); // 14865
  return {
    id: 'rcpt_01JCKZ3V6Q8Y2X4W5T7R9P0M1N',
    number: 'SVC-RCPT-2026-11-0001',
    mode: 'live',
    language: 'id',
    locale: 'id-ID',
    timezone: 'Asia/Jakarta',
    issuedAt: new Date('2026-11-05T03:04:05.000Z'),
    paidAt: new Date('2026-11-05T03:03:59.000Z'),
    currency: 'IDR',
    merchant: {
      name: 'Warung Kopi Nusantara',
      tagline: 'Kopi dan makanan khas Indonesia',
      address: 'Jl. Sudirman No. 1\nJakarta Pusat 10220',
      taxId: '01.234.567.8-901.000',
      logoUrl: null,
      accentColor: '#0f766e',
    },
    customer: { name: 'Budi Santoso', email: 'budi@example.com', phone: null },
    lineItems,
    subtotal: total - tax,
    tax: { label: 'PPN', rate: 0.11, amount: tax, included: true },
    total,
    paymentMethodLabel: 'QRIS',
    cashierName: 'Siti Rahma',
    reference: 'cs_01JCKZ2F0AB1CD2EF3GH4JK5MN',
    thankYouText: DEFAULT_THANK_YOU_TEXT,
    footerText: 'Barang yang sudah dibeli tidak dapat ditukar.',
    ...over,
  };
}

/** A USD receipt without tax, customer or cashier. */
export function sampleUsdView(over: Partial<ReceiptView> = {}): ReceiptView {
  return sampleReceiptView({
    number: 'SVC-RCPT-2026-11-0002',
    language: 'en',
    locale: 'en-US',
    timezone: 'UTC',
    currency: 'USD',
    lineItems: [
      { name: 'Pro plan (monthly)', quantity: 1, unitAmount: 1234, amount: 1234 },
      { name: 'Extra seat', quantity: 3, unitAmount: 500, amount: 1500 },
    ],
    subtotal: 2734,
    tax: null,
    total: 2734,
    customer: null,
    cashierName: null,
    paymentMethodLabel: 'Card',
    ...over,
  });
}
