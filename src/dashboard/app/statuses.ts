/**
 * The statuses the dashboard's screens compare and offer, read from the machines (src/core/state-machine.ts)
 * as everywhere else: the bundle takes these constants, not the server code around them.
 */
export { invoiceDraft, invoiceOpen, invoicePastDue, invoiceVoid } from '../../modules/invoices/states.ts';
export {
  paymentFailed,
  paymentPartiallyRefunded,
  paymentPending,
  paymentRefunded,
  paymentSucceeded,
} from '../../modules/payments/states.ts';
export { subscriptionActive, subscriptionCanceled, subscriptionPaused } from '../../modules/subscriptions/states.ts';
export { deliverySucceeded } from '../../modules/webhooks/states.ts';
