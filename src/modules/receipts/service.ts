import type { Context } from '../../core/context.ts';
import { checkFormat, renderDocument } from '../documents/render/index.ts';
import type { Auth } from '../../core/auth/authenticate.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant } from '../../core/db/client.ts';
import { errorsFor } from '../../core/errors.ts';
import { keysetList, listPageSize } from '../../core/pagination.ts';
import { findScoped, scoped, type RowScope } from '../../core/resource.ts';
import { oneOf } from '../../core/validation.ts';
import { clock } from '../../core/clock.ts';
import { config } from '../../core/config.ts';
import { audit } from '../../core/audit.ts';
import { toWire } from '../../core/wire.ts';
import { receiptFields } from './fields.ts';
import { buildReceiptView, type ReceiptRecord } from './view.ts';
import type { ListReceiptsArgs } from './schema.ts';

const err = errorsFor('receipt');

export async function getReceipt(ctx: Context, id: string) {
  const auth = authorize(ctx, 'svc:checkout:read');
  return inTenant(tenant(auth), (tx) => findScoped(tx.receipt, auth, id, () => err.notFound('receipt')));
}

/** GET /v1/checkout-sessions/:id/receipt: the receipt issued for a completed session. */
export async function getSessionReceipt(ctx: Context, sessionId: string) {
  const auth = authorize(ctx, 'svc:checkout:read');
  const row = await inTenant(tenant(auth), async (tx) => {
    const own = await tx.receipt.findFirst({
      where: { ...scoped(auth), sourceType: 'checkout_session', sourceId: sessionId },
    });
    if (own) return own;
    // A session that paid an invoice issued the invoice's receipt (one per payment): found by its payment.
    const s = await tx.checkoutSession.findFirst({
      where: { ...scoped(auth), id: sessionId, invoiceId: { not: null } },
      select: { paymentId: true },
    });
    return s?.paymentId ? tx.receipt.findFirst({ where: { ...scoped(auth), paymentId: s.paymentId } }) : null;
  });
  if (!row) throw err.notFound('receipt');
  return row;
}

/** Newest first by issuedAt; issuedAfter and issuedBefore are inclusive (spec). */
export async function listReceipts(ctx: Context, args: ListReceiptsArgs) {
  const auth = authorize(ctx, 'svc:checkout:read');
  if (args.sourceType) oneOf(args.sourceType, ['checkout_session', 'invoice'] as const, 'sourceType', 'receipt');
  const filters = {
    sourceType: args.sourceType ?? null,
    customerId: args.customerId ?? null,
    issuedAfter: args.issuedAfter?.toISOString() ?? null,
    issuedBefore: args.issuedBefore?.toISOString() ?? null,
  };
  return keysetList(
    {
      args: { ...args, order: 'desc' },
      workspaceId: auth.workspaceId,
      filters,
      limit: listPageSize.receipts,
      column: 'issuedAt',
    },
    (ks) =>
      inTenant(tenant(auth), (tx) =>
        tx.receipt.findMany({
          where: {
            ...scoped(auth),
            ...(args.sourceType ? { sourceType: args.sourceType } : {}),
            ...(args.customerId ? { customerId: args.customerId } : {}),
            AND: [
              args.issuedAfter ? { issuedAt: { gte: args.issuedAfter } } : {},
              args.issuedBefore ? { issuedAt: { lte: args.issuedBefore } } : {},
              ks.where,
            ],
          },
          orderBy: ks.orderBy,
          take: ks.take,
        }),
      ),
  );
}

/** The frozen receipt as renderers see it: the spec's full object, in the workspace's time zone. */
async function viewOf(ctx: Context, id: string) {
  return receiptViewIn(authorize(ctx, 'svc:checkout:read'), id);
}

