/**
 * Credit notes (docs/credit-notes.md): issue against an open, past_due, paid or uncollectible
 * invoice, preview, void, read. Each write is one transaction that locks, in this order, the
 * invoice, its payment, the customer's balance row and the `credit_note` counter: concurrent notes
 * of one invoice queue on the invoice's lock, so they never credit more than its total. A refund
 * part is reserved in that transaction (the refunds module's `reserveRefund`) and sent to the
 * provider after the commit, as POST /v1/refunds does.
 */
import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { assertScope } from '../../core/auth/scopes.ts';
import { inTenant, type Tx } from '../../core/db/client.ts';
import { sql as q, sqlOf, updateRow, insertRows, type AnyTx } from '../../core/db/sql.ts';
import { errorsFor } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { counterNames, creditNoteNumber, nextCounter } from '../../core/counters.ts';
import { postLedger, type LedgerLeg } from '../../core/ledger.ts';
import { emit } from '../../core/outbox.ts';
import { toWire } from '../../core/wire.ts';
import { keysetList } from '../../core/pagination.ts';
import { scoped, type RowScope } from '../../core/resource.ts';
import { sha256Hex } from '../../core/crypto.ts';
import { nextState } from '../../core/state-machine.ts';
import type { CreditNote, CreditNoteLine, Invoice, Payment, Refund } from '../../generated/prisma/client.ts';
import { clockTimeFor } from '../../core/business-time.ts';
import { lockInvoice, settleInvoice, type MoveOptions } from '../invoices/issue.ts';
import type { InvoiceRow } from '../invoices/fields.ts';
import { refundable, reserveRefund } from '../refunds/service.ts';
import { applyRefundOutcome, lockPayment } from '../refunds/settle.ts';
import { submitRefund } from '../refunds/submit.ts';
import { changeBalance, CUSTOMER_CREDIT } from '../customer-balances/post.ts';
import { OFFLINE_CASH } from '../invoices/issue.ts';
import { creditNoteFields, creditNoteLineFields, type CreditNotePreview, type CreditNoteRow } from './fields.ts';
import { creditNoteIssued, creditNoteMachine, type CreditNoteStatus } from './states.ts';
import { refundFailed, refundPending, refundStatusOf } from '../refunds/states.ts';
import { invoicePaid } from '../invoices/states.ts';
import { paymentRefundable } from '../payments/states.ts';
import { creditNoteList } from './list.ts';
import type { CreateCreditNoteInput, ListCreditNotesArgs } from './schema.ts';
import { compute, type Computed } from './compute.ts';
import { validateCreate } from './validate.ts';

const err = errorsFor('credit_note');

/** docs/credit-notes.md, Ledger: the codes a note's post-payment part posts to. */
export const creditNoteCodes = {
  contraRevenue: 'revenue:credit_notes',
  tax: 'tax:ppn',
  refund: 'refund_due',
  credit: CUSTOMER_CREDIT,
  outOfBand: OFFLINE_CASH,
} as const;

/**
 * The payment a refund part comes from, locked, checked against what it can still refund (the
 * refunds module's `refundable`: an invoice with no payment, or paid by a bookkeeping pay, refunds 0).
 */
async function refundablePayment(
  tx: Tx,
  scope: RowScope,
  inv: InvoiceRow,
  refundAmount: bigint,
): Promise<Payment | null> {
  if (refundAmount <= 0n) return null;
  const found = await tx.payment.findFirst({
    where: { ...scoped(scope), invoiceId: inv.id, status: { in: paymentRefundable } },
    orderBy: { createdAt: 'desc' },
    select: { id: true },
  });
  const payment = found ? await lockPayment(tx, scope, found.id) : null;
  const can = payment
    ? await refundable(tx, scope, payment)
    : { amount: 0n, nothing: { message: 'The invoice has no payment to refund' } };
  if (refundAmount > can.amount)
    throw err.of(
      'amount_exceeds_remaining',
      `refundAmount ${refundAmount} exceeds what the invoice's payment can still refund (${can.amount})` +
        (can.nothing ? `: ${can.nothing.message}` : ''),
      'refundAmount',
    );
  return payment;
}

