import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant, tenantQuery } from '../../core/db/client.ts';
import { insertRows, sql as q, sqlOf, tenantTx, updateRow, type Sql } from '../../core/db/sql.ts';
import { claimOperation } from '../../core/operations.ts';
import { errorsFor } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import { clock } from '../../core/clock.ts';
import { isCurrency } from '../../core/money.ts';
import { keysetSql, pageRequest, toConnection } from '../../core/pagination.ts';
import { scoped, type RowScope } from '../../core/resource.ts';
import { checkCurrency, validateMetadata } from '../../core/validation.ts';
import { nextState } from '../../core/state-machine.ts';
import type { Invoice, InvoiceLine } from '../../generated/prisma/client.ts';
import { templateForUse } from '../templates/service.ts';
import type { InvoiceRow } from './fields.ts';
import {
  finalizeLocked,
  invoiceLines,
  lockInvoice,
  moveInvoice,
  settleInvoice,
  writeDrafts,
  type MoveOptions,
} from './issue.ts';
import {
  invoiceDraft,
  invoiceIssuedUnpaid,
  invoiceMachine,
  invoiceOpen,
  invoiceVoid,
  type InvoiceTrigger,
} from './states.ts';
import type { CreateInvoiceInput, ListInvoicesArgs, UpdateInvoiceInput } from './schema.ts';
import { invoiceList } from './list.ts';
import { isVoidHeld } from './hooks.ts';
import { applyCoupon, discountLines, invoiceDiscounts, removeDiscount } from '../discounts/service.ts';
import type { InvoiceDiscount } from '../discounts/fields.ts';
import { clockTimeFor } from '../../core/business-time.ts';
import { newId } from '../../core/ids.ts';
import { flatDiscounts } from './issue.ts';

const err = errorsFor('invoice');
/** Bounds (hostile input): lines per invoice, and the largest quantity of one line. */
export const MAX_LINES = 100;
const MAX_QUANTITY = 1_000_000_000;
const MEMO = 'memo';

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

/** spec Invoices create `lines`: 1-100 lines, each `amount = quantity x unitAmount`. */
function validateLines(input: unknown) {
  if (!Array.isArray(input) || input.length < 1 || input.length > MAX_LINES)
    throw err.validation('lines', `lines must be an array of 1-${MAX_LINES} lines`);
  return input.map((l, i) => {
    const f = (name: string) => `lines[${i}].${name}`;
    if (!l || typeof l !== 'object') throw err.validation(`lines[${i}]`, 'each line must be an object');
    if (typeof l.description !== 'string' || l.description.length < 1 || l.description.length > 255)
      throw err.validation(f('description'), 'description must be 1-255 characters');
    if (!isInt(l.quantity) || l.quantity < 1 || l.quantity > MAX_QUANTITY)
      throw err.validation(f('quantity'), `quantity must be a positive integer (at most ${MAX_QUANTITY})`);
    if (!isInt(l.unitAmount) || l.unitAmount < 0)
      throw err.validation(f('unitAmount'), 'unitAmount must be an integer >= 0 in the smallest currency unit');
    const amount = l.quantity * l.unitAmount;
    if (!Number.isSafeInteger(amount)) throw err.validation(f('unitAmount'), 'quantity x unitAmount is too large');
    if (l.priceId != null && (typeof l.priceId !== 'string' || !isId('price', l.priceId)))
      throw err.validation(f('priceId'), 'priceId must be a pr_ price id');
    const metadata = l.metadata == null ? null : validateMetadata(l.metadata, f('metadata'), 'invoice');
    return {
      description: l.description,
      quantity: l.quantity,
      unitAmount: l.unitAmount,
      amount,
      priceId: l.priceId ?? null,
      metadata,
    };
  });
}

/** A flat amount (discount, tax): an integer >= 0, default 0. */
function money(v: unknown, field: string) {
  if (v == null) return 0;
  if (!isInt(v) || v < 0) throw err.validation(field, `${field} must be an integer >= 0 in the smallest currency unit`);
  return v;
}

/** `metadata` with the reserved `memo` folded in (spec: "memo ... stored in metadata"). */
function validateMemo(memo: unknown, meta: unknown): Record<string, string> | null {
  if (memo != null && (typeof memo !== 'string' || memo.length > 500))
    throw err.validation('memo', 'memo must be a string of at most 500 characters');
  let metadata = meta == null ? null : { ...validateMetadata(meta, 'metadata', 'invoice') };
  if (metadata && MEMO in metadata) throw err.validation('metadata', 'metadata.memo is reserved: send memo instead');
  if (memo != null) metadata = { ...(metadata ?? {}), [MEMO]: memo as string };
  if (metadata && Object.keys(metadata).length > 50) throw err.validation('metadata', 'metadata has more than 50 keys');
  return metadata;
}

