import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { buildSchema, parse, validate } from 'graphql';
import {
  errorsDoc,
  eventsDoc,
  GENERATED,
  guideDoc,
  guidesDir,
  scopesDoc,
  statesDoc,
  underPrefix,
} from '../scripts/docs.ts';
import { eventTypes } from '../src/core/event-types.ts';
import { machines } from '../src/modules/state-machines.ts';
import { routes } from '../rest-compat/routes.ts';
import { childEnv, freePort, ROOT } from './helpers/cli.ts';
import { admin, adminUrl, withDatabase } from './helpers/db.ts';
import { dashboardGraphQL, signIn } from './helpers/dashboard.ts';
import { fencedBlocks, readme, runLine, runScript, shellBlocks, startServer, stepOf } from './helpers/quick-start.ts';
import { useServer } from './helpers/server.ts';
import { resolver } from '../src/modules/webhooks/url-policy.ts';

const server = useServer();
// The guides' webhook URLs use example.com (public, resolvable); this machine may be offline: give it its address.
const systemLookup = resolver.lookupAll;
beforeAll(() => {
  resolver.lookupAll = async (host) => (host === 'example.com' ? ['93.184.216.34'] : systemLookup(host));
});
afterAll(() => {
  resolver.lookupAll = systemLookup;
});

describe('generated docs', () => {
  it('docs/scopes.md matches the scope catalog (run npm run docs)', () => {
    expect(readFileSync('docs/scopes.md', 'utf8')).toBe(scopesDoc());
  });
  it('docs/events.md matches the event catalog (run npm run docs)', () => {
    expect(readFileSync('docs/events.md', 'utf8')).toBe(eventsDoc());
  });
  it('docs/states.md matches the state machines (run npm run docs)', () => {
    expect(readFileSync('docs/states.md', 'utf8')).toBe(statesDoc());
  });
  it('docs/errors.md matches the error codes and the route table (run npm run docs)', () => {
    expect(readFileSync('docs/errors.md', 'utf8')).toBe(errorsDoc());
  });
});

const guides = readdirSync(guidesDir)
  .filter((f) => f.endsWith('.md') && f !== 'README.md')
  .map((file) => ({ file, text: readFileSync(join(guidesDir, file), 'utf8') }));
/** What the guides' generated parts claim: route prefixes, event type prefixes, state machines. */
const claimed = (kind: string) =>
  guides.flatMap((g) =>
    [...g.text.matchAll(GENERATED)].filter((m) => m[1] === kind).flatMap((m) => m[2].split(',').map((p) => p.trim())),
  );

describe('guides (docs/guides, one per resource)', () => {
  it.each(guides.map((g) => [g.file, g.text]))('%s: its generated parts are fresh (run npm run docs)', (_f, text) => {
    expect(text).toBe(guideDoc(text));
  });

  it('every route, event type and state machine is in some guide', () => {
    const routePrefixes = claimed('routes');
    expect(routes.filter((r) => !routePrefixes.some((p) => underPrefix(r.path, p))).map((r) => r.path)).toEqual([]);
    const eventPrefixes = claimed('events');
    expect(Object.keys(eventTypes).filter((t) => !eventPrefixes.some((p) => t.startsWith(p)))).toEqual([]);
    expect(Object.keys(machines).filter((m) => !claimed('states').includes(m))).toEqual([]);
  });

  const schema = buildSchema(readFileSync(join(ROOT, 'schema/schema.graphql'), 'utf8'));
  it.each(guides.map((g) => [g.file, g.text]))(
    '%s: its GraphQL examples are valid, and those without variables run',
    async (_f, text) => {
      const ws = await server.workspace();
      const blocks = fencedBlocks(text, 'graphql');
      expect(blocks.length).toBeGreaterThan(0);
      for (const block of blocks) {
        const doc = parse(block);
        expect(validate(schema, doc).map((e) => e.message)).toEqual([]);
        const op = doc.definitions[0] as { operation?: string; variableDefinitions?: unknown[] };
        if (op.variableDefinitions?.length || op.operation === 'subscription') continue; // validated only
        const headers: Record<string, string> =
          op.operation === 'mutation' ? { 'idempotency-key': randomBytes(8).toString('hex') } : {};
        const res = await ws.client.graphql(block, {}, headers);
        expect({ status: res.status, errors: res.json.errors }, block).toEqual({ status: 200, errors: undefined });
      }
    },
  );

  it.each(guides.map((g) => [g.file, g.text]))(
    '%s: its shell examples run against a server, every call 2xx',
    { timeout: 120_000 },
    async (_f, text) => {
      const script = fencedBlocks(text, 'sh').join('\n');
      expect(script).toContain('npx svc ');
      const ws = await server.workspace();
      // As a reader runs them: the key in the environment, the server at the documented default
      // (http://127.0.0.1:$PORT), and no SVC_BASE_URL a guide could lean on without setting it.
      const env = childEnv(server.dbUrl, {
        SVC_KEY_ID: ws.keyId,
        SVC_SECRET: ws.secret,
        PORT: new URL(server.url).port,
      });
      delete env.SVC_BASE_URL;
      const r = await runScript(script, ROOT, env);
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    },
  );
});

