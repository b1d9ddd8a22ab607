import type { Context } from '../../core/context.ts';
import { checkFormat, renderDocument } from '../documents/render/index.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant, type Mode, type Tx } from '../../core/db/client.ts';
import { errorsFor } from '../../core/errors.ts';
import { keysetList } from '../../core/pagination.ts';
import { findScoped, scoped, type RowScope } from '../../core/resource.ts';
import { clock } from '../../core/clock.ts';
import { config } from '../../core/config.ts';
import { audit } from '../../core/audit.ts';
import { toWire } from '../../core/wire.ts';
import { type Language, workspaceLanguage } from '../../core/i18n/index.ts';
import { receiptFields } from './fields.ts';
import { buildReceiptView, type ReceiptRecord } from './view.ts';
import type { ListReceiptsArgs } from './schema.ts';
import { receiptList } from './list.ts';

const err = errorsFor('receipt');

export async function getReceipt(ctx: Context, id: string) {
  const auth = authorize(ctx, 'svc:checkout:read');
  return inTenant(tenant(auth), (tx) => findScoped(tx.receipt, auth, id, () => err.notFound('receipt')));
}

/** GET /v1/checkout-sessions/:id/receipt: the receipt issued for a completed session. */
export async function getSessionReceipt(ctx: Context, sessionId: string) {
  const auth = authorize(ctx, 'svc:checkout:read');
  const row = await inTenant(tenant(auth), (tx) => sessionReceiptIn(tx, auth, sessionId));
  if (!row) throw err.notFound('receipt');
  return row;
}

/** The receipt a session issued (its own, or the invoice's it paid), or null; also the hosted page's. */
export async function sessionReceiptIn(tx: Tx, scope: RowScope, sessionId: string) {
  const own = await tx.receipt.findFirst({
    where: { ...scoped(scope), sourceType: 'checkout_session', sourceId: sessionId },
  });
  if (own) return own;
  // A session that paid an invoice issued the invoice's receipt (one per payment): found by its payment.
  const s = await tx.checkoutSession.findFirst({
    where: { ...scoped(scope), id: sessionId, invoiceId: { not: null } },
    select: { paymentId: true },
  });
  return s?.paymentId ? tx.receipt.findFirst({ where: { ...scoped(scope), paymentId: s.paymentId } }) : null;
}

/** Newest first by issuedAt; issuedAfter and issuedBefore are inclusive (spec). */
export async function listReceipts(ctx: Context, args: ListReceiptsArgs) {
  const auth = authorize(ctx, 'svc:checkout:read');
  receiptList.check(args);
  const filters = receiptList.values(args);
  return keysetList(
    {
      args: receiptList.paged(args),
      workspaceId: auth.workspaceId,
      filters,
      limit: receiptList.limit,
      column: receiptList.position,
    },
    (ks) =>
      inTenant(tenant(auth), (tx) =>
        tx.receipt.findMany({
          where: { ...scoped(auth), AND: [...receiptList.prisma(args), ks.where] },
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
export async function receiptViewIn(scope: RowScope, id: string, pick?: (workspace: Language) => Language) {
  const { row, timezone, defaultCurrency } = await inTenant(
    { workspaceId: scope.workspaceId, modes: [scope.mode] },
    async (tx) => {
      const row = await findScoped(tx.receipt, scope, id, () => err.notFound('receipt'));
      const ws = await tx.workspace.findUniqueOrThrow({
        where: { id: scope.workspaceId },
        select: { timezone: true, defaultCurrency: true },
      });
      return { row, ...ws };
    },
  );
  const record = toWire(row, receiptFields) as unknown as ReceiptRecord;
  // No browser (PDF, email, the API's download): the workspace's language (docs/decisions.md, Customer
  // language); a hosted page picks from the request (`pick`).
  const workspace = workspaceLanguage(defaultCurrency);
  const language = pick ? pick(workspace) : workspace;
  return {
    row,
    language,
    view: buildReceiptView(record, { issuedAt: row.issuedAt, mode: row.mode as 'live' | 'test', timezone, language }),
  };
}

/** receipt.pdf, receipt.html and receipt.escpos (58 or 80 mm, 80 by default). */
export async function receiptDocument(ctx: Context, id: string, format: string, width?: number | null) {
  // The scope before the input: a key without it learns nothing from the answer.
  const auth = authorize(ctx, 'svc:checkout:read');
  const kind = checkFormat(format, width, 'receipt');
  const { row, view } = await receiptViewIn(auth, id);
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
  const { recipientOf, sendDocumentEmail } = await import('../documents/render/email.ts');
  // Test mode over SMTP: an explicit stranger is refused; the customer's own email, unless a
  // member's, is kept in the outbox instead of sent (testModeMayMail).
  if (to != null) await assertTestRecipient(auth, to);
  const keep = !(await testModeMayMail(auth, recipientOf(view, to)));
  const audited = (action: string) => inTenant(tenant(auth), (tx) => audit(tx, auth, action, id, ctx.requestId));
  let sent: { sent: boolean; to: string };
  try {
    sent = await sendDocumentEmail(view, { to, outbox: config.mailOutboxDir, keep });
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
 * Test mode is free and unverified, so over SMTP it mails only addresses the workspace proved it
 * reads: a joined member's (the invitation link sent there was opened). A customer's email and
 * `businessEmail` are whatever the merchant typed, so a test workspace could mail anyone through
 * them (docs/security.md). Live mode mails any valid address (spec). Without SMTP everything is
 * kept in the development outbox and nothing leaves.
 */
export async function testModeMayMail(scope: { workspaceId: string; mode: Mode }, address: string) {
  if (!config.smtpUrl || scope.mode !== 'test') return true;
  const member = await inTenant({ workspaceId: scope.workspaceId, modes: [scope.mode] }, (tx) =>
    tx.member.findFirst({
      where: {
        workspaceId: scope.workspaceId,
        email: { equals: address.trim(), mode: 'insensitive' },
        removedAt: null,
        joinedAt: { not: null },
      },
      select: { id: true },
    }),
  );
  return !!member;
}

/** An explicit `to` that test mode may not mail: 400 naming the rule. */
export async function assertTestRecipient(
  scope: { workspaceId: string; mode: Mode },
  to: string,
  resource: 'receipt' | 'invoice' | 'credit_note' = 'receipt',
) {
  if (await testModeMayMail(scope, to)) return;
  throw errorsFor(resource).validation(
    'to',
    `In test mode a ${resource.replace('_', ' ')} is emailed only to the workspace's joined members; other addresses ` +
      'get it in the development outbox (without SMTP_URL), or use live mode',
  );
}