/** spec Invoices create body; every refusal is 400 VALIDATION_ERROR naming the field. */
function validateCreate(input: CreateInvoiceInput) {
  if (input.subtotal !== undefined)
    throw err.validation('subtotal', 'subtotal is computed by the server; do not send it');
  if (input.total !== undefined) throw err.validation('total', 'total is computed by the server; do not send it');
  if (typeof input.customerId !== 'string' || input.customerId.length === 0 || input.customerId.length > 64)
    throw err.validation('customerId', 'customerId is required: a cus_ customer id');
  const currency = checkCurrency(input.currency, 'currency', 'invoice');
  if (!isCurrency(currency)) throw err.of('unsupported_currency', `Currency ${currency} is not supported`, 'currency');
  const lines = validateLines(input.lines);
  const discount = money(input.discount, 'discount');
  const tax = money(input.tax, 'tax');
  const subtotal = lines.reduce((s, l) => s + l.amount, 0);
  if (!Number.isSafeInteger(subtotal + tax)) throw err.validation('lines', 'the invoice total is too large');
  const status = input.status ?? invoiceDraft;
  if (status !== invoiceDraft && status !== invoiceOpen) throw err.validation('status', 'status must be draft or open');
  const metadata = validateMemo(input.memo, input.metadata);
  if (
    input.subscriptionId != null &&
    (typeof input.subscriptionId !== 'string' || !isId('subscription', input.subscriptionId))
  )
    throw err.validation('subscriptionId', 'subscriptionId must be a sub_ subscription id');
  if (input.templateId != null && typeof input.templateId !== 'string')
    throw err.validation('templateId', 'templateId must be a tpl_ template id');
  if (input.applyCustomerBalance != null && typeof input.applyCustomerBalance !== 'boolean')
    throw err.validation('applyCustomerBalance', 'applyCustomerBalance must be true or false');
  checkCouponId(input.couponId);
  return {
    couponId: input.couponId ?? null,
    applyCustomerBalance: input.applyCustomerBalance ?? true,
    customerId: input.customerId,
    currency,
    lines,
    discount,
    tax,
    subtotal,
    total: Math.max(0, subtotal - discount + tax),
    dueAt: input.dueAt ?? null,
    status,
    metadata,
    subscriptionId: input.subscriptionId ?? null,
    templateId: input.templateId ?? null,
  };
}

/** `couponId`: a string naming a coupon (unknown: 404), or null (docs/coupons.md, Applying). */
function checkCouponId(v: unknown) {
  if (v != null && (typeof v !== 'string' || v.length < 1 || v.length > 64))
    throw err.validation('couponId', 'couponId must be a cpn_ coupon id or null');
}

/**
 * An invoice's `discounts[]` and `discount` (docs/coupons.md, Invoice discounts): the caller's flat
 * discount (an entry without a coupon), then the coupon's, computed on the lines by the one discount
 * maths (never more than the subtotal leaves).
 */
async function discountsOf(
  tx: Sql,
  scope: RowScope,
  invoiceId: string,
  lines: { quantity: number; unitAmount: number | bigint; priceId: string | null }[],
  currency: string,
  flat: bigint,
  at: Date,
) {
  const active = (await invoiceDiscounts(tx, scope, [invoiceId], at)).get(invoiceId) ?? null;
  const entries: InvoiceDiscount[] = [
    ...(flat > 0n ? flatDiscounts(flat) : []),
    ...discountLines(active, lines, currency, at, Number(flat)),
  ];
  return { discounts: entries, discount: entries.reduce((s, e) => s + BigInt(e.amount), 0n) };
}

/** The plans of some prices (a coupon limited to plans must cover one of an invoice's lines). */
async function plansOfPrices(tx: Sql, scope: RowScope, priceIds: (string | null)[]): Promise<string[]> {
  const ids = priceIds.filter((p): p is string => p !== null);
  if (!ids.length) return [];
  const rows = await tx.query<{ planId: string }>(
    q`SELECT DISTINCT "planId" FROM prices WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
      AND id = ANY (${ids}::text[])`,
  );
  return rows.map((r) => r.planId);
}

const optionsOf = (ctx: Context, accountId: string, source = 'api'): MoveOptions => ({
  accountId,
  requestId: ctx.requestId,
  source,
});