describe('docs/authentication.md (the signing recipe for client authors)', () => {
  const text = readFileSync(join(ROOT, 'docs/authentication.md'), 'utf8');
  const keyEnv = async () => {
    const ws = await server.workspace();
    return childEnv(server.dbUrl, { SVC_KEY_ID: ws.keyId, SVC_SECRET: ws.secret, SVC_BASE_URL: server.url });
  };
  /** Runs a ```js block as the page says (saved as a .mjs file, run by node). */
  const runJs = async (source: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-auth-doc-'));
    try {
      writeFileSync(join(dir, 'example.mjs'), source);
      return await runLine(`'${process.execPath}' example.mjs`, dir, await keyEnv());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const [request, socket] = fencedBlocks(text, 'js');

  it('the JavaScript recipe signs a POST with a body and a GET with a query string', async () => {
    const r = await runJs(request);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 0,
      stdout: '201 200 true\n',
      stderr: '',
    });
  });

  it('the shell recipe (openssl, curl) gets 200', async () => {
    const r = await runScript(fencedBlocks(text, 'sh').join('\n'), ROOT, await keyEnv());
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(r.stdout).meta.page.limit).toBe(1);
  });

  it('the connection_init payload is acknowledged by the graphql-ws endpoint', async () => {
    const r = await runJs(socket);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 0,
      stdout: 'connection_ack\n',
      stderr: '',
    });
  });
});

describe('README reference', () => {
  const section = (name: string) => {
    const body = readme()
      .split(/^## /m)
      .find((x) => x.startsWith(`${name}\n`));
    expect(body, `README has a "## ${name}" section`).toBeDefined();
    return body!;
  };

  it('the Commands table has one row per command', () => {
    const commands = section('Commands')
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .map((l) => {
        const words = /^\| `([^`]+)`/.exec(l)![1].split(' ');
        const end = words.findIndex((w) => /^[-<[]/.test(w));
        return words.slice(0, end < 0 ? undefined : end).join(' ');
      });
    expect(commands.length).toBeGreaterThan(10);
    expect(commands.filter((c, i) => commands.indexOf(c) !== i)).toEqual([]);
  });

  it('the Configuration says where the server listens and where the embedded PostgreSQL does', () => {
    const config = section('Configuration');
    expect(config).toMatch(/`HOST` \(`127\.0\.0\.1`/);
    const embeddedPort = /const PREFERRED_PORT = (\d+);/.exec(
      readFileSync(join(ROOT, 'src/core/db/embedded.ts'), 'utf8'),
    )![1];
    expect(config.replace(/\s+/g, ' ')).toContain(
      `\`SVC_EMBEDDED_PG_PORT\`, unset: the port kept in \`.data/pg-port\`, picked on the first start, ${embeddedPort} when free`,
    );
  });
});

