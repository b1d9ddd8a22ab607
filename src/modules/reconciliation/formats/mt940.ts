// SWIFT MT940 statements (docs/reconciliation.md, MT940): text lines, not CSV. Each `:20:` block names its
// account (`:25:`), opens with a balance, lists `:61:` lines (each with its `:86:` text) and closes with a balance
// that must equal the opening plus the lines.
import { BankRowKeys } from './bank-row.ts';
import { fileError } from './lines.ts';
import { normalizeAccount } from './native.ts';
import type { BankRowInput, RowInput } from './types.ts';
import { isCalendarDate, isKnownCurrency, parseDecimal, rowError } from './values.ts';

/** A statement block being read. */
interface Block {
  accountChecked: boolean;
  currency: string | null;
  opening: number;
  sum: number;
  closed: boolean;
}

const statementLine =
  /^([0-9]{2})([0-9]{2})([0-9]{2})(?:[0-9]{4})?(RC|RD|C|D)([A-Z])?([0-9]{1,15}(?:,[0-9]*)?)([NFS][A-Z0-9]{3})(.*)$/;
const balance = /^(C|D)([0-9]{2})([0-9]{2})([0-9]{2})([A-Z]{3})([0-9]{1,15}(?:,[0-9]*)?)$/;

/** The bank's placeholder for a missing reference. */
const dropNoRef = (ref: string) => (ref === '' || ref.toUpperCase() === 'NONREF' ? null : ref);

export class Mt940Format {
  readonly skipped = 0;
  private block: Block | null = null;
  private tag = '';
  /** The `:61:` line waiting for its `:86:` text, and that text so far. */
  private pending: { line: number; fields: Omit<BankRowInput, 'line' | 'rowKey' | 'description'> } | null = null;
  private description: string[] = [];
  /** The first balance failure: reported at the end, after every line was read (docs order). */
  private balanceFailure: { field: string; message: string; line?: number } | null = null;
  private rows = 0;
  private readonly keys = new BankRowKeys(':61:');
  private readonly account: string;
  private seenBlock = false;

  constructor(
    bankAccountNumber: string,
    private readonly out: { rows: RowInput[] },
  ) {
    this.account = normalizeAccount(bankAccountNumber);
  }

  readonly line = (raw: string, line: number): void => {
    const text = raw.trimEnd();
    if (text === '' || text.startsWith('{') || text === '-' || text === '-}') return;
    const m = /^:([0-9]{2}[A-Z]?):(.*)$/.exec(text);
    if (!m) {
      // A continuation: `:86:` text goes on, the rest (a `:61:` second line, other fields) is not used.
      if (this.tag === '86' && this.pending) this.description.push(text);
      return;
    }
    const [, tag, value] = m;
    if (tag !== '86') this.flush();
    this.tag = tag;
    this.onTag(tag, value.trim(), line);
  };

  /** Whole-file checks in the documented order: a statement, a data row, then the balances. */
  end(): void {
    this.flush();
    if (this.block && !this.block.closed) this.failBalance(':62F:', 'the last statement has no closing balance');
    if (!this.seenBlock) throw fileError('no MT940 statement (":20:") in the file');
    if (this.rows === 0) throw fileError('the file has no statement line');
    const f = this.balanceFailure;
    if (f) throw fileError(f.message, f.line, f.field);
  }

  private onTag(tag: string, value: string, line: number): void {
    if (tag === '20') {
      if (this.block && !this.block.closed)
        this.failBalance(':62F:', 'a statement ends without a closing balance', line);
      this.block = { accountChecked: false, currency: null, opening: 0, sum: 0, closed: false };
      this.seenBlock = true;
      return;
    }
    const block = this.block;
    if (block === null) {
      if (tag === '61' || tag === '60F' || tag === '60M' || tag === '25')
        throw fileError(`:${tag}: before ":20:"`, line);
      return;
    }
    if (tag === '25') this.checkAccount(block, value, line);
    else if (tag === '60F' || tag === '60M') this.open(block, value, line);
    else if (tag === '61') this.statementLine(block, value, line);
    else if (tag === '86' && this.pending) this.description = [value];
    else if (tag === '62F' || tag === '62M') this.close(block, value, line);
  }

