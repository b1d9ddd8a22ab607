// The `svc` CLI as users run it (bin/svc.js, a child process) against the test PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { getPriority } from 'node:os';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import pg from 'pg';
import { useServer, db } from '../helpers/server.ts';
import { childEnv, freePort, startWorkerProcess, svc, type RunResult } from '../helpers/cli.ts';
import { admin, adminUrl, withDatabase } from '../helpers/db.ts';
import { listMigrations } from '../../src/core/db/migrate.ts';
import { isId } from '../../src/core/ids.ts';

const server = useServer();

/** A Node stack frame in output means an error escaped as a crash rather than a message. */
const STACK = /^\s+at .+[(:]\d+/m;

/** Exit 2 is a usage mistake (README "Talking to the API", exit codes); 1 any other failure. */
function expectCleanFailure(r: RunResult, message: RegExp, code = 1) {
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code, stderr: expect.stringMatching(message) });
  expect(r.stderr).not.toMatch(STACK);
  expect(r.stdout).not.toMatch(STACK);
}

/** Creates an empty database (no migrations) and drops it after the file. */
const scratch: string[] = [];
async function emptyDatabase() {
  const name = `svc_t_cli_${randomBytes(4).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  scratch.push(name);
  return withDatabase(adminUrl, name);
}
afterAll(async () => {
  for (const name of scratch)
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).catch(() => {});
});

async function historyOf(url: string): Promise<string[] | null> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query(`SELECT to_regclass('"_prisma_migrations"') AS t`);
    if (!rows[0].t) return null;
    return (
      await c.query('SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL ORDER BY 1')
    ).rows.map((r) => r.migration_name);
  } finally {
    await c.end();
  }
}

describe('svc migrate', () => {
  it('applies every migration to an empty database, then reports it up to date', async () => {
    const url = await emptyDatabase();
    const names = listMigrations().map((m) => m.name);
    const first = await svc(['migrate'], childEnv(url));
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.trim()).toBe(`applied ${names.length} migration(s)`);
    for (const n of names) expect(first.stderr).toContain(`applying ${n}`);
    expect(await historyOf(url)).toEqual(names);

    const second = await svc(['migrate'], childEnv(url));
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout.trim()).toBe('database is up to date');
    expect(second.stderr).not.toContain('applying');
    expect(await historyOf(url)).toEqual(names);
  });

  it('an unknown flag is refused before touching the database', async () => {
    const url = await emptyDatabase();
    const r = await svc(['migrate', '--dry-run'], childEnv(url));
    expectCleanFailure(r, /^svc: Unknown option '--dry-run'/, 2);
    expect(await historyOf(url)).toBeNull();
  });

  it('an unreachable database is a message, not a stack trace', async () => {
    const r = await svc(['migrate'], childEnv(withDatabase(adminUrl, 'svc_t_does_not_exist')));
    expectCleanFailure(r, /^svc: .*svc_t_does_not_exist.*does not exist/);
  });
});

describe('svc bootstrap', () => {
  let out: any;
  let result: RunResult;
  beforeAll(async () => {
    result = await svc(['bootstrap', '--name', 'CLI Bootstrap Co', '--json'], childEnv(server.dbUrl));
  });

  it('--json prints exactly one JSON document: workspace, account and a full_access key with its secret', () => {
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.endsWith('\n')).toBe(true);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    out = JSON.parse(result.stdout);
    expect(out).toEqual({
      workspaceId: expect.any(String),
      accountId: expect.any(String),
      apiKey: {
        id: expect.any(String),
        keyId: expect.stringMatching(/^pk_test_[0-9a-f]{12}$/),
        key: expect.stringMatching(/^sk_test_[0-9a-f]{48}$/),
        environment: 'test',
        role: 'full_access',
      },
      platformAdmin: false,
    });
    expect(isId('workspace', out.workspaceId)).toBe(true);
    expect(out.accountId).toMatch(/^acc_/);
    expect(isId('apiKey', out.apiKey.id)).toBe(true);
  });

  it('wrote the workspace and the key to the database', async () => {
    const { rows } = await db().system.query(
      `SELECT w.name, k."keyId", k.role, k.mode FROM workspaces w JOIN api_keys k ON k."workspaceId" = w.id WHERE w.id = $1`,
      [out.workspaceId],
    );
    expect(rows).toEqual([{ name: 'CLI Bootstrap Co', keyId: out.apiKey.keyId, role: 'full_access', mode: 'test' }]);
  });

  it('its key signs requests to a running server', async () => {
    const res = await fetchSigned(out.apiKey.keyId, out.apiKey.key, '/v1/api-keys');
    expect(res.status).toBe(200);
    expect(res.json.data.map((k: { keyId: string }) => k.keyId)).toEqual([out.apiKey.keyId]);
  });

  it('--environment live and --platform-admin, human-readable output', async () => {
    const r = await svc(
      ['bootstrap', '--name', 'Partner', '--environment', 'live', '--platform-admin'],
      childEnv(server.dbUrl),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^workspace ws_\w+ \(acc_\w+\) platform admin$/m);
    expect(r.stdout).toMatch(/^key id {2}pk_live_[0-9a-f]{12}$/m);
    expect(r.stdout).toMatch(/^secret {2}sk_live_[0-9a-f]{48} {3}\(shown once\)$/m);
  });

  it('--json keeps stdout to the JSON while migrations are applied and logged', async () => {
    const url = await emptyDatabase();
    const r = await svc(['bootstrap', '--name', 'Fresh', '--json'], childEnv(url, { LOG_LEVEL: 'info' }));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      workspaceId: expect.stringMatching(/^ws_/),
      apiKey: { keyId: expect.stringMatching(/^pk_test_/) },
    });
    // the logs went to stderr
    expect(r.stderr).toContain(`applying ${listMigrations()[0].name}`);
    expect(await historyOf(url)).toEqual(listMigrations().map((m) => m.name));
  });

  it('bad flags exit non-zero with a message', async () => {
    const env = childEnv(server.dbUrl);
    expectCleanFailure(await svc(['bootstrap', '--json'], env), /^svc: --name is required$/m, 2);
    expectCleanFailure(await svc(['bootstrap', '--nme', 'Typo'], env), /^svc: Unknown option '--nme'/, 2);
    expectCleanFailure(
      await svc(['bootstrap', '--name', 'X', '--environment', 'prod'], env),
      /^svc: --environment must be test or live$/m,
      2,
    );
    expectCleanFailure(await svc(['bootstrap', '--name'], env), /^svc: Option '--name <value>' argument missing/, 2);
    const { rows } = await db().system.query(`SELECT count(*)::int AS n FROM workspaces WHERE name IN ('Typo', 'X')`);
    expect(rows[0].n).toBe(0);
  });
});

/** Sends a request signed with headers produced by `svc sign`. */
async function fetchWith(
  headers: Record<string, string>,
  target: string,
  init: { method?: string; body?: string } = {},
) {
  const res = await fetch(server.url + target, {
    method: init.method ?? 'GET',
    headers: { ...headers, ...(init.body ? { 'content-type': 'application/json' } : {}) },
    body: init.body,
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

async function fetchSigned(keyId: string, secret: string, target: string) {
  const r = await svc(['sign', '--key-id', keyId, '--secret', secret, '--json', target], childEnv(server.dbUrl));
  expect(r.code, r.stderr).toBe(0);
  return fetchWith(JSON.parse(r.stdout), target);
}

describe('svc sign', () => {
  it('prints headers that authenticate GET /v1/api-keys, taking the key from the environment', async () => {
    const ws = await server.workspace();
    const r = await svc(
      ['sign', '/v1/api-keys'],
      childEnv(server.dbUrl, { SVC_KEY_ID: ws.keyId, SVC_SECRET: ws.secret }),
    );
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^Authorization: \\S+ .*${ws.keyId}`));
    expect(lines[1]).toMatch(/^X-Svc-Timestamp: \d{10}$/);
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]));
    const res = await fetchWith(headers, '/v1/api-keys');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      error: null,
      meta: { requestId: expect.stringMatching(/^req_/), page: { limit: 50, hasMore: false, nextCursor: null } },
    });
    expect(res.json.data.map((k: { id: string }) => k.id)).toEqual([ws.apiKeyId]);
    // the signature covers the target: the same headers do not authenticate another path
    expect((await fetchWith(headers, '/v1/events')).status).toBe(401);
  });

  it('--curl prints a command that works as printed, for GET and for a POST with a body', async () => {
    const ws = await server.workspace();
    const env = childEnv(server.dbUrl, { SVC_KEY_ID: ws.keyId, SVC_SECRET: ws.secret });
    const get = await svc(['sign', '--curl', server.url, '/v1/api-keys'], env);
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toMatch(/^curl /);
    const listed = JSON.parse(await sh(get.stdout));
    expect(listed.error).toBeNull();
    expect(listed.data.map((k: { id: string }) => k.id)).toEqual([ws.apiKeyId]);

    const body = JSON.stringify({ name: "it's signed", role: 'read_only' }); // a quote, to exercise the shell quoting
    const post = await svc(
      ['sign', '--method', 'post', '--body', body, '--curl', `${server.url}/`, '/v1/api-keys'],
      env,
    );
    expect(post.code, post.stderr).toBe(0);
    const created = JSON.parse(await sh(post.stdout));
    expect(created.error).toBeNull();
    expect(created.data).toMatchObject({
      name: "it's signed",
      role: 'read_only',
      keyId: expect.stringMatching(/^pk_test_/),
    });
  });

  it('without a key or a target it exits non-zero with the usage line', async () => {
    const env = childEnv(server.dbUrl, { SVC_KEY_ID: '', SVC_SECRET: '' });
    expectCleanFailure(await svc(['sign', '/v1/api-keys'], env), /^svc: usage: svc sign/, 2);
    expectCleanFailure(
      await svc(['sign', '--key-id', 'pk_test_000000000000', '--secret', 'sk_test_x'], env),
      /^svc: usage: svc sign/,
      2,
    );
    expectCleanFailure(await svc(['sign', '--bogus', '/v1/api-keys'], env), /^svc: Unknown option '--bogus'/, 2);
  });
});