const withAccount = (accountId: string) => (n: CreditNote & { lines: CreditNoteLine[] }) => ({
  ...n,
  accountId,
  lines: [...n.lines].sort((a, b) => a.position - b.position),
});

/** The REST object, lines included, as events carry it. */
export const creditNoteSnapshot = (r: CreditNotePreview) => ({
  ...toWire(r, creditNoteFields),
  lines: r.lines.map((l) => toWire(l, creditNoteLineFields)),
});

/** The note's post-payment posting (docs/credit-notes.md, Ledger), reversed for a void. */
function notePosting(n: CreditNote, reverse: boolean, at: Date) {
  const postTax = n.tax - n.prePaymentTax;
  const net = n.postPaymentAmount - postTax;
  const d = reverse ? 'credit' : 'debit';
  const c = reverse ? 'debit' : 'credit';
  const legs: LedgerLeg[] = [
    { code: creditNoteCodes.contraRevenue, direction: d, amount: net, memo: `credit note ${n.number}` },
    { code: creditNoteCodes.tax, direction: d, amount: postTax },
    { code: creditNoteCodes.refund, direction: c, amount: n.refundAmount },
    { code: creditNoteCodes.credit, direction: c, amount: n.creditAmount },
    { code: creditNoteCodes.outOfBand, direction: c, amount: n.outOfBandAmount },
  ].filter((l) => BigInt(l.amount) > 0n) as LedgerLeg[];
  return {
    txId: `${reverse ? 'cnv' : 'cn'}:${n.id}`,
    currency: n.currency,
    sourceType: 'credit_note' as const,
    sourceId: n.id,
    postedAt: at,
    legs,
  };
}

/** The invoice's credit columns moved by a note (+1 issue, -1 void); amountDue follows the pre-payment part. */
const invoiceCredit = (inv: Invoice, n: CreditNote, sign: 1n | -1n, at: Date): Partial<Invoice> => ({
  creditedAmount: inv.creditedAmount + sign * n.total,
  prePaymentCreditedAmount: inv.prePaymentCreditedAmount + sign * n.prePaymentAmount,
  prePaymentCreditedTax: inv.prePaymentCreditedTax + sign * n.prePaymentTax,
  amountDue: inv.amountDue - sign * n.prePaymentAmount,
  updatedAt: at,
});

/** POST /v1/credit-notes/preview: the note create would issue now; nothing is written. */
export async function previewCreditNote(ctx: Context, input: CreateCreditNoteInput): Promise<CreditNotePreview> {
  const auth = authorize(ctx, 'svc:credit_note:read');
  const v = validateCreate(input);
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    const inv = await lockInvoice(tx, { ...scope, accountId: auth.accountId }, v.invoiceId);
    if (!inv) throw err.notFound('invoice');
    const c = await compute(tx, scope, inv, v);
    await refundablePayment(tx, scope, inv, c.note.refundAmount);
    const at = await clockTimeFor(tx, { ...scope, testClockId: inv.testClockId });
    return {
      ...c.note,
      id: null,
      number: null,
      status: 'preview',
      accountId: auth.accountId,
      issuedAt: at,
      createdAt: at,
      updatedAt: at,
      lines: c.lines.map((l) => ({ ...l, id: '', creditNoteId: '', createdAt: at })),
    };
  });
}

type NoteLines = CreditNoteLine[];

