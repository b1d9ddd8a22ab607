// Meta-test over the source text of src/, jobs/ and rest-compat/: each money table has one writer file,
// the only place its rows are inserted (raw SQL, `insertRows`, or a Prisma delegate), so the rules of a
// row (balanced postings, per-object event sequences, one charge in flight per invoice) live in one place.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

/** Each money table, its Prisma delegate, and the one file that inserts its rows. */
const writers = [
  { table: 'payments', delegate: 'payment', file: 'src/modules/payments/write.ts' },
  { table: 'events', delegate: 'event', file: 'src/core/outbox.ts' },
  { table: 'ledger_entries', delegate: 'ledgerEntry', file: 'src/core/ledger.ts' },
];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'generated' || e.name === 'node_modules' ? [] : filesUnder(p);
    return /\.(ts|tsx|mts|js|mjs)$/.test(e.name) ? [p] : [];
  });
}

/** The ways a row of `table` is inserted: raw SQL, the `insertRows` helper, a Prisma create or upsert. */
const insertsOf = (table: string, delegate: string) => [
  new RegExp(`\\bINSERT\\s+INTO\\s+(?:public\\.)?"?${table}"?(?![\\w"])`, 'gi'),
  new RegExp(`\\binsertRows\\(\\s*['"\`]${table}['"\`]`, 'g'),
  new RegExp(`\\.${delegate}\\s*\\.\\s*(?:create|createMany|createManyAndReturn|upsert)\\s*\\(`, 'g'),
];

/** `file:line` of every insert of each money table in `text`. */
function insertSites(file: string, text: string) {
  const out: { table: string; site: string }[] = [];
  for (const { table, delegate } of writers)
    for (const re of insertsOf(table, delegate))
      for (const m of text.matchAll(re))
        out.push({ table, site: `${file}:${text.slice(0, m.index).split('\n').length}` });
  return out;
}

describe('money writers', () => {
  const sites = ['app', 'src', 'schema', 'jobs', 'rest-compat']
    .flatMap((d) => filesUnder(join(root, d)))
    .flatMap((f) => insertSites(relative(root, f), readFileSync(f, 'utf8')));

  it('the patterns find each way of inserting a row', () => {
    const probe = [
      "sql.query(insertRows('payments', rows))",
      'await tx.payment.create({ data })',
      "insertRows(\n  'ledger_entries',\n  rows)",
      'await tx.ledgerEntry.createMany({ data: rows })',
      'INSERT INTO events (id) VALUES (1)',
      'insert into "payments" (id)',
      'db().system.event.upsert({ where })',
    ].join('\n');
    expect(
      insertSites('probe.ts', probe)
        .map((s) => `${s.site} ${s.table}`)
        .sort(),
    ).toEqual([
      'probe.ts:1 payments',
      'probe.ts:2 payments',
      'probe.ts:3 ledger_entries',
      'probe.ts:6 ledger_entries',
      'probe.ts:7 events',
      'probe.ts:8 payments',
      'probe.ts:9 events',
    ]);
    // Other tables and reads are not inserts of a money table.
    expect(
      insertSites('probe.ts', 'INSERT INTO object_sequences; INSERT INTO events_archive; tx.payment.findMany()'),
    ).toEqual([]);
  });

  for (const { table, file } of writers)
    it(`${table} rows are inserted only by ${file}`, () => {
      const found = sites.filter((s) => s.table === table).map((s) => s.site);
      expect(found.filter((s) => !s.startsWith(`${file}:`))).toEqual([]);
      expect(found.length, `${file} inserts ${table}`).toBeGreaterThan(0);
    });
});