/**
 * spec Invoices create: a draft (created event) or, with `status: open`, an issued invoice
 * (numbered; only the finalized event: docs/decisions.md, Invoices). Lines, totals and events in one transaction.
 */
export async function createInvoice(ctx: Context, input: CreateInvoiceInput): Promise<InvoiceRow> {
  const auth = authorize(ctx, 'svc:invoice:write');
  const v = validateCreate(input);
  const scope = tenant(auth);
  const o = optionsOf(ctx, auth.accountId);
  return inTenant(scope, async (tx) => {
    const customer = await tx.customer.findFirst({
      where: { ...scoped(auth), id: v.customerId },
      select: { id: true, testClockId: true },
    });
    if (!customer) throw err.notFound('customer');
    // An unknown subscription, or one of another customer, is 404 (docs/decisions.md, Invoices).
    if (v.subscriptionId) {
      const sub = await tx.subscription.findFirst({
        where: { ...scoped(auth), id: v.subscriptionId, customerId: v.customerId },
        select: { id: true },
      });
      if (!sub) throw err.notFound('subscription');
    }
    if (v.templateId) await templateForUse(tx, scope, v.templateId, 'invoice', 'invoice');
    const trigger: InvoiceTrigger = v.status === invoiceOpen ? 'create_open' : 'create';
    nextState(invoiceMachine, null, trigger);
    // docs/coupons.md, Applying: the coupon is checked at the customer's business time and redeemed
    // here; its discount row names the invoice written next (a deferred key).
    const id = newId('invoice');
    let amounts = { discount: BigInt(v.discount), discounts: flatDiscounts(BigInt(v.discount)) };
    if (v.couponId !== null) {
      const sql = sqlOf(tx);
      const at = await clockTimeFor(sql, { ...scope, testClockId: customer.testClockId });
      const planIds = await plansOfPrices(
        sql,
        scope,
        v.lines.map((l) => l.priceId),
      );
      const target = { customerId: v.customerId, invoiceId: id, currency: v.currency, planIds };
      await applyCoupon(sql, scope, v.couponId, target, at, 'invoice');
      amounts = await discountsOf(sql, scope, id, v.lines, v.currency, BigInt(v.discount), at);
    }
    const total = BigInt(v.subtotal) - amounts.discount + BigInt(v.tax);
    // An invoice created open is written as a draft and finalized here (lines go into drafts only).
    const [created] = (await writeDrafts(
      tx,
      { ...scope, accountId: auth.accountId },
      [
        {
          id,
          customerId: v.customerId,
          subscriptionId: v.subscriptionId,
          currency: v.currency,
          lines: v.lines,
          subtotal: BigInt(v.subtotal),
          ...amounts,
          tax: BigInt(v.tax),
          total: total > 0n ? total : 0n,
          dueAt: v.dueAt,
          templateId: v.templateId,
          billingReason: 'manual',
          // Its due date then passes on the customer's clock, not in the real-time sweep (docs/decisions.md, Test clocks).
          testClockId: customer.testClockId,
          metadata: v.metadata,
          applyCustomerBalance: v.applyCustomerBalance,
        },
      ],
      { ...o, created: trigger === 'create' },
    )) as InvoiceRow[];
    return trigger === 'create_open' ? finalizeLocked(tx, scope, created, o, 'create_open') : created;
  });
}

export async function getInvoice(ctx: Context, id: string): Promise<InvoiceRow> {
  const auth = authorize(ctx, 'svc:invoice:read');
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    const row = await tx.invoice.findFirst({
      where: { ...scoped(auth), id },
      include: { lines: { orderBy: { position: 'asc' } } },
    });
    if (!row) throw err.notFound();
    return { ...row, accountId: auth.accountId };
  });
}

/**
 * spec Invoices list: filters status, customerId, subscriptionId. One statement per page on the raw
 * path (a measured hot read, bench:billing): the page's rows with their lines aggregated beside
 * them, through the (workspace, mode, invoiceId, position) key, never a query per row.
 */
