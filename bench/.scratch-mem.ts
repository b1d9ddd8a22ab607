process.env.SVC_MASTER_KEY ??= '11'.repeat(32);
process.env.SVC_RATE_LIMIT = 'off';
import { fork } from 'node:child_process';
import autocannon from 'autocannon';
const url = 'postgresql://postgres@127.0.0.1:5432/svc_bench_scratch';
const { openDatabase, closeDatabase } = await import('../src/core/db/client.ts');
const { bootstrapWorkspace } = await import('../src/modules/workspaces/service.ts');
const { signRequest } = await import('../src/core/auth/signing.ts');
openDatabase(url);
const ws = await bootstrapWorkspace({ name: 'x' });
const mode = process.argv[2] ?? 'app';
const child = fork('bench/server.ts', [mode], { execArgv: ['--import', 'tsx', ...(process.env.CHILD_ARGS ? process.env.CHILD_ARGS.split(' ') : [])], env: { ...process.env, DATABASE_URL: url, BENCH_WORKSPACE_ID: ws.workspaceId }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
const port = await new Promise<number>((r) => child.once('message', (m: any) => r(m.port)));
const mem = () => new Promise<any>((r) => { child.once('message', r); child.send({ type: 'mem' }); });
const gql = process.argv[3] === 'gql';
const body = JSON.stringify({ query: '{ apiKeys(first: 20) { limit pageInfo { hasNextPage endCursor } edges { node { id keyId name role scopes environment lastUsedAt createdAt revokedAt } } } }' });
const path = gql ? '/graphql' : '/v1/api-keys?limit=20';
const headers = { ...signRequest({ keyId: ws.apiKey.keyId, secret: ws.apiKey.key, method: gql ? 'POST' : 'GET', target: path, body: gql ? body : '' }), ...(gql ? { 'content-type': 'application/json' } : {}) };
console.log('start', JSON.stringify(await mem()));
for (let i = 0; i < Number(process.argv[4] ?? 6); i++) {
  const r = await autocannon({ url: `http://127.0.0.1:${port}`, connections: 32, duration: Number(process.env.SECS ?? 5), requests: [{ method: gql ? 'POST' : 'GET', path, headers, ...(gql ? { body } : {}) }] });
  const m = await mem();
  console.log(`${Math.round(r.requests.total / r.duration)} rps p50 ${r.latency.p50} p99 ${r.latency.p99} non2xx ${r.non2xx}`, Object.entries(m).map(([k, v]) => typeof v === 'number' ? `${k}=${(v / 1048576).toFixed(0)}` : '').join(' '));
}
child.send({ type: 'stop' });
await new Promise((r) => child.once('exit', r));
await closeDatabase();
