// provider_a's balance history CSV (docs/reconciliation.md, provider_a balance history): each balance movement is
// a line, and the adjacent lines of one `Transaction ID` (the transaction, its fee, the VAT on the fee, their
// reversals) fold into one generic row.
import { type RecordFormat, headerError } from './header.ts';
import { IdSet } from './id-set.ts';
import { fileError } from './lines.ts';
import { cleanCell } from './native.ts';
import { finishProviderRow } from './provider-row.ts';
import type { ProviderRowType, RowInput } from './types.ts';
import { ZoneMidnights, isKnownCurrency, parseDecimal, parseProviderDate, rowError } from './values.ts';

const columns = [
  'Product ID',
  'Transaction ID',
  'Transaction Type',
  'Line Type',
  'Payment Channel',
  'Reference',
  'Currency',
  'Amount',
  'Balance',
  'Debit or Credit',
  'Created Date ISO',
] as const;
type Column = (typeof columns)[number];

const rowTypes: Record<string, ProviderRowType> = {
  PAYMENT: 'payment',
  REFUND: 'refund',
  WITHDRAWAL: 'payout',
  DISBURSEMENT: 'payout',
};

/** The component of the row a line type moves; `_REVERSAL` lines move the same one the other way (D/C). */
const components: Record<string, 'amount' | 'fee' | 'feeVat'> = {
  TRANSACTION: 'amount',
  TRANSACTION_REVERSAL: 'amount',
  FEE: 'fee',
  FEE_REVERSAL: 'fee',
  VAT: 'feeVat',
  VAT_REVERSAL: 'feeVat',
};

/** The transaction being folded: its first line's values and the sums so far. */
interface Fold {
  line: number;
  id: string;
  type: string;
  productId: string;
  reference: string;
  currency: string;
  occurredAt: number;
  amount: number;
  fee: number;
  feeVat: number;
  hasTransaction: boolean;
  balance: number | null;
}

export class ProviderAFormat implements RecordFormat {
  readonly skipped = 0;
  private at: Record<Column, number> | null = null;
  private open: Fold | null = null;
  private readonly closed = new IdSet();
  private readonly midnights: ZoneMidnights;

  constructor(timezone: string) {
    this.midnights = new ZoneMidnights(timezone);
  }

  record(cells: string[], line: number, out: RowInput[]): void {
    if (this.at === null) {
      this.at = indexHeader(cells);
      return;
    }
    const cell = (c: Column) => cleanCell(cells[this.at![c]]);
    const id = cell('Transaction ID');
    if (id === '') throw rowError('Transaction ID', line, 'Transaction ID is empty');
    if (this.open !== null && this.open.id !== id) {
      out.push(this.finish(this.open));
      this.open = null;
    }
    if (this.open === null) {
      if (!this.closed.add(id))
        throw rowError('Transaction ID', line, `the lines of transaction "${id}" are not adjacent (or it repeats)`);
      this.open = this.start(cell, id, line);
    }
    this.addLine(this.open, cell, line);
  }

  end(out: RowInput[]): void {
    if (this.at === null) throw fileError('the file has no header row');
    if (this.open !== null) out.push(this.finish(this.open));
    this.open = null;
  }

  private start(cell: (c: Column) => string, id: string, line: number): Fold {
    const currency = cell('Currency');
    if (!isKnownCurrency(currency)) throw rowError('Currency', line, `unknown currency "${currency}"`);
    const occurredAt = parseProviderDate(cell('Created Date ISO'), this.midnights);
    if (occurredAt === null) throw rowError('Created Date ISO', line, `"${cell('Created Date ISO')}" is not a date`);
    return {
      line,
      id,
      type: cell('Transaction Type').toUpperCase(),
      productId: cell('Product ID'),
      reference: cell('Reference'),
      currency,
      occurredAt,
      amount: 0,
      fee: 0,
      feeVat: 0,
      hasTransaction: false,
      balance: null,
    };
  }