export async function listInvoices(ctx: Context, args: ListInvoicesArgs) {
  const auth = authorize(ctx, 'svc:invoice:read');
  invoiceList.check(args);
  const filters = invoiceList.values(args);
  const page = pageRequest(args, auth.workspaceId, filters, invoiceList.limit);
  // One condition per filter given: the statement text depends only on which filters are set.
  const where = invoiceList.where(args, 'i');
  const ks = keysetSql(page, q`i."createdAt"`);
  const rows = await tenantQuery<RawInvoice>(
    tenant(auth),
    q`SELECT i.*, (SELECT coalesce(jsonb_agg(to_jsonb(l) ORDER BY l.position), '[]'::jsonb) FROM invoice_lines l
        WHERE l."workspaceId" = i."workspaceId" AND l.mode = i.mode AND l."invoiceId" = i.id) AS lines
      FROM invoices i WHERE i."workspaceId" = ${auth.workspaceId} AND i.mode = ${auth.mode}${where}${ks.where}
      ${ks.tail}`,
  );
  const invoices = rows.map((r) => fromRaw(r, auth.accountId));
  return toConnection(invoices, page, auth.workspaceId, filters, (r) => r.createdAt);
}

/** A row of the raw path: int8 columns as text (pg), lines as JSON. */
type RawInvoice = Omit<Invoice, MoneyColumn> & Record<MoneyColumn, string> & { lines: Record<string, unknown>[] };
type MoneyColumn =
  | 'subtotal'
  | 'discount'
  | 'tax'
  | 'total'
  | 'amountPaid'
  | 'amountDue'
  | 'balanceApplied'
  | 'creditedAmount'
  | 'prePaymentCreditedAmount'
  | 'prePaymentCreditedTax';
const moneyColumns: MoneyColumn[] = [
  'subtotal',
  'discount',
  'tax',
  'total',
  'amountPaid',
  'amountDue',
  'balanceApplied',
  'creditedAmount',
  'prePaymentCreditedAmount',
  'prePaymentCreditedTax',
];

/** Prisma's shape (bigint money, Date times) from the raw row; amounts are safe integers (validated at create). */
function fromRaw(r: RawInvoice, accountId: string): InvoiceRow {
  const out = { ...r, accountId } as unknown as InvoiceRow;
  for (const c of moneyColumns) out[c] = BigInt(r[c]);
  out.lines = r.lines.map((l) => ({
    ...(l as unknown as InvoiceLine),
    unitAmount: BigInt(l.unitAmount as number),
    amount: BigInt(l.amount as number),
    createdAt: new Date(l.createdAt as string),
  }));
  return out;
}

/**
 * PATCH /v1/invoices/:id (an extension: docs/decisions.md, Invoices): edits a draft. Sent fields replace
 * (lines as a whole; null clears dueAt, memo, metadata, templateId); totals are recomputed. Any
 * other status is 409 conflict: lines, discount and tax are locked once the invoice leaves draft
 * (the database refuses it too). No event: the spec has none for an edit.
 */
export function updateInvoice(ctx: Context, id: string, input: UpdateInvoiceInput): Promise<InvoiceRow> {
  // The scope before the input (again in onLocked): a key without it learns nothing from the answer.
  authorize(ctx, 'svc:invoice:write');
  const lines = input.lines == null ? undefined : validateLines(input.lines);
  const discount = input.discount === undefined ? undefined : money(input.discount, 'discount');
  const tax = input.tax === undefined ? undefined : money(input.tax, 'tax');
  if (input.templateId != null && typeof input.templateId !== 'string')
    throw err.validation('templateId', 'templateId must be a tpl_ template id');
  const custom = input.metadata === undefined ? undefined : validateMemo(null, input.metadata);
  if (input.memo != null) validateMemo(input.memo, null);
  checkCouponId(input.couponId);
  return onLocked(ctx, id, async (tx, inv, _o, scope) => {
    if (inv.status !== invoiceDraft)
      throw err.conflict(`The invoice is ${inv.status}; its lines, discount and tax are locked once it leaves draft`);
    if (input.templateId) await templateForUse(tx, scope, input.templateId, 'invoice', 'invoice');
    const now = clock.now();
    let rows = inv.lines;
    if (lines) {
      rows = invoiceLines(scope, inv.id, lines, now);
      await tx.query(
        q`DELETE FROM invoice_lines WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
          AND "invoiceId" = ${inv.id}`,
      );
      await tx.query(q`${insertRows('invoice_lines', rows)}`);
    }
    const subtotal = rows.reduce((sum, l) => sum + l.amount, 0n);
    // docs/coupons.md, Invoice discounts: the flat part as sent (or as it was), the coupon's recomputed on the lines.
    const before = inv.discounts as unknown as InvoiceDiscount[];
    const flat =
      discount === undefined
        ? before.filter((e) => e.couponId === null).reduce((sum, e) => sum + BigInt(e.amount), 0n)
        : BigInt(discount);
    const at = await clockTimeFor(tx, { ...scope, testClockId: inv.testClockId });
    if (input.couponId !== undefined) {
      await removeDiscount(tx, scope, { invoiceId: inv.id }, at);
      if (input.couponId !== null) {
        const planIds = await plansOfPrices(
          tx,
          scope,
          rows.map((l) => l.priceId),
        );
        const target = { customerId: inv.customerId, invoiceId: inv.id, currency: inv.currency, planIds };
        await applyCoupon(tx, scope, input.couponId, target, at, 'invoice');
      }
    }
    const amounts = await discountsOf(tx, scope, inv.id, rows, inv.currency, flat, at);
    const d = amounts.discount;
    const t = tax === undefined ? inv.tax : BigInt(tax);
    if (!Number.isSafeInteger(Number(subtotal + t))) throw err.validation('lines', 'the invoice total is too large');
    const total = subtotal - d + t > 0n ? subtotal - d + t : 0n;
    const had = (inv.metadata ?? {}) as Record<string, string>;
    let metadata: Record<string, string> = custom === undefined ? { ...had } : { ...(custom ?? {}) };
    if (custom !== undefined && had[MEMO] !== undefined) metadata[MEMO] = had[MEMO];
    if (input.memo !== undefined) {
      const { [MEMO]: _old, ...rest } = metadata;
      metadata = input.memo === null ? rest : { ...rest, [MEMO]: input.memo };
    }
    if (Object.keys(metadata).length > 50) throw err.validation('metadata', 'metadata has more than 50 keys');
    const data: Partial<Invoice> = {
      subtotal,
      discount: d,
      discounts: amounts.discounts as unknown as Invoice['discounts'],
      tax: t,
      total,
      amountDue: total,
      metadata: Object.keys(metadata).length ? metadata : null,
      updatedAt: now,
      ...(input.dueAt !== undefined ? { dueAt: input.dueAt } : {}),
      ...(input.templateId !== undefined ? { templateId: input.templateId } : {}),
    };
    const row = await updateRow<Invoice>(tx, 'invoices', { id: inv.id, ...scoped(scope) }, data);
    return { ...row, accountId: inv.accountId, lines: rows };
  });
}

