/** What the money-path benches share: number formatting and a scratch database dropped at the end. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });

const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

async function admin(sql: string) {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** `svc_bench_<random>` on BENCH_ADMIN_URL: `url` to migrate and serve, `create()` first, `drop()` in a finally. */
export function scratchDatabase() {
  const name = `svc_bench_${randomBytes(5).toString('hex')}`;
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    create: () => admin(`CREATE DATABASE ${name}`),
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {}),
  };
}
