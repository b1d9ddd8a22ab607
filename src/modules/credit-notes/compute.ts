// The note an input describes against the locked invoice: its lines, amounts and split, checked, with
// nothing written (preview and create share it).
import { chargesInFlight } from '../payments/in-flight.ts';
import { sql as q, sqlOf, type AnyTx } from '../../core/db/sql.ts';
import { errorsFor } from '../../core/errors.ts';
import type { RowScope } from '../../core/resource.ts';
import type { CreditNote, CreditNoteLine } from '../../generated/prisma/client.ts';
import type { InvoiceRow } from '../invoices/fields.ts';
import { noteAmounts, splitNote, type Prior } from './amounts.ts';
import { creditNoteIssued } from './states.ts';
import { invoiceDraft, invoicePaid, invoiceVoid } from '../invoices/states.ts';
import type { Valid } from './validate.ts';

const err = errorsFor('credit_note');

/** What the invoice's issued notes already took, in total and per invoice line: two aggregates, however many notes. */
async function priorOf(tx: AnyTx, scope: RowScope, invoiceId: string) {
  const sql = sqlOf(tx);
  const issued = q`n."workspaceId" = ${scope.workspaceId} AND n.mode = ${scope.mode} AND n."invoiceId" = ${invoiceId}
    AND n.status = ${creditNoteIssued}`;
  const [t] = await sql.query<{ net: string; discount: string; tax: string; incl: string }>(
    // Amount-mode and custom notes do not count towards "every line credited" (amounts.ts).
    q`SELECT coalesce(sum(n.subtotal) FILTER (WHERE NOT EXISTS (SELECT 1 FROM credit_note_lines l
          WHERE l."workspaceId" = n."workspaceId" AND l.mode = n.mode AND l."creditNoteId" = n.id AND l.type = 'custom')), 0) AS net,
        coalesce(sum(n."discountAmount"), 0) AS discount, coalesce(sum(n.tax), 0) AS tax,
        coalesce(sum(n."taxIncluded"), 0) AS incl
      FROM credit_notes n WHERE ${issued}`,
  );
  const prior: Prior = {
    net: BigInt(t.net),
    discountAmount: BigInt(t.discount),
    tax: BigInt(t.tax),
    taxIncluded: BigInt(t.incl),
  };
  const lines = await sql.query<{ invoiceLineId: string; by: string; quantity: string; amount: string }>(
    q`SELECT l."invoiceLineId", min(l."creditedBy") AS by, sum(l.quantity) AS quantity, sum(l.amount) AS amount
      FROM credit_note_lines l JOIN credit_notes n ON n."workspaceId" = l."workspaceId" AND n.mode = l.mode
        AND n.id = l."creditNoteId"
      WHERE ${issued} AND l."invoiceLineId" IS NOT NULL GROUP BY l."invoiceLineId"`,
  );
  const perLine = new Map(
    lines.map((l) => [
      l.invoiceLineId,
      { by: l.by ?? 'amount', quantity: BigInt(l.quantity), amount: BigInt(l.amount) },
    ]),
  );
  return { prior, perLine };
}

type PerLine = Awaited<ReturnType<typeof priorOf>>['perLine'];

export interface Computed {
  note: Omit<CreditNote, 'id' | 'number' | 'status' | 'issuedAt' | 'createdAt' | 'updatedAt'>;
  lines: Omit<CreditNoteLine, 'id' | 'creditNoteId' | 'createdAt'>[];
}