/** An issued note's first writes: its balance credit, number, row and lines (the refund part is the caller's). */
async function insertNote(
  tx: AnyTx,
  scope: RowScope,
  inv: InvoiceRow,
  c: Computed,
  o: MoveOptions & { at: Date },
): Promise<{ note: CreditNote; lines: NoteLines }> {
  const { at } = o;
  const id = newId('creditNote');
  let balanceTransactionId: string | null = null;
  if (c.note.creditAmount > 0n) {
    const txn = await changeBalance(
      tx,
      scope,
      {
        customerId: inv.customerId,
        currency: inv.currency,
        amount: c.note.creditAmount,
        type: 'credit_note',
        creditNoteId: id,
        invoiceId: inv.id,
        description: `Credit note for invoice ${inv.number}`,
        at,
        ledgerTxId: `cn:${id}`,
      },
      { requestId: o.requestId, source: o.source, resource: 'credit_note' },
    );
    balanceTransactionId = txn.id;
  }
  const seq = await nextCounter(tx, scope, counterNames.creditNote);
  const status = nextState(creditNoteMachine, null, 'issue');
  const [note] = await sqlOf(tx).query<CreditNote>(
    q`${insertRows('credit_notes', [
      {
        ...c.note,
        id,
        number: creditNoteNumber(at, seq),
        status: status.to,
        balanceTransactionId,
        issuedAt: at,
        createdAt: at,
        updatedAt: at,
      },
    ])} RETURNING *`,
  );
  const lines = c.lines.map((l) => ({ ...l, id: newId('creditNoteLine'), creditNoteId: id, createdAt: at }));
  await sqlOf(tx).query(q`${insertRows('credit_note_lines', lines)}`);
  return { note, lines };
}

/** An issued note's last writes: its ledger posting, the invoice's credit columns (paid when nothing is due), its event. */
async function finishNote(
  tx: AnyTx,
  scope: RowScope,
  inv: InvoiceRow,
  note: CreditNote,
  lines: NoteLines,
  o: MoveOptions & { at: Date },
) {
  const { at } = o;
  if (note.postPaymentAmount > 0n) await postLedger(tx, scope, notePosting(note, false, at));
  const invRow: InvoiceRow = {
    ...(await updateRow<Invoice>(
      sqlOf(tx),
      'invoices',
      { id: inv.id, ...scoped(scope) },
      invoiceCredit(inv, note, 1n, at),
    )),
    accountId: inv.accountId,
    lines: inv.lines,
  };
  // Nothing left to pay: paid with no payment and no receipt (docs/credit-notes.md, Outcomes).
  if (note.prePaymentAmount > 0n && invRow.amountDue === 0n && invRow.status !== invoicePaid)
    await settleInvoice(tx, scope, invRow, { ...o, at, zeroTotal: true });
  const row = withAccount(o.accountId)({ ...note, lines });
  for (const type of nextState(creditNoteMachine, null, 'issue').events)
    await emit(tx, scope, type, creditNoteSnapshot(row), { requestId: o.requestId, source: o.source });
  return row;
}

/**
 * A note another module issues inside its own transaction (subscriptions: a change applied now, reason
 * `order_change`): the same checks and writes as POST /v1/credit-notes, its post-payment part credited to
 * the customer balance, never a refund part. The invoice is locked here.
 */
export async function issueCreditNoteIn(
  tx: AnyTx,
  scope: RowScope & { accountId: string },
  input: Pick<CreateCreditNoteInput, 'invoiceId' | 'lines' | 'amount' | 'reason' | 'memo'>,
  o: { requestId?: string; source: string; at: Date },
): Promise<CreditNoteRow> {
  const v = validateCreate(input);
  const inv = await lockInvoice(tx, scope, v.invoiceId);
  if (!inv) throw err.notFound('invoice');
  const c = await compute(tx, scope, inv, v);
  const mo: MoveOptions & { at: Date } = {
    accountId: scope.accountId,
    requestId: o.requestId,
    source: o.source,
    at: o.at,
  };
  const { note, lines } = await insertNote(tx, scope, inv, c, mo);
  return finishNote(tx, scope, inv, note, lines, mo);
}

/**
 * POST /v1/credit-notes: issue. One transaction: lock the invoice (and its payment when refunding),
 * compute and check, credit the balance, number, write the note and its lines, reserve the refund,
 * post `cn:<id>`, move the invoice's credit columns (paid at once when nothing remains due), emit.
 * The refund's provider call follows the commit; a definite refusal marks it failed (the note stays).
 */
