// The raw-SQL paths of src/core/db: parameters inlined by tenantQuery arrive exactly as bound
// parameters would, the scope applies to the statement, and tenantTx / prismaSql agree on row shapes.
import { describe, expect, it } from 'vitest';
import { useServer } from '../../helpers/server.ts';
import { db, executeStatement, inTenant, tenantQuery, type Mode } from '../../../src/core/db/client.ts';
import { sql } from '../../../src/core/db/sql-template.ts';
import { prismaSql, sql as q, tenantTx, updateRow } from '../../../src/core/db/sql.ts';
import { newId } from '../../../src/core/ids.ts';

const server = useServer();
const scopeOf = (workspaceId: string, mode: Mode = 'test') => ({ workspaceId, modes: [mode] as Mode[] });

describe('tenantQuery: scope and statement in one message', () => {
  it('inlines every kind of parameter exactly, however hostile the text', async () => {
    const ws = await server.workspace();
    const text = `it's a \\ back\\\\slash, $1 and 'quotes'' ; DROP TABLE x; -- ünï©ødé 🙂`;
    const bytes = Buffer.from([0, 1, 2, 0x5c, 0x27, 255]);
    const when = new Date('2026-11-22T01:02:03.456Z');
    const [row] = await tenantQuery<{
      t: string;
      b: Buffer;
      d: Date;
      n: string;
      a: string[];
      j: unknown;
      z: null;
      big: string;
    }>(
      scopeOf(ws.workspaceId),
      sql`SELECT ${text}::text AS t, ${bytes}::bytea AS b, ${when}::timestamptz AS d, ${42}::int AS n,
        ${['a', 'b"c', "d'e", 'f\\g', 'h,i']}::text[] AS a, ${JSON.stringify({ k: "v'\\" })}::jsonb AS j,
        ${null}::text AS z, ${9_007_199_254_740_993n}::bigint AS big`,
    );
    expect(row.t).toBe(text);
    expect(Buffer.compare(row.b, bytes)).toBe(0);
    expect(row.d.toISOString()).toBe(when.toISOString());
    expect(row.n).toBe(42);
    expect(row.a).toEqual(['a', 'b"c', "d'e", 'f\\g', 'h,i']);
    expect(row.j).toEqual({ k: "v'\\" });
    expect(row.z).toBeNull();
    expect(row.big).toBe('9007199254740993');
  });

  it('sees only the scoped workspace, and a failing statement leaves nothing behind', async () => {
    const a = await server.workspace();
    const b = await server.workspace();
    const count = (ws: string, target: string) =>
      tenantQuery<{ n: number }>(
        scopeOf(ws),
        sql`SELECT count(*)::int AS n FROM api_keys WHERE "workspaceId" = ${target}`,
      );
    expect((await count(a.workspaceId, a.workspaceId))[0].n).toBeGreaterThan(0);
    expect((await count(a.workspaceId, b.workspaceId))[0].n).toBe(0);
    await expect(tenantQuery(scopeOf(a.workspaceId), sql`SELECT ${'not a number'}::int`)).rejects.toThrow();
    expect(() => executeStatement(`SELECT $2::int`, [1])).toThrow(/\$2 has no parameter/);
  });
});

