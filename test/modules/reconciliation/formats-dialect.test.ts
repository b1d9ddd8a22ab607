// The byte-level reader and the CSV dialect every CSV format shares: chunking, BOM, CRLF, quoting, the line cap.
import { describe, expect, it } from 'vitest';
import { createFileParser } from '../../../src/modules/reconciliation/formats/index.ts';
import { maxLineBytes } from '../../../src/modules/reconciliation/formats/lines.ts';
import type { ProviderRowInput } from '../../../src/modules/reconciliation/formats/types.ts';
import { bank, bytes, expectRefused, failure, parse, parseSplit, provider } from './format-helpers.ts';

const header = 'transaction_id,type,occurred_at,currency,amount,description';
/** A small file with a BOM, CRLF, a blank line, a quoted cell spanning lines and multi-byte characters. */
const small = `\ufeff${header}\r\ntx1,payment,2026-01-02,IDR,1000,"kopi ☕, ""dua""\r\nbaris"\r\n\r\ntx2,refund,2026-01-02T01:00:00Z,IDR,-500,résumé 😀\n`;

describe('reader and dialect', () => {
  it('reads a file with a BOM, CRLF, a blank line and a quoted cell over two lines', () => {
    const { rows } = parse(provider, small);
    const [a, b] = rows as ProviderRowInput[];
    expect(rows).toHaveLength(2);
    expect(a).toMatchObject({ line: 2, transactionId: 'tx1', description: 'kopi ☕, "dua"\nbaris' });
    expect(b).toMatchObject({ line: 5, transactionId: 'tx2', description: 'résumé 😀' });
  });

  it('gives the same rows whatever byte the chunks split at, and in one-byte chunks', () => {
    const data = bytes(small);
    const whole = parse(provider, data).rows;
    for (let at = 0; at <= data.length; at++) expect(parseSplit(provider, data, at).rows).toEqual(whole);
    expect(parse(provider, data, 1).rows).toEqual(whole);
    expect(parse(provider, data, 7).rows).toEqual(whole);
  });

  it('reads the last line without a line break, and LF and CRLF files alike', () => {
    const lf = `${header}\ntx1,payment,2026-01-02,IDR,1000,x`;
    const crlf = `${header}\r\ntx1,payment,2026-01-02,IDR,1000,x\r\n`;
    expect(parse(provider, lf).rows).toEqual(parse(provider, crlf).rows);
  });

  it('reads a line break inside a quoted cell as LF whether the file uses LF or CRLF', () => {
    const lf = parse(provider, `${header}\ntx1,payment,2026-01-02,IDR,1,"a\nb"\n`).rows[0] as ProviderRowInput;
    const crlf = parse(provider, `${header}\r\ntx1,payment,2026-01-02,IDR,1,"a\r\nb"\r\n`).rows[0] as ProviderRowInput;
    expect(lf.description).toBe('a\nb');
    expect(crlf.contentHash).toBe(lf.contentHash);
  });

  it('keeps a BOM-like character that is not at the start of the file', () => {
    const { rows } = parse(provider, `${header}\ntx1,payment,2026-01-02,IDR,1,\ufeffx\n`);
    expect((rows[0] as ProviderRowInput).description).toBe('\ufeffx');
  });

  it('refuses an empty body, a file of blank lines, and a header without data rows', () => {
    expectRefused(provider, '', 'invalid_file', 'file');
    expectRefused(provider, '\r\n\n', 'invalid_file', 'file');
    expectRefused(provider, `${header}\n\n`, 'invalid_file', 'file');
    expectRefused(bank, 'value_date,direction,amount,currency,description\n', 'invalid_file', 'file');
  });

  it('refuses invalid UTF-8 and names its line, whatever the split', () => {
    const data = Buffer.concat([
      bytes(`${header}\ntx1,payment,2026-01-02,IDR,1,caf`),
      Buffer.from([0xc3, 0x28]),
      bytes('\n'),
    ]);
    expectRefused(provider, data, 'invalid_file', 'file', 2);
    for (let at = 0; at <= data.length; at++)
      expect(failure(() => parseSplit(provider, data, at))).toEqual({ code: 'invalid_file', field: 'file', line: 2 });
    const cut = Buffer.concat([bytes(`${header}\ntx1,payment,2026-01-02,IDR,1,`), Buffer.from([0xe2, 0x98])]);
    expectRefused(provider, cut, 'invalid_file', 'file', 2);
  });

  it('accepts a line of exactly 64 KiB and refuses one byte more, without holding more than a line', () => {
    const fill = (n: number) => `tx1,payment,2026-01-02,IDR,1,${'d'.repeat(n - 29)}`;
    expect(fill(100)).toHaveLength(100);
    expect(parse(provider, `${header}\n${fill(maxLineBytes)}\r\n`, 4096).rows).toHaveLength(1);
    expectRefused(provider, `${header}\n${fill(maxLineBytes + 1)}\n`, 'invalid_file', 'file', 2);
    expectRefused(provider, `${header}\n${fill(maxLineBytes + 1)}`, 'invalid_file', 'file', 2);
    // A line that never ends is refused while it streams in: at most the cap and a CR of it are held.
    const parser = createFileParser(provider);
    parser.write(bytes(`${header}\n`));
    for (let i = 0; i < 4; i++) parser.write(bytes('x'.repeat(16_384)));
    expect(parser.write(bytes('\r'))).toEqual([]);
    expect(failure(() => parser.write(bytes('x')))).toEqual({ code: 'invalid_file', field: 'file', line: 2 });
    // Multi-byte characters count as their bytes: 21,846 three-byte characters pass 64 KiB.
    expectRefused(
      provider,
      `${header}\ntx1,payment,2026-01-02,IDR,1,${'☕'.repeat(21_846)}\n`,
      'invalid_file',
      'file',
      2,
    );
  });

  it('caps a record spanning lines as a line is capped', () => {
    const half = 'q'.repeat(40_000);
    expectRefused(provider, `${header}\ntx1,payment,2026-01-02,IDR,1,"${half}\n${half}"\n`, 'invalid_file', 'file', 3);
  });

  it('refuses broken quoting: an unclosed quote, text after a closing quote, a quote in an unquoted cell', () => {
    expectRefused(provider, `${header}\ntx1,payment,2026-01-02,IDR,1,"open\n`, 'invalid_file', 'file', 2);
    expectRefused(provider, `${header}\ntx1,payment,2026-01-02,IDR,1,"a"b\n`, 'invalid_file', 'file', 2);
    expectRefused(provider, `${header}\ntx1,payment,2026-01-02,IDR,1,a"b\n`, 'invalid_file', 'file', 2);
  });

  it('reads quoted empty cells, trailing empty cells and doubled quotes', () => {
    const { rows } = parse(
      provider,
      `${header}\n"tx1","payment","2026-01-02","IDR","1",""\ntx2,payment,2026-01-02,IDR,1,""""\n`,
    );
    expect(rows.map((r) => (r as ProviderRowInput).description)).toEqual([null, '"']);
  });

  it('is dead after a failure: later writes throw the same error', () => {
    const parser = createFileParser(provider);
    expect(failure(() => parser.write(bytes(`${header}\ntx1,nope,2026-01-02,IDR,1,\n`)))).toEqual({
      code: 'invalid_row',
      field: 'type',
      line: 2,
    });
    expect(failure(() => parser.end())).toEqual({ code: 'invalid_row', field: 'type', line: 2 });
  });
});

describe('options', () => {
  it('refuses the unverified provider formats, a format of the other source, an unknown zone, a missing account', () => {
    const refused = (o: object) => failure(() => createFileParser({ ...provider, ...o } as typeof provider));
    expect(refused({ format: 'provider_b' })).toEqual({ code: 'validation_error', field: 'format', line: undefined });
    expect(refused({ format: 'provider_c' })).toEqual({ code: 'validation_error', field: 'format', line: undefined });
    expect(refused({ format: 'generic_bank' })).toEqual({ code: 'validation_error', field: 'format', line: undefined });
    expect(refused({ timezone: 'Mars/Olympus' })).toEqual({
      code: 'validation_error',
      field: 'timezone',
      line: undefined,
    });
    expect(refused({ source: 'bank_statement', format: 'mt940' })).toEqual({
      code: 'validation_error',
      field: 'bankAccountNumber',
      line: undefined,
    });
  });
});
