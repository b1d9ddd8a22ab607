process.env.SVC_MASTER_KEY ??= '11'.repeat(32);
import pg from 'pg';
const orig = pg.Client.prototype.query;
const log: string[] = [];
(pg.Client.prototype as any).query = function (this: unknown, q: any, ...rest: unknown[]) {
  log.push(typeof q === 'string' ? q : q.text);
  return (orig as any).call(this, q, ...rest);
};
const url = 'postgresql://postgres@127.0.0.1:5432/svc_bench_scratch';
const { migrate } = await import('../src/core/db/migrate.ts');
await migrate(url);
const { openDatabase, inTenant, closeDatabase } = await import('../src/core/db/client.ts');
const { bootstrapWorkspace } = await import('../src/modules/workspaces/service.ts');
openDatabase(url);
const ws = await bootstrapWorkspace({ name: 'x' });
log.length = 0;
await inTenant({ workspaceId: ws.workspaceId, modes: ['test', 'live'] }, (tx) => tx.apiKey.findMany({ where: { workspaceId: ws.workspaceId, revokedAt: null }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: 21 }));
console.log(log.join('\n---\n'));
await closeDatabase();
