// `svc get|post|put|patch|delete`, `svc trigger` and `svc events replay` as users run them (child
// processes of bin/svc.js) against a real server; exit codes per README "Talking to the API".
import { describe, expect, it } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { useServer, db, type Workspace } from '../helpers/server.ts';
import { childEnv, freePort, ROOT, SVC_BIN, svc, type RunResult } from '../helpers/cli.ts';
import { buildBody } from '../../src/cli/api.ts';
import { progress } from '../../src/cli/progress.ts';
import { recipes } from '../../src/cli/trigger.ts';

const server = useServer();

const STACK = /^\s+at .+[(:]\d+/m;
const keyEnv = (ws: Workspace, extra: Record<string, string> = {}) =>
  childEnv(server.dbUrl, { SVC_KEY_ID: ws.keyId, SVC_SECRET: ws.secret, SVC_BASE_URL: server.url, ...extra });

function expectExit(r: RunResult, code: number, stderr?: RegExp) {
  expect({ code: r.code, stderr: r.stderr }).toEqual({
    code,
    stderr: stderr ? expect.stringMatching(stderr) : r.stderr,
  });
  expect(r.stderr).not.toMatch(STACK);
}

describe('svc get|post|patch|delete', () => {
  it('GET prints the body as received when piped, ending with a newline, with -d as the query string', async () => {
    const ws = await server.workspace();
    const r = await svc(['get', '/v1/api-keys', '-d', 'limit=1'], keyEnv(ws));
    expectExit(r, 0, /^$/);
    const direct = await ws.client.get('/v1/api-keys?limit=1');
    // the same bytes as the server's answer, apart from the request id and time
    // (and lastUsedAt, written once a second: the CLI's own request may land between the two)
    const masked = (s: string) =>
      s
        .replace(/req_\w+/, 'req')
        .replace(/"timestamp":"[^"]+"/, '"timestamp":"t"')
        .replace(/"lastUsedAt":(null|"[^"]+")/g, '"lastUsedAt":"u"');
    expect(masked(r.stdout)).toBe(`${masked(direct.text)}\n`);
    expect(JSON.parse(r.stdout).meta.page.limit).toBe(1);
  });

  it('POST builds nested and typed fields, sends an Idempotency-Key, and the resource exists', async () => {
    const ws = await server.workspace();
    const r = await svc(
      [
        'post',
        '/v1/checkout-sessions',
        '-d',
        'amount:=125000',
        '-d',
        'currency=IDR',
        '-d',
        'methods[]=qris',
        '-d',
        'methods[]=va',
        '-d',
        'successUrl=https://shop.example/thanks',
        '-d',
        'cancelUrl=https://shop.example/cart',
        '-d',
        'metadata.order=A-17',
        '-d',
        'metadata.note=0812',
      ],
      keyEnv(ws),
    );
    expectExit(r, 0);
    const created = JSON.parse(r.stdout).data;
    expect(created).toMatchObject({
      amount: 125000,
      currency: 'IDR',
      methods: ['qris', 'va'],
      metadata: { order: 'A-17', note: '0812' },
    });
    expect((await ws.client.get(`/v1/checkout-sessions/${created.id}`)).json.data.id).toBe(created.id);
  });

  it('--idempotency-key replays the first result; without it every run is a new write', async () => {
    const ws = await server.workspace();
    const env = keyEnv(ws);
    const post = (extra: string[]) => svc(['post', '/v1/customers', '-d', 'name=Ann', ...extra], env);
    const [a, b] = [await post(['--idempotency-key', 'cli-k1']), await post(['--idempotency-key', 'cli-k1'])];
    expect(JSON.parse(a.stdout).data.id).toBe(JSON.parse(b.stdout).data.id);
    const c = await post([]);
    const d = await post(['-v']);
    expect(new Set([a, c, d].map((x) => JSON.parse(x.stdout).data.id)).size).toBe(3);
    expect(d.stderr).toMatch(/^> POST http:\/\/127\.0\.0\.1:\d+\/v1\/customers$/m);
    expect(d.stderr).toMatch(/^> Idempotency-Key: [0-9a-f-]{36}$/m);
    expect(d.stderr).toMatch(/^< 201$/m);
    const { rows } = await db().system.query(
      `SELECT count(*)::int AS n FROM customers WHERE "workspaceId" = $1 AND name = 'Ann'`,
      [ws.workspaceId],
    );
    expect(rows[0].n).toBe(3);
  });

  it('PATCH and DELETE, -d @file merged with fields', async () => {
    const ws = await server.workspace();
    const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
    writeFileSync(join(dir, 'customer.json'), JSON.stringify({ name: 'From file', metadata: { a: 'file' } }));
    const env = keyEnv(ws);
    const made = await svc(
      ['post', '/v1/customers', '-d', `@${join(dir, 'customer.json')}`, '-d', 'email=f@x.io'],
      env,
    );
    expectExit(made, 0);
    const c = JSON.parse(made.stdout).data;
    expect(c).toMatchObject({ name: 'From file', email: 'f@x.io', metadata: { a: 'file' } });
    const patched = await svc(['patch', `/v1/customers/${c.id}`, '-d', 'name=Renamed'], env);
    expectExit(patched, 0);
    expect((await ws.client.get(`/v1/customers/${c.id}`)).json.data.name).toBe('Renamed');
    // a key deleted by the CLI is revoked (204: nothing on stdout)
    const key = (await ws.client.post('/v1/api-keys', { name: 'doomed' }, { 'idempotency-key': 'k-doomed' })).json.data;
    const del = await svc(['delete', `/v1/api-keys/${key.id}`], env);
    expectExit(del, 0, /^$/);
    expect(del.stdout).toBe('');
    const { rows } = await db().system.query(`SELECT "revokedAt" FROM api_keys WHERE id = $1`, [key.id]);
    expect(rows[0].revokedAt).toBeInstanceOf(Date);
  });

  it('exit 4 on a 4xx with the envelope on stdout and one line on stderr; 5 on a 5xx; 3 with no answer', async () => {
    const ws = await server.workspace();
    const missing = await svc(['get', '/v1/customers/cus_01J0000000000000000000000Z'], keyEnv(ws));
    expectExit(missing, 4, /^svc: 404 not_found: No such customer\n$/);
    expect(JSON.parse(missing.stdout).error.code).toBe('not_found');

    const badKey = await svc(['get', '/v1/customers'], keyEnv(ws, { SVC_SECRET: 'sk_test_wrong' }));
    expectExit(badKey, 4, /^svc: 401 /);

    // a real HTTP server that fails every request
    const failing = createServer((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end('{"error":{"code":"internal_error","message":"down for maintenance"}}');
    });
    await new Promise<void>((r) => failing.listen(0, '127.0.0.1', r));
    try {
      const port = (failing.address() as { port: number }).port;
      const r = await svc(['get', '/v1/customers', '--base-url', `http://127.0.0.1:${port}`], keyEnv(ws));
      expectExit(r, 5, /^svc: 503 internal_error: down for maintenance\n$/);
    } finally {
      failing.close();
    }

    const nobody = await svc(
      ['get', '/v1/customers', '--base-url', `http://127.0.0.1:${await freePort()}`],
      keyEnv(ws),
    );
    expectExit(nobody, 3, /^svc: GET http:\/\/127\.0\.0\.1:\d+\/v1\/customers: ECONNREFUSED\n$/);
  });

  it('exit 2 for usage mistakes, before anything is sent', async () => {
    const ws = await server.workspace();
    const env = keyEnv(ws);
    expectExit(await svc(['get'], env), 2, /^svc: usage: svc get <path>/);
    expectExit(await svc(['get', 'v1/customers'], env), 2, /must start with \//);
    expectExit(await svc(['post', '/v1/customers', '-d', 'name'], env), 2, /expected name=value or name:=json/);
    expectExit(await svc(['post', '/v1/customers', '-d', 'n:={'], env), 2, /not valid JSON/);
    expectExit(await svc(['get', '/v1/customers', '--bogus'], env), 2, /Unknown option '--bogus'/);
    expectExit(await svc(['get', '/v1/customers', '-d', 'a.b=1'], env), 2, /nested values cannot go in a query/);
    expectExit(
      await svc(['get', '/v1/customers'], keyEnv(ws, { SVC_KEY_ID: '', SVC_SECRET: '' })),
      2,
      /^svc: no API key: set SVC_KEY_ID and SVC_SECRET/,
    );
    const { rows } = await db().system.query(`SELECT count(*)::int AS n FROM customers WHERE "workspaceId" = $1`, [
      ws.workspaceId,
    ]);
    expect(rows[0].n).toBe(0);
  });

  it('reads the key from .env in the working directory (get and sign), and PORT for the default base URL', async () => {
    const ws = await server.workspace();
    const dir = mkdtempSync(join(tmpdir(), 'svc-cli-env-'));
    const port = new URL(server.url).port;
    writeFileSync(join(dir, '.env'), `SVC_KEY_ID=${ws.keyId}\nSVC_SECRET=${ws.secret}\nPORT=${port}\n`);
    const env = childEnv(server.dbUrl);
    delete env.SVC_KEY_ID;
    delete env.SVC_SECRET;
    delete env.SVC_BASE_URL;
    delete env.PORT;
    const r = await svc(['get', '/v1/api-keys'], env, { cwd: dir });
    expectExit(r, 0);
    expect(JSON.parse(r.stdout).data.map((k: { id: string }) => k.id)).toEqual([ws.apiKeyId]);
    // svc sign reads the same file
    const signed = await svc(['sign', '--json', '/v1/api-keys'], env, { cwd: dir });
    expectExit(signed, 0);
    const res = await fetch(`${server.url}/v1/api-keys`, { headers: JSON.parse(signed.stdout) });
    expect(res.status).toBe(200);
  });

  it('-s/--select prints one value for a shell variable; a missing path fails', async () => {
    const ws = await server.workspace();
    const made = await svc(
      ['post', '/v1/customers', '-d', 'name=Sel', '-d', 'metadata.k=v', '-s', 'data.id'],
      keyEnv(ws),
    );
    expectExit(made, 0, /^$/);
    expect(made.stdout).toMatch(/^cus_\w+\n$/);
    const meta = await svc(['get', `/v1/customers/${made.stdout.trim()}`, '--select', 'data.metadata'], keyEnv(ws));
    expect(meta.stdout).toBe('{"k":"v"}\n');
    const first = await svc(['get', '/v1/api-keys', '-s', 'data.0.id'], keyEnv(ws));
    expect(first.stdout).toBe(`${ws.apiKeyId}\n`);
    expectExit(
      await svc(['get', '/v1/api-keys', '-s', 'data.5.id'], keyEnv(ws)),
      1,
      /--select data\.5\.id: the answer has no 5/,
    );
    // an error answer is printed whole on stderr (the selection is of a success): nothing lands in the variable
    const missing = await svc(['get', '/v1/customers/cus_01J0000000000000000000000Z', '-s', 'data.id'], keyEnv(ws));
    expectExit(missing, 4, /^\{"data":null,"error":\{"code":"not_found".*\n.*svc: 404 not_found: /s);
    expect(missing.stdout).toBe('');
  });

  it('writes a document (receipt PDF) byte for byte when piped', async () => {
    const ws = await server.workspace();
    const trig = await svc(['trigger', 'payment.succeeded', '-s', 'ids.checkout_session'], keyEnv(ws));
    const got = await ws.client.get(`/v1/checkout-sessions/${trig.stdout.trim()}/receipt`);
    expect(got.status, `${trig.stdout} ${trig.stderr} ${got.text}`).toBe(200);
    const receipt = got.json.data.receiptId;
    const child = spawn(process.execPath, [SVC_BIN, 'get', `/v1/receipts/${receipt}/receipt.pdf`], {
      cwd: ROOT,
      env: keyEnv(ws),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    const code = await new Promise((r) => child.on('close', r));
    const pdf = Buffer.concat(chunks);
    expect(code).toBe(0);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.includes(Buffer.from([0xef, 0xbf, 0xbd]))).toBe(false); // no U+FFFD: nothing was decoded as text
    expect(pdf.subarray(-6).toString('latin1')).toMatch(/%%EOF\s*$/);
  });

  it('indents the JSON on a terminal (run under a pseudo-terminal)', async () => {
    const ws = await server.workspace();
    const out = await underTty([SVC_BIN, 'get', '/v1/api-keys'], keyEnv(ws));
    expect(out).toMatch(/^{\r?\n {2}"data": \[\r?\n {4}{\r?\n/);
    expect(JSON.parse(out.replace(/\r\n/g, '\n')).data[0].id).toBe(ws.apiKeyId);
  });
});

describe('svc <command> --help', () => {
  it("prints every command's usage and exit codes, exit 0, running and sending nothing", async () => {
    const commands = ['start', 'serve', 'worker', 'migrate', 'rotate-master-key', 'bootstrap', 'idp', 'members']
      .concat(['restore-workspace', 'sign', 'listen', 'get', 'post', 'put', 'patch', 'delete', 'trigger'])
      .concat(['events', 'webhooks']);
    // No key, no server, no database: help must not need any of them.
    const env = childEnv('postgresql://nobody@127.0.0.1:1/none', { SVC_BASE_URL: 'http://127.0.0.1:1' });
    const runs = await Promise.all(
      commands.map(async (c) => [c, await svc([c, '--help'], env, { cwd: tmpdir() })] as const),
    );
    for (const [c, r] of runs) {
      expect({ c, code: r.code, stderr: r.stderr }).toEqual({ c, code: 0, stderr: '' });
      expect(r.stdout).toMatch(new RegExp(`^usage: svc (\\S+\\|)?${c}\\b`));
      expect(r.stdout).toContain('Exit codes: 0 success');
    }
    const listen = runs.find(([c]) => c === 'listen')![1];
    expect(listen.stdout).toContain('--forward-to <url>');
    expect((await svc(['help', 'trigger'], env, { cwd: tmpdir() })).stdout).toMatch(/^usage: svc trigger /);
  });
});

describe('-d fields', () => {
  it('nest with dots, type with :=, append with [], and refuse a field set twice', () => {
    expect(
      buildBody(['a.b.c=1', 'a.n:=2', 'flag:=true', 'list[]:={"x":1}', 'list[]=y', 'nil:=null', 'eq=a=b', 'url=x:=y']),
    ).toEqual({ a: { b: { c: '1' }, n: 2 }, flag: true, list: [{ x: 1 }, 'y'], nil: null, eq: 'a=b', url: 'x:=y' });
    expect(() => buildBody(['a=1', 'a=2'])).toThrow(/set twice/);
    expect(() => buildBody(['a=1', 'a.b=2'])).toThrow(/a is already a value/);
    expect(() => buildBody(['a=1', 'a[]=2'])).toThrow(/not a list/);
    expect(buildBody(['@x', 'b=2'], () => '{"a":1,"b":0}')).toEqual({ a: 1, b: '2' });
    expect(() => buildBody(['@x'], () => '[1]')).toThrow(/must hold a JSON object/);
  });
});

describe('progress bars', () => {
  it('draw on a terminal stream and stay silent otherwise', () => {
    const writes: string[] = [];
    const tty = { isTTY: true, write: (s: string) => writes.push(s) > 0 };
    const bar = progress('replaying', 4, tty);
    bar.tick(2);
    bar.tick(2, 'last');
    bar.done();
    expect(writes[0]).toContain('replaying [------------------------] 0/4');
    expect(writes.some((w) => w.includes('[########################] 4/4 last'))).toBe(true);
    expect(writes.at(-1)).toBe('\r\x1b[2K');
    const piped: string[] = [];
    const quiet = progress('replaying', 4, { isTTY: false, write: (s: string) => piped.push(s) > 0 });
    quiet.tick(4);
    quiet.done();
    expect(piped).toEqual([]);
  });

  it('svc migrate draws one on a terminal', async () => {
    const { admin, adminUrl, withDatabase } = await import('../helpers/db.ts');
    const name = `svc_t_cli_tty_${process.pid}`;
    await admin((c) => c.query(`CREATE DATABASE ${name}`));
    try {
      const out = await underTty([SVC_BIN, 'migrate'], childEnv(withDatabase(adminUrl, name)));
      expect(out).toMatch(/migrating \[#+-*\] \d+\/\d+ \d{14}_\w+/);
      expect(out).toMatch(/applied \d+ migration\(s\)/);
      expect(out).not.toMatch(/^applying /m);
    } finally {
      await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    }
  });
});

describe('svc trigger', () => {
  it('payment.succeeded: a sandbox payment through the API, its ids and the published event', async () => {
    const ws = await server.workspace();
    const r = await svc(['trigger', 'payment.succeeded'], keyEnv(ws));
    expectExit(r, 0, /^$/);
    const ids = Object.fromEntries(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(/\s+/)),
    );
    expect(Object.keys(ids)).toEqual(['checkout_session', 'payment', 'event']);
    expect((await ws.client.get(`/v1/payments/${ids.payment}`)).json.data).toMatchObject({
      status: 'succeeded',
      checkoutSessionId: ids.checkout_session,
    });
    expect((await ws.client.get(`/v1/events/${ids.event}`)).json.data).toMatchObject({
      type: 'payment.succeeded',
      data: { id: ids.payment },
    });
  });

  it('every listed event type is produced for real (--json)', { timeout: 240_000 }, async () => {
    const types = Object.keys(recipes);
    const listed = await svc(['trigger', '--list'], childEnv(server.dbUrl));
    expect(listed.stdout.trim().split('\n')).toEqual(types);
    const queue = [...types];
    const failures: string[] = [];
    await Promise.all(
      Array.from({ length: 3 }, async () => {
        for (let type = queue.shift(); type; type = queue.shift()) {
          const ws = await server.workspace();
          const r = await svc(['trigger', type, '--json'], keyEnv(ws), { timeoutMs: 60_000 });
          if (r.code !== 0) {
            failures.push(`${type}: ${r.code} ${r.stderr}`);
            continue;
          }
          const out = JSON.parse(r.stdout);
          const event = (await ws.client.get(`/v1/events/${out.ids.event}`)).json.data;
          if (event?.type !== type) failures.push(`${type}: event ${JSON.stringify(event)}`);
        }
      }),
    );
    expect(failures).toEqual([]);
  });

  it('a second trigger in the same workspace reports its own event, not the first one', async () => {
    const ws = await server.workspace();
    const runs = [];
    for (const type of ['payment.failed', 'payment.failed', 'adapter.connected', 'adapter.updated'])
      runs.push(await svc(['trigger', type, '--json'], keyEnv(ws)));
    for (const r of runs) expectExit(r, 0, /^$/);
    const [a, b, connected, updated] = runs.map((r) => JSON.parse(r.stdout).ids);
    expect(b.event).not.toBe(a.event);
    expect(b.payment).not.toBe(a.payment);
    expect(connected.event).not.toBe(updated.event);
    expect((await ws.client.get(`/v1/events/${b.event}`)).json.data).toMatchObject({
      type: 'payment.failed',
      data: { id: b.payment },
    });
  });

  it('refuses unknown types, live keys and extra arguments with exit 2', async () => {
    const ws = await server.workspace();
    expectExit(await svc(['trigger', 'payment.teleported'], keyEnv(ws)), 2, /cannot produce "payment.teleported"/);
    expectExit(await svc(['trigger'], keyEnv(ws)), 2, /^svc: usage: svc trigger <event type>/);
    const live = await server.workspace({ environment: 'live' });
    expectExit(await svc(['trigger', 'customer.created'], keyEnv(live)), 2, /test mode only/);
    const { rows } = await db().system.query(`SELECT count(*)::int AS n FROM customers WHERE "workspaceId" = $1`, [
      live.workspaceId,
    ]);
    expect(rows[0].n).toBe(0);
  });
});

describe('svc events replay', () => {
  it('replays ids from arguments and stdin in batches, one "original new" line each', async () => {
    const ws = await server.workspace();
    for (const name of ['a', 'b', 'c'])
      await ws.client.post('/v1/customers', { name }, { 'idempotency-key': `replay-${name}` });
    const originals: string[] = (await ws.client.get('/v1/events?type=customer.created')).json.data.map(
      (e: { id: string }) => e.id,
    );
    expect(originals).toHaveLength(3);
    const r = await svc(['events', 'replay', '--batch-size', '2', ...originals], keyEnv(ws));
    expectExit(r, 0, /^$/); // piped: no progress bar
    const pairs = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split(' '));
    expect(pairs.map((p) => p[0])).toEqual(originals);
    for (const [original, replay] of pairs)
      expect((await ws.client.get(`/v1/events/${replay}`)).json.data.metadata.replayOf).toBe(original);

    const fromStdin = await svc(['events', 'replay', '-'], keyEnv(ws), { stdin: `${originals.join('\n')}\n` });
    expectExit(fromStdin, 0);
    expect(fromStdin.stdout.trim().split('\n')).toHaveLength(3);

    const bad = await svc(['events', 'replay', originals[0], 'evt_nope'], keyEnv(ws));
    expectExit(bad, 4, /^svc: replay of ids 1\.\.2 answered 400 validation_error/);
  });
});

const execFileAsync = promisify(execFile);
/** Runs node with `args` under a pseudo-terminal (util-linux `script`): stdout and stderr are a TTY. */
async function underTty(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const command = [process.execPath, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const { stdout } = await execFileAsync('script', ['-qec', command, '/dev/null'], {
    cwd: ROOT,
    env,
    timeout: 60_000,
  });
  return stdout;
}
