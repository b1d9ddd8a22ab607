import pg from 'pg';
import { decrypt, encrypt, isCurrent } from '../core/crypto.ts';
import { rowAad, sealedColumns, type SealedTable } from '../core/sealed.ts';
import { sql } from '../core/db/sql-template.ts';

const BATCH = 500;
// Column names come from src/core/sealed.ts; escaped anyway, like every identifier (sql.id).
const q = (name: string) => sql.id(name).text;

export interface ColumnReport {
  column: string;
  total: number;
  rewritten: number;
  current: number;
  failed: number;
}

/**
 * `svc rotate-master-key`: re-encrypts every sealed column (src/core/sealed.ts) under the current
 * master key (SVC_MASTER_KEY), reading with any key of the ring (SVC_MASTER_KEY_PREVIOUS), and
 * rewrites legacy values (no key id, no row binding) in the current format. Idempotent: values
 * already under the current key are only verified. Each value is swapped with a compare-and-set,
 * so a secret a running server changes meanwhile is never overwritten with an older one.
 */
export async function rotateMasterKey(databaseUrl: string, print: (line: string) => void): Promise<ColumnReport[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ bypass: boolean; user: string }>(
      `SELECT rolsuper OR rolbypassrls AS bypass, current_user AS user FROM pg_roles WHERE rolname = current_user`,
    );
    // tenant tables force row-level security: any other role would see (and rotate) nothing
    if (!rows[0]?.bypass)
      throw new Error(
        `DATABASE_URL's role "${rows[0]?.user}" must be superuser or BYPASSRLS to read every workspace's rows`,
      );
    const reports: ColumnReport[] = [];
    for (const table of Object.keys(sealedColumns) as SealedTable[]) {
      for (const column of sealedColumns[table].columns) reports.push(await rotateColumn(client, table, column, print));
    }
    return reports;
  } finally {
    await client.end();
  }
}

async function rotateColumn(
  client: pg.Client,
  table: SealedTable,
  column: string,
  print: (line: string) => void,
): Promise<ColumnReport> {
  const keyCols = sealedColumns[table].row;
  const keyList = keyCols.map(q).join(', ');
  const { rows: count } = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${table} WHERE ${q(column)} IS NOT NULL`,
  );
  const report: ColumnReport = { column: `${table}.${column}`, total: count[0].n, rewritten: 0, current: 0, failed: 0 };
  print(`${report.column}: ${report.total} value(s)`);
  let after: string[] | null = null;
  for (;;) {
    const params: unknown[] = after ? [...after] : [];
    const where: string = after ? ` AND (${keyList}) > (${keyCols.map((_, i) => `$${i + 1}`).join(', ')})` : '';
    const { rows }: { rows: Record<string, string | Buffer>[] } = await client.query<Record<string, string | Buffer>>(
      `SELECT ${keyList}, ${q(column)} AS sealed FROM ${table}
       WHERE ${q(column)} IS NOT NULL${where} ORDER BY ${keyList} LIMIT ${BATCH}`,
      params,
    );
    if (!rows.length) break;
    for (const row of rows) {
      const key = Object.fromEntries(keyCols.map((c) => [c, row[c] as string]));
      const aad = rowAad(table, key as never);
      const sealed = row.sealed as Buffer;
      let plain: Buffer;
      try {
        plain = decrypt(sealed, aad);
      } catch {
        report.failed++;
        print(
          `  ${report.column} ${keyCols.map((c) => key[c]).join('/')}: ` +
            'does not decrypt with any key of the ring (left as it is)',
        );
        continue;
      }
      if (isCurrent(sealed)) {
        report.current++;
        continue;
      }
      const match = keyCols.map((c, i) => `${q(c)} = $${i + 3}`).join(' AND ');
      const res = await client.query(`UPDATE ${table} SET ${q(column)} = $1 WHERE ${q(column)} = $2 AND ${match}`, [
        Buffer.from(encrypt(plain, aad)),
        sealed,
        ...keyCols.map((c) => key[c]),
      ]);
      // 0 rows: a server changed the value meanwhile, under the current key (servers write with it)
      if (res.rowCount) report.rewritten++;
      else report.current++;
    }
    const last = rows[rows.length - 1];
    after = keyCols.map((c): string => last[c] as string);
    print(
      `  ${report.column}: ${report.rewritten + report.current + report.failed}/${report.total} ` +
        `(re-encrypted ${report.rewritten}, already current ${report.current}, failed ${report.failed})`,
    );
  }
  return report;
}