describe('tenantTx and prismaSql: one Sql interface', () => {
  it('return the same row shapes (bigint, Date, jsonb, arrays) and updateRow types columns from the table', async () => {
    const ws = await server.workspace();
    const scope = { workspaceId: ws.workspaceId, mode: 'test' as const };
    const id = newId('customer');
    await inTenant(scopeOf(ws.workspaceId), (tx) =>
      tx.customer.create({
        data: { id, workspaceId: ws.workspaceId, mode: 'test', name: 'Budi', metadata: { a: '1' } },
      }),
    );
    const read = q`SELECT * FROM customers WHERE id = ${id}`;
    const viaPg = await tenantTx(scopeOf(ws.workspaceId), (sql) => sql.query<Record<string, unknown>>(read));
    const viaPrisma = await inTenant(scopeOf(ws.workspaceId), (tx) =>
      prismaSql(tx).query<Record<string, unknown>>(read),
    );
    expect(viaPg).toEqual(viaPrisma);
    expect(viaPg[0].createdAt).toBeInstanceOf(Date);
    const updated = await tenantTx(scopeOf(ws.workspaceId), (sql) =>
      updateRow<{ name: string; metadata: unknown }>(
        sql,
        'customers',
        { id, ...scope },
        { name: "O'Neil", metadata: { b: '2' } },
      ),
    );
    expect(updated).toMatchObject({ name: "O'Neil", metadata: { b: '2' } });
    // Another workspace's scope cannot update it.
    const other = await server.workspace();
    await expect(
      tenantTx(scopeOf(other.workspaceId), (sql) =>
        updateRow(sql, 'customers', { id, workspaceId: ws.workspaceId, mode: 'test' }, { name: 'x' }),
      ),
    ).rejects.toThrow(/not found/);
  });

  it('tenantTx: BEGIN rides with the first statement, COMMIT with `last`; nothing may follow it; errors roll back', async () => {
    const ws = await server.workspace();
    const scope = scopeOf(ws.workspaceId);
    const id = newId('customer');
    const insert = (id: string, workspaceId: string, name: string) =>
      q`INSERT INTO customers (id, "workspaceId", mode, name, "createdAt", "updatedAt") VALUES (${id}, ${workspaceId}, 'test', ${name}, now(), now()) RETURNING name`;
    const inserted = await tenantTx(scope, async (sql) => {
      const [{ n }] = await sql.query<{ n: number }>(
        q`SELECT count(*)::int AS n FROM customers WHERE "workspaceId" = ${ws.workspaceId}`,
      );
      expect(n).toBe(0);
      return sql.last<{ name: string }>(insert(id, ws.workspaceId, "Sari's"));
    });
    expect(inserted).toEqual([{ name: "Sari's" }]);
    await expect(
      tenantTx(scope, async (sql) => {
        await sql.last(q`SELECT 1`);
        await sql.query(q`SELECT 2`);
      }),
    ).rejects.toThrow(/after the last one/);
    // A failure after the first statement rolls the whole transaction back.
    const second = newId('customer');
    await expect(
      tenantTx(scope, async (sql) => {
        await sql.query(insert(second, ws.workspaceId, 'Dewi'));
        await sql.last(q`SELECT ${'x'}::int`);
      }),
    ).rejects.toThrow();
    const names = await tenantTx(scope, (sql) =>
      sql.query<{ name: string }>(q`SELECT name FROM customers WHERE "workspaceId" = ${ws.workspaceId} ORDER BY name`),
    );
    expect(names).toEqual([{ name: "Sari's" }]);
  });
});

describe('prepared statements (tenantTx, tenantQuery)', () => {
  it('are prepared once per connection, then planned from the cache', async () => {
    const ws = await server.workspace();
    const name = `marker_${newId('request')}`;
    const marker = (v: string) => q`SELECT ${v}::text AS ${q.id(name)}`;
    const plans = await tenantTx(scopeOf(ws.workspaceId), async (sql) => {
      for (let i = 0; i < 10; i++) expect(await sql.query(marker(String(i)))).toEqual([{ [name]: String(i) }]);
      return sql.query<{ copies: number; runs: number; generic: number }>(
        q`SELECT count(*)::int AS copies, sum(generic_plans + custom_plans)::int AS runs, sum(generic_plans)::int AS generic
           FROM pg_prepared_statements WHERE statement LIKE '%' || ${`AS "${name}"`}`,
      );
    });
    // One statement on the connection ran all ten; after five custom plans PostgreSQL keeps a generic one.
    expect(plans).toEqual([{ copies: 1, runs: 10, generic: 5 }]);
  });

  it('survive a migration that changes a table under them: the stale connection is dropped and the work runs again', async () => {
    const ws = await server.workspace();
    const scope = scopeOf(ws.workspaceId);
    await db().system.query(
      `CREATE TABLE prepared_probe (a int); INSERT INTO prepared_probe VALUES (1); GRANT SELECT ON prepared_probe TO svc_app`,
    );
    const viaTx = () => tenantTx(scope, (sql) => sql.query(q`SELECT * FROM prepared_probe`));
    const viaQuery = () => tenantQuery(scope, sql`SELECT * FROM prepared_probe WHERE a = ${1}`);
    expect(await viaTx()).toEqual([{ a: 1 }]);
    expect(await viaQuery()).toEqual([{ a: 1 }]);
    await db().system.query(`ALTER TABLE prepared_probe ADD COLUMN b text DEFAULT 'x'`);
    expect(await viaTx()).toEqual([{ a: 1, b: 'x' }]);
    expect(await viaQuery()).toEqual([{ a: 1, b: 'x' }]);
    await db().system.query(`DROP TABLE prepared_probe`);
  });
});
