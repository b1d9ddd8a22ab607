import { sql } from '../../core/db/sql-template.ts';
import { manyBy, type Source } from '../../core/loaders.ts';
import type { CreditNote, CreditNoteLine } from '../../generated/prisma/client.ts';
import type { CreditNoteRow } from './fields.ts';

const money = ['subtotal', 'discountAmount', 'tax', 'taxIncluded', 'total', 'prePaymentAmount', 'postPaymentAmount'];
const moneyMore = ['refundAmount', 'creditAmount', 'outOfBandAmount', 'prePaymentTax'];
const bigints = (row: Record<string, unknown>, cols: string[]) => {
  const out = { ...row };
  for (const c of cols) out[c] = BigInt(out[c] as string);
  return out;
};

/** Batched reads for the graph's edges (src/core/loaders.ts); a note's lines come with its own edge. */
const notes: Source<CreditNoteRow> = {
  table: 'credit_notes',
  scope: 'svc:credit_note:read',
  shape: (row, auth) =>
    ({
      ...(bigints(row, [...money, ...moneyMore]) as unknown as CreditNote),
      accountId: auth.accountId,
    }) as CreditNoteRow,
};
const lines: Source<CreditNoteLine> = {
  table: 'credit_note_lines',
  scope: 'svc:credit_note:read',
  shape: (row) => bigints(row, ['unitAmount', 'amount']) as unknown as CreditNoteLine,
};

/** `Invoice.creditNotes`: every note of the invoice, oldest first (an invoice has few). */
export const creditNotesOfInvoice = manyBy(notes, { column: 'invoiceId', orderBy: sql`t."createdAt", t.id` });
export const linesOfCreditNote = manyBy(lines, { column: 'creditNoteId', orderBy: sql`t.position` });