export async function createCreditNote(ctx: Context, input: CreateCreditNoteInput): Promise<CreditNoteRow> {
  const auth = authorize(ctx, 'svc:credit_note:write');
  const v = validateCreate(input);
  const scope = tenant(auth);
  const o: MoveOptions = { accountId: auth.accountId, requestId: ctx.requestId, source: 'api' };
  const providerKey = `cn-${sha256Hex(`${scope.workspaceId}:${scope.mode}:${ctx.idempotencyKey ?? newId('request')}`).slice(0, 40)}`;
  const first = await inTenant(scope, async (tx) => {
    const inv = await lockInvoice(tx, { ...scope, accountId: auth.accountId }, v.invoiceId);
    if (!inv) throw err.notFound('invoice');
    const c = await compute(tx, scope, inv, v);
    // spec scopes: a refund part also needs the refund scope.
    if (c.note.refundAmount > 0n) assertScope(auth, 'svc:refund:write');
    const payment = await refundablePayment(tx, scope, inv, c.note.refundAmount);
    const at = await clockTimeFor(tx, { ...scope, testClockId: inv.testClockId });
    let { note, lines } = await insertNote(tx, scope, inv, c, { ...o, at });
    let adapter = null;
    let refund: Refund | null = null;
    if (c.note.refundAmount > 0n && payment) {
      const refundReason = v.reason === 'duplicate' || v.reason === 'fraudulent' ? v.reason : 'requested_by_customer';
      const reserved = await reserveRefund(
        tx,
        scope,
        payment,
        { amount: c.note.refundAmount, reason: refundReason, metadata: null, providerKey, creditNoteId: note.id },
        { accountId: auth.accountId, requestId: ctx.requestId, source: 'api' },
      );
      refund = reserved.refund;
      adapter = reserved.adapter;
      note = await tx.creditNote.update({
        where: { id: note.id },
        data: { refundId: refund.id, refundStatus: refundStatusOf(refund.status) },
      });
    }
    const row = await finishNote(tx, scope, inv, note, lines, { ...o, at });
    return { row, refund, adapter, payment };
  });
  if (!first.adapter || !first.refund || !first.payment) return first.row;
  const opts = { accountId: auth.accountId, requestId: ctx.requestId, source: 'api' };
  const { payment } = first;
  await submitRefund(scope, first.refund, payment, first.adapter, opts, (e) =>
    inTenant(scope, async (tx) => {
      // A definite refusal: the refund fails, the note stays issued (its refund part owed until voided).
      const locked = await lockPayment(tx, scope, payment.id);
      const r = await tx.refund.findUniqueOrThrow({ where: { id: first.refund!.id } });
      if (r.status !== refundPending) return r;
      return applyRefundOutcome(tx, scope, r, locked!, 'provider_failed', {
        ...opts,
        failureCode: 'provider_rejected',
        failureMessage: e.message,
      });
    }),
  );
  return getNote(auth, first.row.id);
}

async function getNote(auth: { workspaceId: string; mode: 'test' | 'live'; accountId: string }, id: string) {
  const scope = tenant(auth as never);
  const n = await inTenant(scope, (tx) =>
    tx.creditNote.findFirst({ where: { ...scoped(scope), id }, include: { lines: true } }),
  );
  if (!n) throw err.notFound();
  return withAccount(auth.accountId)(n);
}

/**
 * POST /v1/credit-notes/:id/void (docs/credit-notes.md, Void): only an issued note whose refund is
 * absent or failed, whose credit the customer still holds, and whose pre-payment part is on an
 * invoice still unpaid. Every effect is reversed in one transaction; the number is kept.
 */