  /** Adds one balance line to its transaction: credits raise the balance, debits lower it. */
  private addLine(fold: Fold, cell: (c: Column) => string, line: number): void {
    const lineType = cell('Line Type').toUpperCase();
    const component = components[lineType];
    if (component === undefined) throw rowError('Line Type', line, `unknown line type "${cell('Line Type')}"`);
    if (cell('Currency') !== fold.currency) throw rowError('Currency', line, 'the lines of one transaction differ');
    const dc = cell('Debit or Credit').toUpperCase();
    if (dc !== 'DEBIT' && dc !== 'CREDIT')
      throw rowError('Debit or Credit', line, `"${dc}" is neither DEBIT nor CREDIT`);
    const value = parseDecimal(cell('Amount'), fold.currency);
    if (value === null)
      throw rowError('Amount', line, `"${cell('Amount')}" has decimals ${fold.currency} does not have`);
    const signed = dc === 'CREDIT' ? value : -value;
    // The merchant's balance moves by `signed`: a fee or VAT taken is a debit, so it adds to fee with its sign flipped.
    if (component === 'amount') {
      fold.amount += signed;
      fold.hasTransaction = true;
    } else fold[component] -= signed;
    if (!Number.isSafeInteger(fold.amount) || !Number.isSafeInteger(fold[component]))
      throw rowError('Amount', line, 'the transaction sums past 2^53 - 1');
    const balance = cell('Balance');
    if (balance !== '') {
      const negative = balance.startsWith('-');
      const b = parseDecimal(negative ? balance.slice(1) : balance, fold.currency);
      if (b === null) throw rowError('Balance', line, `"${balance}" is not an amount of ${fold.currency}`);
      fold.balance = negative ? -b : b;
    }
  }

  /** The folded row, checked as a generic row is (signs, fees), with the fields named as the export names them. */
  private finish(f: Fold) {
    const type: ProviderRowType = rowTypes[f.type] ?? (!f.hasTransaction && f.amount === 0 ? 'fee' : 'adjustment');
    const signOk =
      type === 'payment'
        ? f.amount > 0
        : type === 'fee'
          ? f.amount === 0
          : type === 'adjustment'
            ? f.amount !== 0
            : f.amount < 0;
    if (!signOk) throw rowError('Amount', f.line, `a ${type} transaction sums to ${f.amount}`);
    if (f.fee < 0 || f.feeVat < 0) throw rowError('Amount', f.line, 'the fee or VAT lines sum below zero');
    if (type === 'fee' && f.fee === 0 && f.feeVat === 0) throw rowError('Amount', f.line, 'a fee transaction of zero');
    return finishProviderRow({
      line: f.line,
      transactionId: f.id,
      type,
      reference: f.reference || null,
      providerReference: f.productId || null,
      occurredAt: new Date(f.occurredAt),
      currency: f.currency,
      amount: f.amount,
      fee: f.fee,
      feeVat: f.feeVat,
      withholdingTax: 0,
      net: f.amount - f.fee - f.feeVat,
      settlementId: null,
      settledAt: null,
      method: null,
      description: null,
      balanceAfter: f.balance,
      contentHash: '',
    });
  }
}

/** Finds the named columns (trimmed, quotes dropped, any case; other columns ignored). */
function indexHeader(cells: string[]): Record<Column, number> {
  const keys = cells.map((c) => cleanCell(c).toLowerCase());
  const at = {} as Record<Column, number>;
  for (const name of columns) {
    const k = keys.indexOf(name.toLowerCase());
    if (k >= 0 && keys.indexOf(name.toLowerCase(), k + 1) >= 0)
      throw headerError(name, `column "${name}" appears twice`);
    at[name] = k;
  }
  for (const name of columns) if (at[name] < 0) throw headerError(name, `required column "${name}" is missing`);
  return at;
}
