/**
 * Queue `billing-email` (spec Invoice pay: "receipt auto-issued and emailed"): the receipt of a paid
 * invoice is emailed after the payment commits, never inside it, so SMTP latency or failure cannot
 * block or roll back a payment (docs/billing.md, Email). The jobs are written in the outbox relay's publishing
 * transaction for the `svc.invoice.paid.v1` events it publishes (jobs/billing-email.ts, fromRelay), one job per workspace,
 * mode and up to 100 invoices, so a paid invoice is in a job exactly when its event is published, a
 * crash loses neither, and a renewal burst adds a job row per hundred renewals. A job that fails
 * (SMTP refused) is retried with backoff; without SMTP the message goes to the development outbox.
 */
import type pg from 'pg';
import type { PgBoss, Queue } from 'pg-boss';
import { config } from '../../core/config.ts';
import type { Mode } from '../../core/db/client.ts';
import { inTenant } from '../../core/db/client.ts';
import { clock } from '../../core/clock.ts';
import { Sweep } from '../../core/sweep.ts';
import { newId } from '../../core/ids.ts';
import { logger } from '../../core/logger.ts';
import { onClient } from '../webhooks/queue.ts';
import { receiptViewIn, testModeMayMail } from '../receipts/service.ts';
import { nextState } from '../../core/state-machine.ts';
import { invoiceMachine, invoiceOpen } from './states.ts';
import { paymentRequiresAction } from '../payments/states.ts';

export const BILLING_EMAIL_QUEUE = 'billing-email';
export const billingEmailQueue: Omit<Queue, 'name'> = {
  retryLimit: 6,
  retryDelay: 30,
  retryBackoff: true,
  expireInSeconds: 600,
  deleteAfterSeconds: 3600,
};

/**
 * One job: the invoices of one workspace and mode that one relay pass published (at most
 * EMAILS_PER_JOB) for one kind: `receipt` (paid; the default of jobs written before kinds) or
 * `action_required` (an automatic charge waits for the customer: the hosted invoice link).
 */
export interface BillingEmailJob {
  workspaceId: string;
  mode: Mode;
  invoiceIds: string[];
  kind?: BillingEmailKind;
}
export type BillingEmailKind = 'receipt' | 'action_required';

/** The event of the invoice's pay move (states.ts): the relay hands these over. */
const PAID = nextState(invoiceMachine, invoiceOpen, 'pay').events[0];
/** The event of a charge waiting for the customer (collection/collect.ts recordActionRequired). */
const ACTION_REQUIRED = 'svc.invoice.payment_action_required.v1';
const kindOf: Record<string, BillingEmailKind> = { [PAID]: 'receipt', [ACTION_REQUIRED]: 'action_required' };
/**
 * Invoices per job: a renewal burst of N paid invoices writes about N / 100 job rows, not N (pg-boss
 * degrades with its job table: docs/billing.md, Jobs; docs/decisions.md, Renewal bursts).
 */
export const EMAILS_PER_JOB = 100;

/**
 * Runs in the relay's publishing transaction: `billing-email` jobs for the paid invoices it published
 * (receipts) and for the invoices whose charge waits for the customer (`action_required`).
 */
export function billingEmailFanOut(boss: PgBoss) {
  return async (client: pg.ClientBase, events: { id: string; type: string }[]) => {
    const mailed = events.filter((e) => kindOf[e.type]).map((e) => e.id);
    if (!mailed.length) return;
    const { rows } = await client.query<{ workspaceId: string; mode: Mode; invoiceId: string; type: string }>(
      `SELECT "workspaceId", mode, "objectId" AS "invoiceId", type FROM events WHERE id = ANY($1::text[]) ORDER BY id`,
      [mailed],
    );
    const jobs: BillingEmailJob[] = [];
    const open = new Map<string, BillingEmailJob>();
    for (const r of rows) {
      const kind = kindOf[r.type];
      const key = `${r.workspaceId}:${r.mode}:${kind}`;
      let job = open.get(key);
      if (!job || job.invoiceIds.length >= EMAILS_PER_JOB) {
        // Receipt jobs keep their shape (no kind): a worker of the previous version still reads them.
        job = { workspaceId: r.workspaceId, mode: r.mode, invoiceIds: [], ...(kind === 'receipt' ? {} : { kind }) };
        open.set(key, job);
        jobs.push(job);
      }
      job.invoiceIds.push(r.invoiceId);
    }
    if (jobs.length)
      await boss.insert(
        BILLING_EMAIL_QUEUE,
        jobs.map((data) => ({ data })),
        { db: onClient(client) },
      );
  };
}

/**
 * A job's receipts, one after another. A receipt already sent (`emailedAt`: a retried job, or a paid
 * event published twice) is not sent again; a refusal is rethrown after the others were tried, so
 * pg-boss retries the job for the ones that failed.
 */
