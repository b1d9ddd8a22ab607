// The create (and preview) body of a credit note, checked: every refusal is 400 VALIDATION_ERROR naming the field.
import { errorsFor } from '../../core/errors.ts';
import type { CreateCreditNoteInput } from './schema.ts';
import { validateMetadata } from '../../core/validation.ts';
import { creditNoteReasons } from './states.ts';

const err = errorsFor('credit_note');
const MAX_LINES = 100;
const MAX_QUANTITY = 1_000_000_000;

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

type LineInput =
  | { kind: 'quantity'; invoiceLineId: string; quantity: number }
  | { kind: 'amount'; invoiceLineId: string; amount: number }
  | { kind: 'custom'; description: string; quantity: number; unitAmount: number };

function part(v: unknown, field: string): bigint | null {
  if (v == null) return null;
  if (!isInt(v) || v < 0) throw err.validation(field, `${field} must be an integer >= 0 in the smallest currency unit`);
  return BigInt(v);
}

/** The create (and preview) body; every refusal is 400 VALIDATION_ERROR naming the field. */
export function validateCreate(input: CreateCreditNoteInput) {
  if (typeof input.invoiceId !== 'string' || input.invoiceId.length === 0 || input.invoiceId.length > 64)
    throw err.validation('invoiceId', 'invoiceId is required: an inv_ invoice id');
  const hasLines = input.lines != null;
  const hasAmount = input.amount != null;
  if (hasLines === hasAmount) throw err.validation('lines', 'send exactly one of lines or amount');
  let lines: LineInput[] | null = null;
  if (hasLines) {
    const raw = input.lines as unknown;
    if (!Array.isArray(raw) || raw.length < 1 || raw.length > MAX_LINES)
      throw err.validation('lines', `lines must be an array of 1-${MAX_LINES} lines`);
    lines = raw.map((l, i): LineInput => {
      const f = (name: string) => `lines[${i}].${name}`;
      if (!l || typeof l !== 'object') throw err.validation(`lines[${i}]`, 'each line must be an object');
      if (l.invoiceLineId != null) {
        if (typeof l.invoiceLineId !== 'string' || l.invoiceLineId.length > 64)
          throw err.validation(f('invoiceLineId'), 'invoiceLineId must be an il_ invoice line id');
        if ((l.quantity == null) === (l.amount == null))
          throw err.validation(f('quantity'), 'an invoice line is credited by exactly one of quantity or amount');
        if (l.description != null || l.unitAmount != null)
          throw err.validation(f('description'), 'description and unitAmount are for custom lines only');
        if (l.quantity != null) {
          if (!isInt(l.quantity) || l.quantity < 1 || l.quantity > MAX_QUANTITY)
            throw err.validation(f('quantity'), 'quantity must be a positive integer');
          return { kind: 'quantity', invoiceLineId: l.invoiceLineId, quantity: l.quantity };
        }
        if (!isInt(l.amount) || l.amount < 1)
          throw err.validation(f('amount'), 'amount must be a positive integer in the smallest currency unit');
        return { kind: 'amount', invoiceLineId: l.invoiceLineId, amount: l.amount };
      }
      if (typeof l.description !== 'string' || l.description.length < 1 || l.description.length > 255)
        throw err.validation(f('description'), 'a custom line needs a description of 1-255 characters');
      if (!isInt(l.quantity) || l.quantity < 1 || l.quantity > MAX_QUANTITY)
        throw err.validation(f('quantity'), 'quantity must be a positive integer');
      if (!isInt(l.unitAmount) || l.unitAmount < 1)
        throw err.validation(f('unitAmount'), 'unitAmount must be a positive integer in the smallest currency unit');
      if (l.amount != null) throw err.validation(f('amount'), 'a custom line takes quantity and unitAmount');
      if (!Number.isSafeInteger(l.quantity * l.unitAmount))
        throw err.validation(f('unitAmount'), 'quantity x unitAmount is too large');
      return { kind: 'custom', description: l.description, quantity: l.quantity, unitAmount: l.unitAmount };
    });
  }
  if (hasAmount && (!isInt(input.amount) || (input.amount as number) < 1))
    throw err.validation('amount', 'amount must be a positive integer in the smallest currency unit');
  const reason = input.reason ?? null;
  if (reason !== null && !(creditNoteReasons as readonly string[]).includes(reason))
    throw err.validation('reason', `reason must be one of ${creditNoteReasons.join(', ')}`);
  if (input.memo != null && (typeof input.memo !== 'string' || input.memo.length > 500))
    throw err.validation('memo', 'memo must be a string of at most 500 characters');
  const metadata = input.metadata == null ? null : validateMetadata(input.metadata, 'metadata', 'credit_note');
  return {
    invoiceId: input.invoiceId,
    lines,
    amount: hasAmount ? BigInt(input.amount as number) : null,
    reason,
    memo: input.memo ?? null,
    metadata,
    parts: {
      refundAmount: part(input.refundAmount, 'refundAmount'),
      creditAmount: part(input.creditAmount, 'creditAmount'),
      outOfBandAmount: part(input.outOfBandAmount, 'outOfBandAmount'),
    },
  };
}
export type Valid = ReturnType<typeof validateCreate>;
