// The generic provider report (docs/reconciliation.md, Generic provider report): one CSV row per provider
// transaction, signed minor units from the merchant's balance at the provider.
import { orderCells, requireCells } from './cells.ts';
import { fileError } from './lines.ts';
import { type RecordFormat, indexColumns } from './header.ts';
import { IdSet } from './id-set.ts';
import { finishProviderRow } from './provider-row.ts';
import type { ProviderRowType, RowInput } from './types.ts';
import { ZoneMidnights, countChars, isKnownCurrency, parseMinor, parseProviderDate, rowError } from './values.ts';

export const genericColumns = [
  'transaction_id',
  'type',
  'reference',
  'provider_reference',
  'occurred_at',
  'currency',
  'amount',
  'fee',
  'fee_vat',
  'withholding_tax',
  'net',
  'settlement_id',
  'settled_at',
  'method',
  'description',
] as const;
const required = ['transaction_id', 'type', 'occurred_at', 'currency', 'amount'];
const requiredMask = Uint8Array.from(genericColumns, (c) => (required.includes(c) ? 1 : 0));

const C = Object.fromEntries(genericColumns.map((c, k) => [c, k])) as Record<(typeof genericColumns)[number], number>;

const types = new Set<string>(['payment', 'refund', 'payout', 'fee', 'adjustment']);
/** The checkout methods a row may name (the adapters' `paymentMethods`; a test keeps the two equal). */
export const rowMethods = new Set(['qris', 'va', 'ewallet', 'card', 'retail', 'provider_c']);

/** Whether `amount` has the sign its type allows, as seen from the merchant's balance at the provider. */
function allowsSign(type: ProviderRowType, amount: number): boolean {
  switch (type) {
    case 'payment':
      return amount > 0;
    case 'refund':
    case 'payout':
      return amount < 0;
    case 'fee':
      return amount === 0;
    default:
      return amount !== 0;
  }
}

export class GenericProviderFormat implements RecordFormat {
  readonly skipped = 0;
  private header: string[] | null = null;
  private indexes: Int32Array = new Int32Array(0);
  private readonly values: string[] = genericColumns.map(() => '');
  private readonly seenIds = new IdSet();
  private readonly midnights: ZoneMidnights;

  constructor(timezone: string) {
    this.midnights = new ZoneMidnights(timezone);
  }

  record(cells: string[], line: number, out: RowInput[]): void {
    if (this.header === null) {
      this.indexes = indexColumns(cells, genericColumns, required);
      this.header = cells;
      return;
    }
    out.push(this.row(orderCells(cells, this.indexes, this.header, line, this.values), line));
  }

  end(): void {
    if (this.header === null) throw fileError('the file has no header row');
  }

  /** Cells, then types in column order, then the cross-field rules, then the file-wide id rule. */
  private row(v: string[], line: number): RowInput {
    requireCells(v, genericColumns, requiredMask, line);
    const transactionId = v[C.transaction_id];
    if (transactionId.length > 100 && countChars(transactionId) > 100)
      throw rowError('transaction_id', line, 'transaction_id is longer than 100 characters');
    if (!types.has(v[C.type])) throw rowError('type', line, `unknown type "${v[C.type]}"`);
    const type = v[C.type] as ProviderRowType;
    const occurredAt = parseProviderDate(v[C.occurred_at], this.midnights);
    if (occurredAt === null) throw rowError('occurred_at', line, `occurred_at "${v[C.occurred_at]}" is not a date`);
    const currency = v[C.currency];
    if (!isKnownCurrency(currency)) throw rowError('currency', line, `unknown currency "${currency}"`);
    const amount = readMinor(v, C.amount, 'amount', line, true)!;
    const fee = readFee(v, C.fee, 'fee', line);
    const feeVat = readFee(v, C.fee_vat, 'fee_vat', line);
    const withholdingTax = readFee(v, C.withholding_tax, 'withholding_tax', line);
    const statedNet = readMinor(v, C.net, 'net', line, true);
    let settledAt: number | null = null;
    if (v[C.settled_at] !== '') {
      settledAt = parseProviderDate(v[C.settled_at], this.midnights);
      if (settledAt === null) throw rowError('settled_at', line, `settled_at "${v[C.settled_at]}" is not a date`);
    }
    const method = v[C.method];
    if (method !== '' && !rowMethods.has(method)) throw rowError('method', line, `unknown method "${method}"`);

    if (!allowsSign(type, amount)) throw rowError('amount', line, `amount ${amount} has a sign a ${type} row forbids`);
    if (type === 'fee' && fee === 0 && feeVat === 0) throw rowError('fee', line, 'a fee row needs fee or fee_vat > 0');
    const net = amount - fee - feeVat - withholdingTax;
    if (!Number.isSafeInteger(net)) throw rowError('net', line, 'net is beyond 2^53 - 1');
    if (statedNet !== null && statedNet !== net)
      throw rowError('net', line, `net ${statedNet} is not amount - fee - fee_vat - withholding_tax (${net})`);
    if (!this.seenIds.add(transactionId))
      throw rowError('transaction_id', line, `transaction_id "${transactionId}" appears twice in the file`);

    return finishProviderRow({
      line,
      transactionId,
      type,
      reference: v[C.reference] || null,
      providerReference: v[C.provider_reference] || null,
      occurredAt: new Date(occurredAt),
      currency,
      amount,
      fee,
      feeVat,
      withholdingTax,
      net,
      settlementId: v[C.settlement_id] || null,
      settledAt: settledAt === null ? null : new Date(settledAt),
      method: method || null,
      balanceAfter: null,
      description: v[C.description] || null,
      contentHash: '',
    });
  }
}

/** An optional or required signed amount cell; null when empty (and not required). */
function readMinor(v: string[], k: number, field: string, line: number, signed: boolean): number | null {
  if (v[k] === '') return null;
  const n = parseMinor(v[k]);
  if (n === null || (!signed && n < 0))
    throw rowError(field, line, `${field} "${v[k]}" is not ${signed ? 'an' : 'a non-negative'} integer of minor units`);
  return n;
}

/** `fee`, `fee_vat`, `withholding_tax`: >= 0, default 0. */
function readFee(v: string[], k: number, field: string, line: number): number {
  return readMinor(v, k, field, line, false) ?? 0;
}
