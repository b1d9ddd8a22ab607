import type { JobEntry } from './job.ts';
import { idempotencyPurge } from './idempotency-purge.ts';
import { sessionPurge } from './session-purge.ts';
import { checkoutExpiry } from './checkout-expiry.ts';
import { paymentMethodExpiry } from './payment-method-expiry.ts';
import { invoicePastDue } from './invoice-past-due.ts';
import { payoutSchedule } from './payout-schedule.ts';
import { webhookDelivery } from './webhook-delivery.ts';
import { webhookPurge } from './webhook-purge.ts';
import { eventRetention } from './event-retention.ts';
import { usageStorage } from './usage-storage.ts';
import { pendingSweep } from './pending-sweep.ts';
import { billingEmail } from './billing-email.ts';
import { testClockAdvance, testClockSweep } from './test-clock-advance.ts';
import { billingBatch, billingTick } from './billing-tick.ts';
import { invitationExpiry } from './invitation-expiry.ts';
import { workspacePurge } from './workspace-purge.ts';
import { reconciliationRun } from './reconciliation-run.ts';
import { reconciliationSweep } from './reconciliation-sweep.ts';

/**
 * Every queue the worker runs (jobs/job.ts says what an entry declares). The worker starts them in
 * this order, and the relay's fan-outs run in this order in each publishing transaction.
 */
export const jobTable: readonly JobEntry[] = [
  idempotencyPurge,
  sessionPurge,
  checkoutExpiry,
  paymentMethodExpiry,
  invoicePastDue,
  payoutSchedule,
  webhookDelivery,
  webhookPurge,
  eventRetention,
  usageStorage,
  pendingSweep,
  billingEmail,
  testClockAdvance,
  testClockSweep,
  billingTick,
  billingBatch,
  invitationExpiry,
  workspacePurge,
  reconciliationRun,
  reconciliationSweep,
];
