// The CSV export's LF -> CRLF transform (src/modules/ledger/export.ts): record ends become CRLF,
// line breaks inside quoted fields stay LF, whatever the chunk boundaries (quote state across chunks).
import { describe, expect, it } from 'vitest';
import { crlf } from '../../../src/modules/ledger/export.ts';

/** The rule, byte by byte: the reference the fast scan must equal. */
function reference(text: string) {
  let quoted = false;
  let out = '';
  for (const c of text) {
    if (c === '"') quoted = !quoted;
    else if (c === '\n' && !quoted) out += '\r';
    out += c;
  }
  return out;
}

async function through(chunks: Buffer[]) {
  const t = crlf();
  const out: Buffer[] = [];
  t.on('data', (d: Buffer) => out.push(d));
  const ended = new Promise((r) => t.on('end', r));
  for (const c of chunks) t.write(c);
  t.end();
  await ended;
  return Buffer.concat(out).toString();
}

const split = (b: Buffer, size: number) => {
  const chunks: Buffer[] = [];
  for (let i = 0; i < b.length; i += size) chunks.push(b.subarray(i, i + size));
  return chunks;
};

describe('crlf', () => {
  const text =
    'postedAt,memo\n2025-01-01,"say ""hi"",\nthen"\n2025-01-02,plain\n2025-01-03,""\n2025-01-04,"\n"\n2025-01-05,"a\n\nb"\n';

  it('ends records with CRLF and leaves quoted line breaks alone, at every chunk size', async () => {
    expect(reference(text)).toContain('"say ""hi"",\nthen"\r\n');
    for (let size = 1; size <= text.length; size++)
      expect(await through(split(Buffer.from(text), size))).toBe(reference(text));
  });

  it('matches the byte-by-byte rule on random CSV-like bytes split at random', async () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 50; round++) {
      const text = Array.from({ length: 400 }, () => 'ab,"\n'[rand(5)]).join('');
      const b = Buffer.from(text);
      const chunks: Buffer[] = [];
      for (let i = 0; i < b.length; ) {
        const n = 1 + rand(60);
        chunks.push(b.subarray(i, i + n));
        i += n;
      }
      expect(await through(chunks)).toBe(reference(text));
    }
  });
});
