/**
 * Queue `billing-email` (spec Invoice pay: "receipt auto-issued and emailed"): the receipt of a paid
 * invoice is emailed after the payment commits, never inside it, so SMTP latency or failure cannot
 * block or roll back a payment (BILLING §2.5). The job is written in the outbox relay's publishing
 * transaction for each `svc.invoice.paid.v1` it publishes (jobs/worker.ts), so a paid invoice gets
 * its job exactly when its event is published, and a crash loses neither. A job that fails
 * (SMTP refused) is retried with backoff; without SMTP the message goes to the development outbox.
 */
import type pg from 'pg';
import type { PgBoss, Queue } from 'pg-boss';
import { config } from '../../core/config.ts';
import type { Mode } from '../../core/db/client.ts';
import { inTenant } from '../../core/db/client.ts';
import { clock } from '../../core/clock.ts';
import { newId } from '../../core/ids.ts';
import { logger } from '../../core/logger.ts';
import { onClient } from '../webhooks/queue.ts';
import { receiptViewIn } from '../receipts/service.ts';

export const BILLING_EMAIL_QUEUE = 'billing-email';
export const billingEmailQueue: Omit<Queue, 'name'> = {
  retryLimit: 6,
  retryDelay: 30,
  retryBackoff: true,
  expireInSeconds: 120,
  deleteAfterSeconds: 3600,
};

export interface BillingEmailJob {
  workspaceId: string;
  mode: Mode;
  invoiceId: string;
}

const PAID = 'svc.invoice.paid.v1';

/** Runs in the relay's publishing transaction: one `billing-email` job per paid invoice it published. */
export function billingEmailFanOut(boss: PgBoss) {
  return async (client: pg.ClientBase, events: { id: string; type: string }[]) => {
    const paid = events.filter((e) => e.type === PAID).map((e) => e.id);
    if (!paid.length) return;
    const { rows } = await client.query<BillingEmailJob>(
      `SELECT "workspaceId", mode, "objectId" AS "invoiceId" FROM events WHERE id = ANY($1::text[])`,
      [paid],
    );
    if (!rows.length) return;
    // singletonKey: one job per invoice even if its paid event were ever published twice.
    await boss.insert(
      BILLING_EMAIL_QUEUE,
      rows.map((data) => ({ data, singletonKey: `receipt:${data.invoiceId}` })),
      { db: onClient(client) },
    );
  };
}

/**
 * Emails the receipt of a paid invoice to its customer (no customer email: nothing to send). Sent
 * or kept in the outbox, the receipt records the send and the audit trail has it; an SMTP refusal
 * throws, so pg-boss retries the job.
 */
export async function sendInvoiceReceiptEmail(job: BillingEmailJob): Promise<'sent' | 'kept' | 'skipped'> {
  const scope = { workspaceId: job.workspaceId, mode: job.mode };
  const tenant = { workspaceId: job.workspaceId, modes: [job.mode] };
  const receipt = await inTenant(tenant, (tx) =>
    tx.receipt.findFirst({ where: { ...scope, sourceType: 'invoice', sourceId: job.invoiceId }, select: { id: true } }),
  );
  if (!receipt) return 'skipped';
  const { view } = await receiptViewIn(scope, receipt.id);
  if (!view.customer?.email) return 'skipped';
  const { sendDocumentEmail } = await import('../documents/render/email.ts');
  const result = await sendDocumentEmail(view, { outbox: config.mailOutboxDir });
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
