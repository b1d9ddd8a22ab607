/**
 * What customers read for a payment method: on the checkout page, its instructions, receipts and
 * invoice documents. One table, so no page shows an internal word: `provider_c` is an adapter
 * kind and a method id in the API (spec), never a name a customer knows (issue 26).
 */
import type { PaymentMethod } from './capabilities.ts';

export const methodDisplay: Record<PaymentMethod, { label: string; receiptLabel: string; hint: string }> = {
  qris: { label: 'QRIS', receiptLabel: 'QRIS', hint: 'Scan with any Indonesian banking or e-wallet app' },
  va: {
    label: 'Bank transfer (virtual account)',
    receiptLabel: 'Virtual account',
    hint: 'Transfer from your bank app or ATM',
  },
  ewallet: { label: 'E-wallet', receiptLabel: 'E-wallet', hint: 'GoPay, OVO, DANA, ShopeePay' },
  card: { label: 'Card', receiptLabel: 'Card', hint: 'Visa, Mastercard' },
  retail: { label: 'Retail outlet', receiptLabel: 'Retail outlet', hint: 'Pay at Alfamart or Indomaret' },
  provider_c: {
    label: 'International wallet',
    receiptLabel: 'International wallet',
    hint: 'Pay from your wallet balance, or in 4 instalments',
  },
};

/** The receipt's label of a method id (an unknown one as is: older rows, manual bank transfers). */
export const methodReceiptLabel = (method: string): string =>
  (methodDisplay as Record<string, { receiptLabel: string }>)[method]?.receiptLabel ?? method;