export async function sendInvoiceReceiptEmails(job: BillingEmailJob) {
  const failed: string[] = [];
  // A job written before jobs carried lists names one invoice.
  const legacy = (job as { invoiceId?: string }).invoiceId;
  // Each invoice alone; a failure is quarantined (visible in /metrics), retried by the queue's backoff.
  const sweep = await Sweep.one('billing_email', job);
  const send = job.kind === 'action_required' ? sendActionRequiredEmail : sendInvoiceReceiptEmail;
  for (const invoiceId of job.invoiceIds ?? (legacy ? [legacy] : [])) {
    const row = { workspaceId: job.workspaceId, mode: job.mode, id: invoiceId };
    const sent = await sweep.row(row, () => send({ ...row, invoiceId }), { retries: 'queue' });
    if (sent === undefined) failed.push(invoiceId);
  }
  if (failed.length) throw new Error(`invoice receipt emails failed: ${failed.join(', ')}`);
}

/**
 * Emails the receipt of a paid invoice to its customer (no customer email: nothing to send). Sent
 * or kept in the outbox, the receipt records the send and the audit trail has it; an SMTP refusal
 * throws, so pg-boss retries the job.
 */
export async function sendInvoiceReceiptEmail(job: {
  workspaceId: string;
  mode: Mode;
  invoiceId: string;
}): Promise<'sent' | 'kept' | 'skipped'> {
  const scope = { workspaceId: job.workspaceId, mode: job.mode };
  const tenant = { workspaceId: job.workspaceId, modes: [job.mode] };
  const receipt = await inTenant(tenant, (tx) =>
    tx.receipt.findFirst({
      where: { ...scope, sourceType: 'invoice', sourceId: job.invoiceId },
      select: { id: true, emailedAt: true, customer: true },
    }),
  );
  // No customer email on the frozen receipt: nothing to send, and no view to build (a burst's many receipts).
  const email = (receipt?.customer as { email?: string | null } | null)?.email?.trim();
  if (!receipt || receipt.emailedAt || !email) return 'skipped';
  const { view } = await receiptViewIn(scope, receipt.id);
  if (!view.customer?.email) return 'skipped';
  const { sendDocumentEmail } = await import('../documents/render/email.ts');
  // Test mode mails only joined members; the customer's email otherwise goes to the outbox.
  const keep = !(await testModeMayMail(scope, view.customer.email));
  const result = await sendDocumentEmail(view, { outbox: config.mailOutboxDir, keep });
  await inTenant(tenant, async (tx) => {
    if (result.sent)
      await tx.receipt.update({ where: { id: receipt.id }, data: { emailedAt: clock.now(), emailedTo: result.to } });
    await tx.auditLog.create({
      data: {
        id: newId('auditLog'),
        ...scope,
        actorKeyId: null,
        actorMember: null,
        action: result.sent ? 'receipt.email_sent' : 'receipt.email_kept',
        targetId: receipt.id,
        requestId: null,
      },
    });
  });
  logger.info({ invoice: job.invoiceId, receipt: receipt.id, sent: result.sent }, 'invoice receipt emailed');
  return result.sent ? 'sent' : 'kept';
}

/**
 * Emails the hosted invoice link of an invoice whose automatic charge waits for the customer's
 * authentication (docs/guides/payment-methods.md, Requires action), in the workspace's language
 * (Indonesian or English): the invoice document with the action notice and a confirm (`doc.confirmPayment`)
 * button to the hosted page. Nothing is sent once no charge of the invoice waits (a retried job
 * after the customer acted), or without a customer email. Audited like the invoice email.
 */
export async function sendActionRequiredEmail(job: {
  workspaceId: string;
  mode: Mode;
  invoiceId: string;
}): Promise<'sent' | 'kept' | 'skipped'> {
  const scope = { workspaceId: job.workspaceId, mode: job.mode };
  const tenant = { workspaceId: job.workspaceId, modes: [job.mode] };
  const waiting = await inTenant(tenant, (tx) =>
    tx.payment.findFirst({
      where: { ...scope, invoiceId: job.invoiceId, status: paymentRequiresAction },
      select: { id: true },
    }),
  );
  if (!waiting) return 'skipped';
  const { loadInvoiceView } = await import('./documents.ts');
  const { view } = await loadInvoiceView(scope, job.invoiceId);
  const email = view.customer?.email?.trim();
  if (!email || !view.invoice?.payUrl) return 'skipped';
  view.invoice = { ...view.invoice, waiting: { kind: 'action', confirmUrl: null } };
  const { sendDocumentEmail } = await import('../documents/render/email.ts');
  const keep = !(await testModeMayMail(scope, email));
  const result = await sendDocumentEmail(view, { outbox: config.mailOutboxDir, keep });
  await inTenant(tenant, (tx) =>
    tx.auditLog.create({
      data: {
        id: newId('auditLog'),
        ...scope,
        actorKeyId: null,
        actorMember: null,
        action: result.sent ? 'invoice.action_required_email_sent' : 'invoice.action_required_email_kept',
        targetId: job.invoiceId,
        requestId: null,
      },
    }),
  );
  logger.info({ invoice: job.invoiceId, payment: waiting.id, sent: result.sent }, 'action required emailed');
  return result.sent ? 'sent' : 'kept';
}