/** The same for a tenant scope (the billing-email job has no caller). */
export async function receiptViewIn(scope: RowScope, id: string) {
  const { row, timezone } = await inTenant({ workspaceId: scope.workspaceId, modes: [scope.mode] }, async (tx) => {
    const row = await findScoped(tx.receipt, scope, id, () => err.notFound('receipt'));
    const ws = await tx.workspace.findUniqueOrThrow({ where: { id: scope.workspaceId }, select: { timezone: true } });
    return { row, timezone: ws.timezone };
  });
  const record = toWire(row, receiptFields) as unknown as ReceiptRecord;
  return {
    row,
    view: buildReceiptView(record, { issuedAt: row.issuedAt, mode: row.mode as 'live' | 'test', timezone }),
  };
}

/** receipt.pdf, receipt.html and receipt.escpos (58 or 80 mm, 80 by default). */
export async function receiptDocument(ctx: Context, id: string, format: string, width?: number | null) {
  const kind = checkFormat(format, width, 'receipt');
  const { row, view } = await viewOf(ctx, id);
  return renderDocument(view, kind, row.number, width);
}

/**
 * POST /v1/receipts/:id/email: sends, then records the latest send on the (otherwise frozen)
 * receipt. Without SMTP (docs/billing.md, Email): 200 `{sent: false}` and the message kept in
 * the development outbox (config.mailOutboxDir), nothing recorded on the receipt. Every attempt is
 * in the audit trail.
 */
export async function emailReceipt(ctx: Context, id: string, to?: string | null) {
  const auth = authorize(ctx, 'svc:checkout:write');
  const { view } = await viewOf(ctx, id);
  // Over SMTP, test mode mails only known addresses; kept in the outbox, nothing leaves.
  if (config.smtpUrl && auth.mode === 'test' && to != null)
    await assertTestRecipient(auth, to, view.customer?.email ?? null);
  const audited = (action: string) => inTenant(tenant(auth), (tx) => audit(tx, auth, action, id, ctx.requestId));
  let sent: { sent: boolean; to: string };
  try {
    sent = await (await import('../documents/render/email.ts')).sendDocumentEmail(view, {
      to,
      outbox: config.mailOutboxDir,
    });
  } catch (e) {
    if ((e as { canonical?: string }).canonical === 'email_failed') await audited('receipt.email_failed');
    throw e;
  }
  await inTenant(tenant(auth), async (tx) => {
    if (sent.sent) await tx.receipt.update({ where: { id }, data: { emailedAt: clock.now(), emailedTo: sent.to } });
    await audit(tx, auth, sent.sent ? 'receipt.email_sent' : 'receipt.email_kept', id, ctx.requestId);
  });
  return { sent: sent.sent, to: sent.to };
}

/**
 * Test mode is free and unverified, so it must not mail arbitrary addresses through our SMTP: a
 * test receipt goes only to its customer's email or to an address the workspace verified
 * itself (a joined member's email or its businessEmail). Live mode mails any valid `to` (spec).
 */
export async function assertTestRecipient(
  auth: Auth,
  to: string,
  customerEmail: string | null,
  resource: 'receipt' | 'invoice' = 'receipt',
) {
  const address = to.trim().toLowerCase();
  if (address && address === customerEmail?.trim().toLowerCase()) return;
  const known = await inTenant(tenant(auth), async (tx) => {
    const member = await tx.member.findFirst({
      where: {
        workspaceId: auth.workspaceId,
        email: { equals: address, mode: 'insensitive' },
        removedAt: null,
        joinedAt: { not: null },
      },
      select: { id: true },
    });
    if (member) return true;
    const ws = await tx.workspace.findUniqueOrThrow({
      where: { id: auth.workspaceId },
      select: { businessEmail: true },
    });
    return ws.businessEmail?.trim().toLowerCase() === address;
  });
  if (!known) {
    throw errorsFor(resource).validation(
      'to',
      `In test mode a ${resource} is emailed only to its customer's email or to the workspace's own addresses ` +
        '(its members and businessEmail)',
    );
  }
}