describe('svc commands', () => {
  it('an unknown command exits 2 with the usage on stderr; help exits 0 with it on stdout', async () => {
    const env = childEnv(server.dbUrl);
    const bad = await svc(['frobnicate'], env);
    expectCleanFailure(bad, /^svc: unknown command "frobnicate"/, 2);
    expect(bad.stderr).toContain('bootstrap --name <name>');
    const help = await svc(['help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('svc <command> [options]');
  });

  it('worker alone runs at nice 10 (batch work yields the CPU to the API); SVC_WORKER_NICE=0 keeps it at 0', async () => {
    const [lowered, kept] = await Promise.all([
      startWorkerProcess(server.dbUrl),
      startWorkerProcess(server.dbUrl, { SVC_WORKER_NICE: '0' }),
    ]);
    try {
      expect([getPriority(lowered.child.pid!), getPriority(kept.child.pid!)]).toEqual([10, getPriority()]);
    } finally {
      await Promise.all([lowered.stop(), kept.stop()]);
    }
  });

  it('serve with an argument refuses to start', async () => {
    // PORT is a free port, so a serve that wrongly starts binds nothing anyone uses (and is killed)
    const env = childEnv(server.dbUrl, { PORT: String(await freePort()) });
    expectCleanFailure(
      await svc(['serve', '--port', '5000'], env, { timeoutMs: 15_000 }),
      /^svc: Unknown option '--port'/,
      2,
    );
  });
});

const execFileAsync = promisify(execFile);
async function sh(command: string) {
  const { stdout } = await execFileAsync('sh', ['-c', command], { timeout: 15_000 });
  return stdout;
}
