// Drives a FileParser over bytes the way the upload does (any chunking) and reads its failures.
import { expect } from 'vitest';
import {
  createFileParser,
  type FileParserOptions,
  ReconFileError,
  type RowInput,
} from '../../../src/modules/reconciliation/formats/index.ts';

export const provider: FileParserOptions = { source: 'provider_report', format: 'generic', timezone: 'Asia/Jakarta' };
export const bank: FileParserOptions = { source: 'bank_statement', format: 'generic_bank', timezone: 'UTC' };

export const bytes = (text: string | Uint8Array) => (typeof text === 'string' ? Buffer.from(text, 'utf8') : text);

/** Every row of `file`, written in chunks of `size` bytes (whole when omitted). */
export function parse(opts: FileParserOptions, file: string | Uint8Array, size?: number) {
  const data = bytes(file);
  const parser = createFileParser(opts);
  const rows: RowInput[] = [];
  const step = size ?? Math.max(data.length, 1);
  for (let i = 0; i < data.length; i += step) rows.push(...parser.write(data.subarray(i, i + step)));
  rows.push(...parser.end());
  return { rows, skipped: parser.skipped };
}

/** Rows of `file` written as two chunks split at `at`. */
export function parseSplit(opts: FileParserOptions, file: string | Uint8Array, at: number) {
  const data = bytes(file);
  const parser = createFileParser(opts);
  const rows = [...parser.write(data.subarray(0, at)), ...parser.write(data.subarray(at)), ...parser.end()];
  return { rows, skipped: parser.skipped };
}

/** The ReconFileError `run` throws, as the fields an API error carries. */
export function failure(run: () => unknown) {
  try {
    run();
  } catch (e) {
    if (!(e instanceof ReconFileError)) throw e;
    return { code: e.code, field: e.field, line: e.line };
  }
  throw new Error('expected a ReconFileError, nothing was thrown');
}

/** Asserts the file fails with `code`, `field` and `line` (undefined when the error names none). */
export function expectRefused(
  opts: FileParserOptions,
  file: string | Uint8Array,
  code: string,
  field: string,
  line?: number,
) {
  expect(failure(() => parse(opts, file))).toEqual({ code, field, line });
}
