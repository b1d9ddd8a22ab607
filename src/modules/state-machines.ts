/**
 * Every state machine (src/core/state-machine.ts), by resource: walked by
 * test/core/state-machines.test.ts, drawn into docs/states.md. A machine defined in a module's
 * `states.ts` and missing here fails that test.
 */
import { adapterMachine } from './adapters/states.ts';
import { checkoutAttemptMachine, checkoutSessionMachine } from './checkout-sessions/states.ts';
import { invoiceMachine } from './invoices/states.ts';
import { creditNoteMachine } from './credit-notes/states.ts';
import { discountMachine } from './discounts/states.ts';
import { meterMachine } from './meters/states.ts';
import { usageEventMachine } from './usage-events/states.ts';
import { memberMachine } from './members/states.ts';
import { payoutMachine } from './payouts/states.ts';
import { refundMachine } from './refunds/states.ts';
import { subscriptionMachine } from './subscriptions/states.ts';
import { paymentMachine } from './payments/states.ts';
import { paymentMethodMachine } from './payment-methods/states.ts';
import { setupAttemptMachine, setupSessionMachine } from './setup-sessions/states.ts';
import { batchMachine, importMachine, reconExceptionMachine, rowMachine, runMachine } from './reconciliation/states.ts';
import { testClockMachine } from './test-clocks/states.ts';
import { webhookDeliveryMachine, webhookEndpointMachine } from './webhooks/states.ts';

export const machines = {
  checkout_session: checkoutSessionMachine,
  checkout_attempt: checkoutAttemptMachine,
  payment: paymentMachine,
  refund: refundMachine,
  payout: payoutMachine,
  webhook_endpoint: webhookEndpointMachine,
  webhook_delivery: webhookDeliveryMachine,
  adapter: adapterMachine,
  invoice: invoiceMachine,
  subscription: subscriptionMachine,
  test_clock: testClockMachine,
  member: memberMachine,
  payment_method: paymentMethodMachine,
  credit_note: creditNoteMachine,
  setup_session: setupSessionMachine,
  setup_attempt: setupAttemptMachine,
  discount: discountMachine,
  meter: meterMachine,
  usage_event: usageEventMachine,
  reconciliation_import: importMachine,
  reconciliation_run: runMachine,
  reconciliation_row: rowMachine,
  settlement_batch: batchMachine,
  reconciliation_exception: reconExceptionMachine,
};
