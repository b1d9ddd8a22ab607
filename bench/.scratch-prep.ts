process.env.SVC_MASTER_KEY ??= '11'.repeat(32);
import pg from 'pg';
import { createHash } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
const url = 'postgresql://postgres@127.0.0.1:5432/svc_bench_scratch';
const { PrismaClient } = await import('../src/generated/prisma/client.ts');
const w = (await new pg.Client(url).connect().then(async function (this: unknown) { return null; })) ?? null;
const c0 = new pg.Client(url); await c0.connect();
const ws = (await c0.query(`select "workspaceId" from api_keys limit 1`)).rows[0].workspaceId; await c0.end();
function mk(named: boolean) {
  const pool = new pg.Pool({ connectionString: url, max: 16 });
  pool.on('connect', (c) => void c.query('SET ROLE svc_app'));
  const names = new Map<string, string>();
  const gen = (q: { sql: string }) => { let n = names.get(q.sql); if (!n) { n = 'p' + createHash('sha1').update(q.sql).digest('hex').slice(0, 20); names.set(q.sql, n); } return n; };
  return { pool, prisma: new PrismaClient({ adapter: new PrismaPg(pool, named ? { statementNameGenerator: gen } : {}) }) };
}
async function rate(op: () => Promise<unknown>, s = 3, c = 16) {
  const run = async (secs: number) => { let n = 0; const t = performance.now(); const end = t + secs * 1000; await Promise.all(Array.from({ length: c }, async () => { while (performance.now() < end) { await op(); n++; } })); return n / ((performance.now() - t) / 1000); };
  await run(1); return run(s);
}
const SET = `SELECT set_config('app.workspace_id', $1, true), set_config('app.modes', $2, true)`;
for (const named of [false, true, false, true]) {
  const { pool, prisma } = mk(named);
  const r = await rate(() => prisma.$transaction(async (tx) => { await tx.$queryRawUnsafe(SET, ws, 'test,live'); return tx.apiKey.findMany({ where: { workspaceId: ws, revokedAt: null }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: 21 }); }));
  console.log(named ? 'named   ' : 'unnamed ', Math.round(r), 'ops/s');
  await prisma.$disconnect(); await pool.end();
}
