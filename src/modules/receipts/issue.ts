import { columns, sql as q, toJson, type Fragment, type Sql } from '../../core/db/sql.ts';
import { counterNames, nextCounterSql, numberSql, receiptPrefix } from '../../core/counters.ts';
import { newId } from '../../core/ids.ts';
import { messages } from '../../core/i18n/index.ts';
import { methodReceiptLabel } from '../adapters/display.ts';
import {
  DEFAULT_TAX_LABEL,
  DEFAULT_TAX_RATE,
  DEFAULT_THANK_YOU_TEXT,
  DEFAULT_ACCENT_COLOR,
} from '../documents/view.ts';
import type { CheckoutSession, Invoice, InvoiceLine, Payment } from '../../generated/prisma/client.ts';
import type { RowScope } from '../../core/resource.ts';

/**
 * spec Receipt: issued in the completion transaction, frozen from then on. Prepared first (reads
 * and the tax split), numbered last: the workspace's gapless counter is a row lock held to commit,
 * so taking it at the end keeps concurrent completions queued for as short a time as possible.
 * The unique (workspace, sourceType, sourceId) key makes a second issue for the same source impossible.
 */
export function prepareSessionReceipt(
  scope: RowScope,
  c: ReceiptContext,
  s: CheckoutSession,
  payment: Payment,
  issuedAt: Date,
) {
  const { workspace, template, customer } = c;
  const total = Number(s.amount);
  const showTax = template?.showTax ?? false;
  const taxRate = showTax ? Number(template?.taxRate ?? DEFAULT_TAX_RATE) : 0;
  // spec: prices include tax; taxAmount = round(total x rate / (1 + rate)).
  const taxAmount = showTax ? Math.round((total * taxRate) / (1 + taxRate)) : 0;
  const items = (s.lineItems as { name: string; quantity: number; unitAmount: number }[]).map((i) => ({
    name: i.name,
    qty: i.quantity,
    unitPrice: i.unitAmount,
    subtotal: i.quantity * i.unitAmount,
  }));
  const metadata = (s.metadata ?? {}) as Record<string, string>;
  return {
    id: newId('receipt'),
    workspaceId: scope.workspaceId,
    mode: scope.mode,
    sourceType: 'checkout_session',
    sourceId: s.id,
    paymentId: payment.id,
    customerId: s.customerId,
    templateId: template?.id ?? null,
    status: 'completed',
    paidAt: payment.capturedAt,
    amount: s.amount,
    currency: s.currency,
    method: payment.method,
    methodLabel: payment.method ? methodReceiptLabel(payment.method) : null,
    adapter: payment.adapter === 'provider_a_platform' ? 'provider_a' : payment.adapter,
    customer: customer ? { name: customer.name, email: customer.email, phone: customer.phone } : undefined,
    merchant: {
      name: workspace.brandName ?? workspace.name,
      logoUrl: template?.logoUrl ?? null,
      accentColor: template?.accentColor ?? DEFAULT_ACCENT_COLOR,
      tagline: template?.tagline ?? null,
      address: template?.merchantAddress ?? null,
      taxId: template?.merchantTaxId ?? null,
    },
    lineItems: items,
    subtotal: BigInt(total - taxAmount),
    taxAmount: BigInt(taxAmount),
    total: s.amount,
    template: {
      footerText: template?.footerText ?? null,
      thankYouText: template?.thankYouText ?? DEFAULT_THANK_YOU_TEXT,
      showTax,
      taxLabel: template?.taxLabel ?? DEFAULT_TAX_LABEL,
      taxRate,
      cashierLabel: metadata.cashierName ?? template?.cashierLabel ?? null,
      showMerchantAddress: template?.showMerchantAddress ?? true,
      merchantAddress: template?.merchantAddress ?? null,
      merchantTaxId: template?.merchantTaxId ?? null,
    },
    issuedAt,
  };
}

export type PreparedReceipt = ReturnType<typeof prepareSessionReceipt>;

/**
 * The receipt of a paid invoice (docs/billing.md, Receipts: one per invoice, `sourceType: invoice`). The invoice's
 * tax is copied, not recomputed; `subtotal` is the total less that tax, so a discount shows as a
 * negative line and the lines still add up to the total.
 */