/**
 * Runs one move on a locked invoice of the caller's workspace (404 when it is not there), on the raw
 * path: finalize throughput is bounded by how long the numbering lock is held (bench:billing).
 */
async function onLocked<T>(
  ctx: Context,
  id: string,
  fn: (tx: Sql, inv: InvoiceRow, o: MoveOptions, scope: RowScope) => Promise<T>,
): Promise<T> {
  const auth = authorize(ctx, 'svc:invoice:write');
  const scope = tenant(auth);
  return tenantTx(scope, async (tx) => {
    const inv = await lockInvoice(tx, { ...scope, accountId: auth.accountId }, id);
    if (!inv) throw err.notFound();
    return fn(tx, inv, optionsOf(ctx, auth.accountId), scope);
  });
}

/** spec Finalize: draft -> open; already issued and unpaid: the invoice as it is (idempotent success). */
export function finalizeInvoice(ctx: Context, id: string): Promise<InvoiceRow> {
  return onLocked(ctx, id, async (tx, inv, o, scope) => {
    if ((invoiceIssuedUnpaid as readonly string[]).includes(inv.status)) return inv;
    return finalizeLocked(tx, scope, inv, { ...o, last: true });
  });
}

/**
 * spec Void: `voidedAt` set, voided event; 409 conflict when paid (refund instead) or already void,
 * or when it has an issued credit note (docs/credit-notes.md: no numbered note points at a void invoice).
 */
export function voidInvoice(ctx: Context, id: string): Promise<InvoiceRow> {
  return onLocked(ctx, id, async (tx, inv, o, scope) => {
    if (inv.status !== invoiceVoid && (await isVoidHeld(tx, scope, inv.id)))
      throw err.conflict('The invoice has an issued credit note; void the note first or credit the rest');
    const now = clock.now();
    return moveInvoice(tx, scope, inv, 'void', { voidedAt: now, updatedAt: now }, o);
  });
}

/** spec Pay: mark paid off-platform (a bookkeeping action: ledger on `cash:offline`); 409 when paid or void. */
export function payInvoice(ctx: Context, id: string): Promise<InvoiceRow> {
  return onLocked(ctx, id, async (tx, inv, o, scope) => {
    // The same request run again (its claim taken over) answers the invoice it paid, not 409 paid.
    if (await claimOperation(tx, scope, ctx.replay, 'invoice.pay', inv.id)) return inv;
    return (await settleInvoice(tx, scope, inv, o)).invoice;
  });
}