  private checkAccount(block: Block, value: string, line: number): void {
    const account = normalizeAccount(value.slice(value.lastIndexOf('/') + 1));
    if (account !== this.account) throw fileError(`account "${value}" is not the statement's account`, line, ':25:');
    block.accountChecked = true;
  }

  private open(block: Block, value: string, line: number): void {
    if (!block.accountChecked) throw fileError('the statement names no account (":25:")', line, ':25:');
    const b = parseBalance(value);
    if (b === null) throw fileError(`opening balance "${value}" is not a balance`, line, ':60F:');
    block.currency = b.currency;
    block.opening = b.amount;
  }

  private statementLine(block: Block, value: string, line: number): void {
    if (!block.accountChecked) throw fileError('the statement names no account (":25:")', line, ':25:');
    if (block.currency === null) throw fileError('a statement line before the opening balance', line, ':60F:');
    const m = statementLine.exec(value);
    if (!m) throw rowError(':61:', line, `"${value}" is not an MT940 statement line`);
    const [, yy, mm, dd, mark, , amountText, , refs] = m;
    const y = 2000 + Number(yy);
    if (!isCalendarDate(y, Number(mm), Number(dd))) throw rowError(':61:', line, `value date ${yy}${mm}${dd}`);
    const amount = parseDecimal(amountText, block.currency, true);
    if (amount === null || amount <= 0)
      throw rowError(':61:', line, `amount "${amountText}" is not a positive ${block.currency} amount`);
    // C and a reversed debit (RD) raise the balance; D and a reversed credit (RC) lower it.
    const direction = mark === 'C' || mark === 'RD' ? 'credit' : 'debit';
    block.sum += direction === 'credit' ? amount : -amount;
    const cut = refs.indexOf('//');
    const customerRef = (cut < 0 ? refs : refs.slice(0, cut)).trim();
    const bankRef = cut < 0 ? '' : refs.slice(cut + 2).trim();
    this.pending = {
      line,
      fields: {
        lineId: dropNoRef(bankRef),
        valueDate: `${y}-${mm}-${dd}`,
        direction,
        amount,
        currency: block.currency,
        reference: dropNoRef(customerRef),
        balanceAfter: null,
      },
    };
    this.description = [];
  }

  private close(block: Block, value: string, line: number): void {
    if (block.currency === null) throw fileError('the statement has no opening balance', line, ':60F:');
    block.closed = true;
    const b = parseBalance(value);
    const expected = block.opening + block.sum;
    if (b === null || b.currency !== block.currency)
      this.failBalance(':62F:', `closing balance "${value}" is not a balance of the statement's currency`, line);
    else if (b.amount !== expected)
      this.failBalance(':62F:', `closing balance ${b.amount} is not opening + lines (${expected})`, line);
  }

  private failBalance(field: string, message: string, line?: number): void {
    this.balanceFailure ??= { field, message, line };
  }

  /** Emits the waiting statement line with its `:86:` text. */
  private flush(): void {
    if (this.pending === null) return;
    const { line, fields } = this.pending;
    this.out.rows.push(this.keys.row(line, { ...fields, description: this.description.join('') }));
    this.rows++;
    this.pending = null;
    this.description = [];
  }
}

/** `C260101IDR1000000,00` as a signed amount in minor units of its currency; null when malformed. */
function parseBalance(value: string): { currency: string; amount: number } | null {
  const m = balance.exec(value);
  if (!m || !isKnownCurrency(m[5])) return null;
  if (!isCalendarDate(2000 + Number(m[2]), Number(m[3]), Number(m[4]))) return null;
  const amount = parseDecimal(m[6], m[5], true);
  if (amount === null) return null;
  return { currency: m[5], amount: m[1] === 'D' ? -amount : amount };
}