export function prepareInvoiceReceipt(
  scope: RowScope,
  c: ReceiptContext,
  inv: Invoice & { lines: InvoiceLine[] },
  payment: Pick<Payment, 'id' | 'method' | 'adapter' | 'capturedAt'>,
  issuedAt: Date,
): PreparedReceipt {
  const base = prepareSessionReceipt(
    scope,
    { ...c, template: c.template ? { ...c.template, showTax: false } : null },
    {
      id: inv.id,
      customerId: inv.customerId,
      // What is paid: the total less pre-payment credit notes and balance applied (docs/credit-notes.md,
      // Invoice amounts).
      amount: inv.amountDue,
      currency: inv.currency,
      lineItems: inv.lines.map((l) => ({
        name: l.description,
        quantity: l.quantity,
        unitAmount: Number(l.unitAmount),
      })),
      metadata: null,
    } as unknown as CheckoutSession,
    payment as Payment,
    issuedAt,
  );
  const items = [...base.lineItems];
  if (inv.discount > 0n)
    items.push({ name: 'Discount', qty: 1, unitPrice: -Number(inv.discount), subtotal: -Number(inv.discount) });
  const credited = inv.prePaymentCreditedAmount;
  if (credited > 0n)
    items.push({ name: 'Credit notes', qty: 1, unitPrice: -Number(credited), subtotal: -Number(credited) });
  // Paid from the customer balance at finalization: not part of this payment either (named in English as the
  // lines above; docs/billing.md, Receipts).
  if (inv.balanceApplied > 0n)
    items.push({
      name: messages('en').doc.balanceApplied,
      qty: 1,
      unitPrice: -Number(inv.balanceApplied),
      subtotal: -Number(inv.balanceApplied),
    });
  // The invoice's flat tax less what its credit notes reversed (never more than what is paid).
  const owed = inv.tax - inv.prePaymentCreditedTax;
  // biome-ignore lint/complexity/useMathMinMax: bigint (Math.min takes numbers)
  const tax = owed < inv.amountDue ? owed : inv.amountDue;
  return {
    ...base,
    sourceType: 'invoice',
    status: 'paid',
    templateId: c.template?.id ?? null,
    lineItems: items,
    subtotal: inv.amountDue - tax,
    taxAmount: tax,
    template: { ...base.template, showTax: tax > 0n },
  };
}

/** What a receipt copies from its workspace, template and customer (template fields as stored). */
export interface ReceiptContext {
  workspace: { accountId: string; name: string; brandName: string | null };
  template: Record<string, any> | null;
  customer: { name: string | null; email: string | null; phone: string | null } | null;
}

/**
 * The receipt context as one jsonb expression: the workspace, the session's template (or the
 * workspace's default receipt template) and customer. A template gone since the session was
 * created falls back to the defaults: a paid session always gets its receipt. The arguments are
 * values or the enclosing statement's columns (fragments), so a hot statement can carry it.
 */
export const receiptContextSql = (
  ws: string,
  mode: string,
  templateId: Fragment,
  customerId: Fragment,
): Fragment => q`(SELECT jsonb_build_object(
    'workspace', jsonb_build_object('accountId', w."accountId", 'name', w.name, 'brandName', w."brandName"),
    'template', (SELECT to_jsonb(t) FROM templates t
      WHERE t."workspaceId" = w.id AND t.mode = ${mode} AND t.kind = 'receipt'
      AND (t.id = ${templateId} OR (${templateId} IS NULL AND t."isDefault")) LIMIT 1),
    'customer', (SELECT jsonb_build_object('name', c.name, 'email', c.email, 'phone', c.phone) FROM customers c
      WHERE c.id = ${customerId} AND c."workspaceId" = w.id AND c.mode = ${mode}))
  FROM workspaces w WHERE w.id = ${ws})`;

/** One statement's read of the receipt context (see receiptContextSql). */
export async function receiptContext(
  sql: Sql,
  scope: RowScope,
  templateId: string | null,
  customerId: string | null,
): Promise<ReceiptContext> {
  const [row] = await sql.query<{ context: ReceiptContext }>(
    q`SELECT
      ${receiptContextSql(scope.workspaceId, scope.mode, q`${templateId}::text`, q`${customerId}::text`)} AS context`,
  );
  return row.context;
}

/**
 * The receipt contexts of several customers of one workspace and mode in one statement (a batch of
 * paid invoices; the workspace's default receipt template), by customer id.
 */
export async function receiptContexts(
  sql: Sql,
  scope: RowScope,
  customerIds: (string | null)[],
): Promise<Map<string | null, ReceiptContext>> {
  const ids = [...new Set(customerIds)];
  const rows = await sql.query<{ customerId: string | null; context: ReceiptContext }>(
    q`SELECT k.id AS "customerId",
      ${receiptContextSql(scope.workspaceId, scope.mode, q`${null}::text`, q`k.id`)} AS context
      FROM unnest(${ids}::text[]) AS k(id)`,
  );
  return new Map(rows.map((r) => [r.customerId, r.context]));
}

/**
 * WITH-list entries that number a prepared receipt from the workspace's gapless counter and
 * insert it. The counter's row lock serialises every completion of the workspace until commit, so
 * it is taken last: after the relation `after` (the statement's other writes) has been read.
 */
export const issueReceiptCte = (r: PreparedReceipt, after: string): Fragment => issueReceiptsCte([r], after);

/**
 * `issueReceiptCte` for several receipts of one workspace, mode and month of issue (a settled batch):
 * one counter bump of `n`, numbered in the order given; `issued_receipt` returns `sourceId, number`.
 */
export function issueReceiptsCte(rs: PreparedReceipt[], after: string): Fragment {
  const r = rs[0];
  const n = rs.length;
  return q`
  receipt_number AS (${nextCounterSql(r.workspaceId, r.mode, counterNames.receipt, after, n)}),
  issued_receipt AS (
    INSERT INTO receipts (${columns(r)}, number)
    SELECT ${columns(r, 'r')}, ${numberSql(receiptPrefix(r.issuedAt), q`(n.value - ${n}::bigint + r.ordinality)`)}
    FROM jsonb_populate_recordset(NULL::receipts, ${toJson(rs)}::jsonb) WITH ORDINALITY AS r, receipt_number n
    RETURNING "sourceId", number)`;
}