/** Lines credited one by one: an invoice line by quantity or by amount (never both, across notes too), or custom. */
function creditLines(scope: RowScope, inv: InvoiceRow, input: NonNullable<Valid['lines']>, perLine: PerLine) {
  const lines: Computed['lines'] = [];
  const inNote = new Map<string, { by: string; quantity: bigint; amount: bigint }>();
  let net = 0n;
  input.forEach((l, i) => {
    const position = i;
    if (l.kind === 'custom') {
      const amount = BigInt(l.quantity) * BigInt(l.unitAmount);
      net += amount;
      lines.push({
        workspaceId: scope.workspaceId,
        mode: scope.mode,
        position,
        type: 'custom',
        invoiceLineId: null,
        creditedBy: null,
        description: l.description,
        quantity: l.quantity,
        unitAmount: BigInt(l.unitAmount),
        amount,
      });
      return;
    }
    const line = inv.lines.find((x) => x.id === l.invoiceLineId);
    if (!line) throw err.of('not_found', 'No such invoice line on this invoice', `lines[${i}].invoiceLineId`);
    if (line.amount < 0n || line.unitAmount < 0n)
      throw err.validation(`lines[${i}].invoiceLineId`, 'a negative (proration) line cannot be credited');
    const before = perLine.get(line.id);
    const mine = inNote.get(line.id);
    const by = l.kind;
    if ((before && before.by !== by) || (mine && mine.by !== by))
      throw err.validation(
        `lines[${i}].${by}`,
        'an invoice line is credited either by quantity or by amount, never both (across notes too)',
      );
    const acc = mine ?? { by, quantity: 0n, amount: 0n };
    const amount = l.kind === 'quantity' ? BigInt(l.quantity) * line.unitAmount : BigInt(l.amount);
    const quantity = l.kind === 'quantity' ? l.quantity : 1;
    acc.quantity += BigInt(quantity);
    acc.amount += amount;
    inNote.set(line.id, acc);
    if (l.kind === 'quantity' && (before?.quantity ?? 0n) + acc.quantity > BigInt(line.quantity))
      throw err.of(
        'amount_exceeds_remaining',
        `quantity exceeds what remains of the line (${BigInt(line.quantity) - (before?.quantity ?? 0n)})`,
        `lines[${i}].quantity`,
      );
    if (l.kind === 'amount' && (before?.amount ?? 0n) + acc.amount > line.amount)
      throw err.of(
        'amount_exceeds_remaining',
        `amount exceeds what remains of the line (${line.amount - (before?.amount ?? 0n)})`,
        `lines[${i}].amount`,
      );
    net += amount;
    lines.push({
      workspaceId: scope.workspaceId,
      mode: scope.mode,
      position,
      type: 'invoice_line',
      invoiceLineId: line.id,
      creditedBy: by,
      description: line.description,
      quantity,
      unitAmount: l.kind === 'quantity' ? line.unitAmount : amount,
      amount,
    });
  });
  return { lines, net };
}

/** The note the input describes against the locked invoice: every check of create but the refund's, nothing written. */
export async function compute(tx: AnyTx, scope: RowScope, inv: InvoiceRow, v: Valid): Promise<Computed> {
  if (inv.status === invoiceDraft || inv.status === invoiceVoid)
    throw err.conflict(
      `The invoice is ${inv.status}; only open, past_due, paid or uncollectible invoices take credit notes`,
    );
  // A charge of the invoice at the provider now: its outcome decides what can still be credited (docs/credit-notes.md).
  if ((await chargesInFlight(tx, scope, [inv.id])).length)
    throw err.conflict(
      'A charge of this invoice is in flight at the provider; issue the credit note once it has settled',
    );
  const { prior, perLine } = await priorOf(tx, scope, inv.id);
  let lines: Computed['lines'] = [];
  let credited: { kind: 'lines'; net: bigint } | { kind: 'amount'; amount: bigint };
  if (v.lines) {
    const byLine = creditLines(scope, inv, v.lines, perLine);
    lines = byLine.lines;
    credited = { kind: 'lines', net: byLine.net };
  } else credited = { kind: 'amount', amount: v.amount! };

  const amountRemaining = inv.total - inv.creditedAmount;
  const taxIncluded = BigInt(((inv.metadata ?? {}) as Record<string, string>).taxIncluded ?? '0');
  const paid = inv.status === invoicePaid;
  const amounts = noteAmounts(
    {
      subtotal: inv.subtotal,
      discount: inv.discount,
      tax: inv.tax,
      taxIncluded,
      total: inv.total,
      amountRemaining,
      amountDue: inv.amountDue,
      paid,
    },
    prior,
    credited,
  );
  const field = v.lines ? 'lines' : 'amount';
  if (amounts.total <= 0n) throw err.validation(field, 'the credit note total must be positive');
  if (amounts.total > amountRemaining)
    throw err.of(
      'amount_exceeds_remaining',
      `The credit note total ${amounts.total} exceeds what remains to credit on the invoice (${amountRemaining})`,
      field,
    );
  if (credited.kind === 'amount')
    lines.push({
      workspaceId: scope.workspaceId,
      mode: scope.mode,
      position: 0,
      type: 'custom',
      invoiceLineId: null,
      creditedBy: null,
      description: `Kredit untuk faktur ${inv.number} / Credit for invoice ${inv.number}`,
      quantity: 1,
      unitAmount: amounts.subtotal,
      amount: amounts.subtotal,
    });
  const split = splitNote({ amountDue: inv.amountDue, paid }, amounts, v.parts);
  if (!split)
    throw err.validation(
      'refundAmount',
      'refundAmount + creditAmount + outOfBandAmount must equal the post-payment part of the note',
    );
  return {
    note: {
      workspaceId: scope.workspaceId,
      mode: scope.mode,
      invoiceId: inv.id,
      customerId: inv.customerId,
      reason: v.reason,
      memo: v.memo,
      currency: inv.currency,
      ...amounts,
      ...split,
      refundId: null,
      refundStatus: null,
      balanceTransactionId: null,
      testClockId: inv.testClockId,
      voidedAt: null,
      metadata: v.metadata,
    },
    lines,
  };
}
