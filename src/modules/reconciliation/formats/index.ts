// The file parsers behind the seam of ./types.ts (docs/reconciliation.md, Formats): bytes in, staged rows out,
// the first failure thrown as a ReconFileError and the parser dead after it.
import { BcaFormat } from './bca.ts';
import { CsvRecords } from './csv.ts';
import { GenericBankFormat } from './generic-bank.ts';
import { GenericProviderFormat } from './generic.ts';
import type { RecordFormat } from './header.ts';
import { LineReader, fileError } from './lines.ts';
import { MandiriFormat } from './mandiri.ts';
import { Mt940Format } from './mt940.ts';
import { ProviderAFormat } from './provider-a.ts';
import {
  type BankFormat,
  type FileParser,
  type FileParserOptions,
  type ProviderFormat,
  ReconFileError,
  type ReconFormat,
  type RowInput,
} from './types.ts';
import { isTimeZone } from './values.ts';

export * from './types.ts';

const providerFormats: readonly ProviderFormat[] = ['generic', 'provider_a', 'provider_b', 'provider_c'];
const bankFormats: readonly BankFormat[] = ['generic_bank', 'bca', 'bca_personal', 'mandiri', 'mt940'];

/** Formats whose column list was never recorded from a real export (docs/reconciliation.md, Unverified formats). */
const unverified: readonly ReconFormat[] = ['provider_b', 'provider_c'];

function optionError(field: string, message: string): ReconFileError {
  return new ReconFileError('validation_error', field, message);
}

/** Refuses options no parser can honour, before a byte is read. */
function checkOptions(opts: FileParserOptions): void {
  const formats: readonly ReconFormat[] = opts.source === 'provider_report' ? providerFormats : bankFormats;
  if (!formats.includes(opts.format)) throw optionError('format', `format ${opts.format} is not one of ${opts.source}`);
  if (unverified.includes(opts.format))
    throw optionError('format', `format ${opts.format} is not accepted until a real export of it is recorded`);
  if (opts.source === 'provider_report' && !isTimeZone(opts.timezone))
    throw optionError('timezone', `unknown time zone "${opts.timezone}"`);
  if ((opts.format === 'mandiri' || opts.format === 'mt940') && !opts.bankAccountNumber)
    throw optionError('bankAccountNumber', `format ${opts.format} checks the statement's account number`);
}

function createRecordFormat(opts: FileParserOptions): RecordFormat {
  switch (opts.format) {
    case 'generic':
      return new GenericProviderFormat(opts.timezone);
    case 'provider_a':
      return new ProviderAFormat(opts.timezone);
    case 'generic_bank':
      return new GenericBankFormat();
    case 'bca':
    case 'bca_personal':
      return new BcaFormat(opts.format === 'bca_personal');
    case 'mandiri':
      return new MandiriFormat(opts.bankAccountNumber!);
    default:
      throw optionError('format', `format ${opts.format} is not implemented`);
  }
}

/** The line-level pipeline of a format: CSV formats read records, MT940 reads lines. */
interface LineFormat {
  line(text: string, line: number): void;
  end(): void;
  readonly skipped: number;
}

function wrapCsv(format: RecordFormat, out: { rows: RowInput[] }, lenient: boolean): LineFormat {
  const records = new CsvRecords((cells, line) => format.record(cells, line, out.rows), lenient);
  return {
    line: records.line,
    end() {
      records.end();
      format.end(out.rows);
    },
    get skipped() {
      return format.skipped;
    },
  };
}

/** A streaming parser for one file of `opts.format`; see FileParser for the contract. */
export function createFileParser(opts: FileParserOptions): FileParser {
  checkOptions(opts);
  const out = { rows: [] as RowInput[] };
  const format =
    opts.format === 'mt940'
      ? new Mt940Format(opts.bankAccountNumber!, out)
      : wrapCsv(createRecordFormat(opts), out, opts.format !== 'generic' && opts.format !== 'generic_bank');
  const reader = new LineReader(format.line);
  let emitted = 0;
  let failure: unknown = null;
  let ended = false;

  const run = (step: () => void): RowInput[] => {
    if (failure !== null) throw failure;
    if (ended) throw new Error('the parser has ended');
    try {
      step();
    } catch (e) {
      failure = e;
      throw e;
    }
    const rows = out.rows;
    out.rows = [];
    emitted += rows.length;
    return rows;
  };

  return {
    write: (chunk) => run(() => reader.write(chunk)),
    end: () => {
      const rows = run(() => {
        if (!reader.sawBytes) throw fileError('the file is empty');
        reader.end();
        format.end();
        if (emitted + out.rows.length === 0) throw fileError('the file has no data row');
      });
      ended = true;
      return rows;
    },
    get skipped() {
      return format.skipped;
    },
  };
}