describe('README quick start', () => {
  const scratch = `svc_t_quick_${randomBytes(4).toString('hex')}`;
  const cwd = mkdtempSync(join(tmpdir(), 'svc-quick-start-'));
  let server: ReturnType<typeof startServer> | undefined;
  afterAll(async () => {
    await server?.stop();
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`)).catch(() => {});
    rmSync(cwd, { recursive: true, force: true });
  });

  it('its commands run as written: a signed request and a sandbox payment on an empty database', {
    timeout: 180_000,
  }, async () => {
    const steps = shellBlocks(readme(), 'Quick start').flat().map(stepOf);
    // the section must not lose its point without this test noticing
    expect(steps.map((s) => s.line)).toEqual(
      expect.arrayContaining(['npm start', 'npx svc get /v1/api-keys', 'npx svc trigger payment.succeeded']),
    );
    expect(JSON.parse(readFileSync('package.json', 'utf8')).scripts.start).toBe('node bin/svc.js start');

    await admin((c) => c.query(`CREATE DATABASE ${scratch}`));
    const port = await freePort();
    // A newcomer's shell: no test settings, no key, a database and a port of its own.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: withDatabase(adminUrl, scratch),
      PORT: String(port),
    };
    for (const k of Object.keys(env))
      if (/^(SVC_(?!APP_PASSWORD$)|NODE_ENV$|LOG_LEVEL$|VITEST|HOSTED_BASE_URL$)/.test(k)) delete env[k];
    // The development provider's port too (its default, 4010, may be another process's on a shared machine).
    env.SVC_IDP_PORT = String(await freePort());

    const outputs: Record<string, string> = {};
    for (const step of steps) {
      if (step.kind === 'given') continue;
      if (step.kind === 'server') {
        server = startServer(cwd, env);
        await until(
          async () =>
            fetch(`http://127.0.0.1:${port}/healthz`).then(
              (r) => r.status === 200,
              () => false,
            ),
          () => `npm start did not come up:\n${server!.output()}`,
        );
        continue;
      }
      const r = await runLine(step.line, cwd, env);
      expect({ line: step.line, code: r.code, stderr: r.stderr }).toEqual({ line: step.line, code: 0, stderr: '' });
      outputs[step.line] = r.stdout;
    }

    // the key went to .env, and the signed request listed it
    const dotenv = readFileSync(join(cwd, '.env'), 'utf8');
    const keyId = /^SVC_KEY_ID=(pk_test_\w+)$/m.exec(dotenv)?.[1];
    expect(keyId).toBeDefined();
    expect(JSON.parse(outputs['npx svc get /v1/api-keys']).data.map((k: { keyId: string }) => k.keyId)).toEqual([
      keyId,
    ]);
    // the trigger's payment is the one listed, succeeded
    const ids = Object.fromEntries(
      outputs['npx svc trigger payment.succeeded']
        .trim()
        .split('\n')
        .map((l) => l.split(/\s+/)),
    );
    const [payment] = JSON.parse(outputs['npx svc get /v1/payments -d limit=1']).data;
    expect(payment).toMatchObject({ id: ids.payment, status: 'succeeded', amount: 100000, currency: 'IDR' });
    expect(ids.event).toMatch(/^evt_/);

    // It ends by opening the dashboard: the page, and the owner signed in through the development
    // provider `SVC_DEV_IDP=1` started, seeing that payment.
    const base = `http://127.0.0.1:${port}`;
    expect(readme()).toContain(`<http://127.0.0.1:4000/dashboard/> and sign in as \`owner@example.com\``);
    expect((await fetch(`${base}/dashboard/`)).status).toBe(200);
    const session = await signIn(base, 'owner@example.com');
    const listed = await dashboardGraphQL(base, session, 'query { payments(first: 1) { edges { node { id } } } }');
    expect(listed.json.data.payments.edges[0].node.id).toBe(ids.payment);
    // A newcomer's terminal stays quiet: no warning, notice or error line from the start to the
    // dashboard sign-in (the identity provider's library announces its defaults unless told them).
    const noisy = server!
      .output()
      .split('\n')
      .filter((l) => /warn|notice|error|"level":[456]0/i.test(l));
    expect(noisy).toEqual([]);
  });
});

/** Polls `ok` every 200 ms for up to 60 s. */
async function until(ok: () => Promise<boolean>, why: () => string) {
  const deadline = Date.now() + 60_000;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(why());
    await new Promise((r) => setTimeout(r, 200));
  }
}