export async function voidCreditNote(ctx: Context, id: string): Promise<CreditNoteRow> {
  const auth = authorize(ctx, 'svc:credit_note:write');
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    const found = await tx.creditNote.findFirst({ where: { ...scoped(scope), id }, select: { invoiceId: true } });
    if (!found) throw err.notFound();
    const inv = await lockInvoice(tx, { ...scope, accountId: auth.accountId }, found.invoiceId);
    const note = await tx.creditNote.findUniqueOrThrow({ where: { id }, include: { lines: true } });
    const move = nextState(creditNoteMachine, note.status as CreditNoteStatus, 'void');
    if (note.refundId && note.refundStatus !== refundFailed)
      throw err.conflict(
        `The credit note's refund is ${note.refundStatus}; only a note whose refund failed can be voided`,
      );
    if (note.creditAmount > 0n) {
      const bal = await tx.customerBalance.findUnique({
        where: {
          workspaceId_mode_customerId_currency: {
            ...scoped(scope),
            customerId: note.customerId,
            currency: note.currency,
          },
        },
      });
      if ((bal?.amount ?? 0n) < note.creditAmount)
        throw err.conflict(
          `The customer's ${note.currency} balance (${bal?.amount ?? 0n}) is below the note's credit (${note.creditAmount}); it was already used`,
        );
    }
    if (note.prePaymentAmount > 0n && inv!.status === invoicePaid)
      throw err.conflict('The invoice is paid; a note with a pre-payment part can only be voided while it is unpaid');
    const at = await clockTimeFor(tx, { ...scope, testClockId: note.testClockId });
    if (note.creditAmount > 0n)
      await changeBalance(
        tx,
        scope,
        {
          customerId: note.customerId,
          currency: note.currency,
          amount: -note.creditAmount,
          type: 'credit_note_void',
          creditNoteId: note.id,
          invoiceId: note.invoiceId,
          description: `Credit note ${note.number} voided`,
          at,
          ledgerTxId: `cnv:${note.id}`,
        },
        { requestId: ctx.requestId, source: 'api', resource: 'credit_note' },
      );
    if (note.postPaymentAmount > 0n) await postLedger(tx, scope, notePosting(note, true, at));
    await updateRow<Invoice>(
      sqlOf(tx),
      'invoices',
      { id: inv!.id, ...scoped(scope) },
      invoiceCredit(inv!, note, -1n, at),
    );
    const updated = await tx.creditNote.update({
      where: { id },
      data: { status: move.to, voidedAt: at, updatedAt: at },
      include: { lines: true },
    });
    const row = withAccount(auth.accountId)(updated);
    for (const type of move.events)
      await emit(tx, scope, type, creditNoteSnapshot(row), {
        requestId: ctx.requestId,
        source: 'api',
        previousAttributes: { status: note.status },
      });
    return row;
  });
}

export async function getCreditNote(ctx: Context, id: string): Promise<CreditNoteRow> {
  const auth = authorize(ctx, 'svc:credit_note:read');
  return getNote(auth, id);
}

export async function listCreditNotes(ctx: Context, args: ListCreditNotesArgs) {
  const auth = authorize(ctx, 'svc:credit_note:read');
  creditNoteList.check(args);
  const filters = creditNoteList.values(args);
  return keysetList(
    {
      args: creditNoteList.paged(args),
      workspaceId: auth.workspaceId,
      filters,
      limit: creditNoteList.limit,
      column: creditNoteList.position,
    },
    (ks) =>
      inTenant(tenant(auth), (tx) =>
        tx.creditNote.findMany({
          where: { ...scoped(auth), AND: [...creditNoteList.prisma(args), ks.where] },
          orderBy: ks.orderBy,
          take: ks.take,
          include: { lines: true },
        }),
      ).then((rows) => rows.map(withAccount(auth.accountId))),
  );
}

/** docs/credit-notes.md: an invoice with an issued credit note cannot be voided (its numbered notes stay valid). */
export async function hasIssuedNote(tx: AnyTx, scope: RowScope, invoiceId: string) {
  const rows = await sqlOf(tx).query<{ n: number }>(
    q`SELECT 1 AS n FROM credit_notes WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
      AND "invoiceId" = ${invoiceId} AND status = ${creditNoteIssued} LIMIT 1`,
  );
  return rows.length > 0;
}
