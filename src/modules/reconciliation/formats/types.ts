// The seam between the import pipeline and the file formats (docs/reconciliation.md, Formats): a format
// turns the bytes of one file into staged rows, one chunk at a time, and knows nothing of the database.

export type ReconSource = 'provider_report' | 'bank_statement';
export type ProviderFormat = 'generic' | 'provider_a' | 'provider_b' | 'provider_c';
export type BankFormat = 'generic_bank' | 'bca' | 'bca_personal' | 'mandiri' | 'mt940';
export type ReconFormat = ProviderFormat | BankFormat;
export type ProviderRowType = 'payment' | 'refund' | 'payout' | 'fee' | 'adjustment';

/** One provider-report line in the generic shape, whatever format it came in. */
export interface ProviderRowInput {
  /** 1-based physical line of the file (the header is line 1); a folded native row takes its first line. */
  line: number;
  transactionId: string;
  type: ProviderRowType;
  reference: string | null;
  providerReference: string | null;
  occurredAt: Date;
  currency: string;
  /** Signed minor units as seen from the merchant's balance at the provider. */
  amount: number;
  fee: number;
  feeVat: number;
  withholdingTax: number;
  /** amount - fee - feeVat - withholdingTax. */
  net: number;
  settlementId: string | null;
  settledAt: Date | null;
  method: string | null;
  /** At most 500 characters (the content hash keeps the full text). */
  description: string | null;
  balanceAfter: number | null;
  /** Lower-case hex SHA-256 of the normalized row, full description included: part of the row key. */
  contentHash: string;
}

/** One bank-statement line. */
export interface BankRowInput {
  line: number;
  /** The statement's own line id (generic `line_id`, MT940 bank reference), else null. */
  lineId: string | null;
  /** `YYYY-MM-DD`. */
  valueDate: string;
  direction: 'credit' | 'debit';
  /** Minor units, > 0. */
  amount: number;
  currency: string;
  description: string;
  reference: string | null;
  balanceAfter: number | null;
  /**
   * The row key within its bank account: `id:<lineId>` when the line has one, else
   * `h:<valueDate>:<direction>:<amount>:<currency>:<sha256 hex of description \u0000 reference>:<n>`, n the
   * 1-based occurrence of that tuple inside the file.
   */
  rowKey: string;
}

export type RowInput = ProviderRowInput | BankRowInput;

export type ReconFileErrorCode = 'invalid_file' | 'invalid_header' | 'invalid_row' | 'validation_error';

/** Why a file is refused whole; `line` is set for `invalid_row` (and for `invalid_file` where one line is at fault). */
export class ReconFileError extends Error {
  constructor(
    readonly code: ReconFileErrorCode,
    readonly field: string,
    message: string,
    readonly line?: number,
  ) {
    super(message);
    this.name = 'ReconFileError';
  }
}

export interface FileParserOptions {
  source: ReconSource;
  format: ReconFormat;
  /** Bank statements: the account the upload names (mandiri's `Account No`, MT940's `:25:` must equal it). */
  bankAccountNumber?: string;
  /** IANA zone of the workspace: a `YYYY-MM-DD` provider date is 00:00 there. */
  timezone: string;
}

/**
 * A streaming parser of one file. `write` takes the next chunk of bytes (any split, even inside a UTF-8
 * sequence or a quoted cell) and returns the rows completed by it; `end` returns the rest and runs the
 * whole-file checks (at least one data row, MT940 balances). Both throw `ReconFileError` at the first
 * failure. Memory is bounded by one line (64 KiB) plus the rows returned.
 */
export interface FileParser {
  write(chunk: Uint8Array): RowInput[];
  end(): RowInput[];
  /** Lines a native format marks as not booked (BCA `PEND`), counted as the import's `rowsSkipped`. */
  readonly skipped: number;
}
