// The SQL builder (src/core/db/sql-template.ts): values are parameters, numbered across nested
// fragments; identifiers are escaped; a plain string is never SQL text. Pure: no database.
import { describe, expect, it } from 'vitest';
import { compile, Fragment, sql } from '../../../src/core/db/sql-template.ts';
import { insertRows } from '../../../src/core/db/sql.ts';

describe('sql tagged template', () => {
  it('numbers parameters in order of appearance across nested fragments', () => {
    const inner = sql`b = ${2} AND c = ${sql`lower(${'x'})`}`;
    const q = sql`SELECT * FROM t WHERE a = ${1} AND ${inner} AND d = ${4} OR ${inner}`;
    expect(q.text).toBe(
      'SELECT * FROM t WHERE a = $1 AND b = $2 AND c = lower($3) AND d = $4 OR b = $5 AND c = lower($6)',
    );
    expect(q.values).toEqual([1, 2, 'x', 4, 2, 'x']);
  });

  it('keeps the text stable whatever the values, so a statement is prepared once per call site', () => {
    const at = (id: string, note: string | null) => sql`UPDATE t SET note = ${note} WHERE id = ${id}`;
    expect(at('a', null).text).toBe(at(`x'; DROP TABLE t; --`, 'y').text);
    expect(at(`x'; DROP TABLE t; --`, 'y').values).toEqual(['y', `x'; DROP TABLE t; --`]);
  });

  it('binds a string as a value, never as SQL text', () => {
    const evil = `1; DROP TABLE t; --`;
    const q = sql`SELECT ${evil}`;
    expect(q.text).toBe('SELECT $1');
    expect(q.values).toEqual([evil]);
  });

  it('escapes identifiers (sql.id) and joins fragments', () => {
    expect(sql.id('workspaceId').text).toBe('"workspaceId"');
    expect(sql.id('a"b').text).toBe('"a""b"');
    expect(sql.id(`x" FROM secrets; --`).text).toBe(`"x"" FROM secrets; --"`);
    expect(() => sql.id('')).toThrow();
    const q = sql`SELECT ${sql.join([sql.id('a'), sql`${5}::int`, sql.id('b')])} FROM ${sql.id('t')}`;
    expect(compile(q)).toEqual({ text: 'SELECT "a", $1::int, "b" FROM "t"', values: [5] });
    expect(sql.join([]).text).toBe('');
  });

  it('insertRows: the table and column names are identifiers, the rows one bound JSON value', () => {
    const q = insertRows('t"x', [{ 'a"b': 1, c: 2n }]);
    expect(q.text).toBe(
      'INSERT INTO "t""x" ("a""b", "c") SELECT "a""b", "c" FROM jsonb_populate_recordset(NULL::"t""x", $1::jsonb)',
    );
    expect(q.values).toEqual(['[{"a\\"b":1,"c":"2"}]']);
  });

  it('a fragment cannot be a plain string, by type or at run time', () => {
    const takes = (f: Fragment) => compile(f).text;
    // @ts-expect-error a string is not a Fragment
    expect(() => takes('SELECT 1')).toThrow();
    // @ts-expect-error nor is an object shaped like one
    expect(() => takes({ strings: ['SELECT 1'], params: [] })).toThrow();
    expect(Fragment.is('SELECT 1')).toBe(false);
    const computed: string = ['SEL', 'ECT'].join('');
    // @ts-expect-error sql.raw takes string literals from code only
    sql.raw(computed);
    expect(sql.raw('now()').text).toBe('now()');
  });
});
