// docker-compose.yml, Dockerfile and .dockerignore cannot be run here (no Docker engine), so they
// are checked against what the code really reads and runs.
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { builtinModules } from 'node:module';
import { parse } from 'yaml';
import { svc, childEnv } from './helpers/cli.ts';
import { adminUrl } from './helpers/db.ts';
import { APP_LOGIN_ROLE, appDatabaseUrl } from '../src/core/db/roles.ts';

const ROOT = join(import.meta.dirname, '..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
const pkg = JSON.parse(read('package.json'));

/** The runtime sources: what the image runs (tests, bench and scripts other than postinstall are not). */
const RUNTIME_DIRS = ['bin', 'app', 'src', 'schema', 'jobs', 'rest-compat'];
function runtimeFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(ROOT, dir))) {
      const p = join(dir, name);
      if (p === join('src', 'generated')) continue; // generated in the image by postinstall
      if (statSync(join(ROOT, p)).isDirectory()) walk(p);
      else if (/\.(ts|js|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
    }
  };
  for (const d of RUNTIME_DIRS) walk(d);
  return out;
}

/** Every environment variable the runtime reads (process.env.X, process.env['X']). */
function envRead(): Set<string> {
  const names = new Set<string>();
  for (const f of runtimeFiles())
    for (const m of read(f).matchAll(/process\.env(?:\.([A-Z][A-Z0-9_]*)|\[['"]([A-Z][A-Z0-9_]*)['"]\])/g))
      names.add(m[1] ?? m[2]);
  return names;
}

const compose = parse(read('docker-compose.yml'), { merge: true, uniqueKeys: true }) as {
  services: Record<
    string,
    {
      image?: string;
      build?: string | { context: string };
      command?: string[] | string;
      environment?: Record<string, string> | string[];
      ports?: string[];
      depends_on?: Record<string, { condition: string }>;
      volumes?: string[];
      healthcheck?: { test: string[] | string };
    }
  >;
  volumes?: Record<string, unknown>;
};
const services = compose.services;
const APP = ['migrate', 'api', 'worker'];

const envOf = (service: string): Record<string, string> => {
  const env = services[service].environment ?? {};
  return Array.isArray(env)
    ? Object.fromEntries(env.map((e) => [e.split('=')[0], e.split('=').slice(1).join('=')]))
    : env;
};
const commandOf = (service: string) => {
  const c = services[service].command;
  return Array.isArray(c) ? c : (c ?? '').split(/\s+/);
};

/** The commands the CLI offers, as its own usage prints them. */
async function cliCommands(): Promise<Set<string>> {
  const r = await svc(['help'], childEnv(adminUrl));
  expect(r.code).toBe(0);
  return new Set([...r.stdout.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]));
}

describe('docker-compose.yml', () => {
  it('declares postgres, api and worker (plus migrate and redis)', () => {
    expect(Object.keys(services).sort()).toEqual(['api', 'migrate', 'postgres', 'redis', 'worker']);
  });

  it('postgres: postgres:17, a pg_isready healthcheck and a named volume for its data', () => {
    const pgs = services.postgres;
    expect(pgs.image).toMatch(/^postgres:17(\.|-|$)/);
    expect([pgs.healthcheck?.test].flat().join(' ')).toMatch(/pg_isready/);
    const [volume, target] = (pgs.volumes ?? [])[0].split(':');
    expect(target).toBe('/var/lib/postgresql/data');
    expect(compose.volumes).toHaveProperty(volume);
  });

  it('app services build this directory into one image and run real CLI commands', async () => {
    const commands = await cliCommands();
    expect([...commands]).toEqual(expect.arrayContaining(['start', 'serve', 'worker', 'migrate', 'bootstrap', 'sign']));
    const expected: Record<string, string> = { migrate: 'migrate', api: 'serve', worker: 'worker' };
    for (const s of APP) {
      const build = services[s].build;
      expect(typeof build === 'string' ? build : build?.context, s).toBe('.');
      expect(services[s].image, s).toBe(services.api.image);
      const [bin, script, command, ...rest] = commandOf(s);
      expect({ s, bin, script, rest }).toEqual({ s, bin: 'node', script: pkg.bin.svc, rest: [] });
      expect(commands.has(command), `${s}: "${command}" is not an svc command`).toBe(true);
      expect(command).toBe(expected[s]);
    }
    expect(existsSync(join(ROOT, pkg.bin.svc))).toBe(true);
  });

  it('api and worker wait for a healthy postgres and a finished migration', () => {
    for (const s of ['api', 'worker']) {
      expect(services[s].depends_on?.postgres, s).toEqual({ condition: 'service_healthy' });
      expect(services[s].depends_on?.migrate, s).toEqual({ condition: 'service_completed_successfully' });
    }
    expect(services.migrate.depends_on?.postgres).toEqual({ condition: 'service_healthy' });
    expect(services.api.depends_on?.redis).toEqual({ condition: 'service_healthy' });
  });

  it('api publishes the port it listens on, and its healthcheck calls /healthz', () => {
    const env = envOf('api');
    expect(services.api.ports).toEqual([`4000:${env.PORT}`]);
    // The code binds loopback by default (src/core/config.ts): a published port reaches the
    // container only when the server binds every interface, in compose and in the image itself.
    expect(env.HOST).toBe('0.0.0.0');
    expect(read('Dockerfile')).toMatch(/^\s+HOST=0\.0\.0\.0 \\$/m);
    expect(env.PORT).toBe('4000');
    expect([services.api.healthcheck?.test].flat().join(' ')).toContain(`127.0.0.1:${env.PORT}/healthz`);
    expect(read('app/server.ts')).toContain(`fastify.get('/healthz'`);
  });

  it('every environment variable given to the app is one it reads, and the required ones are there', () => {
    const known = envRead();
    // sanity: the scan finds what config.ts reads
    expect([...known]).toEqual(
      expect.arrayContaining(['DATABASE_URL', 'PORT', 'SVC_MASTER_KEY', 'REDIS_URL', 'NODE_ENV', 'LOG_LEVEL', 'HOST']),
    );
    for (const s of APP) {
      const env = envOf(s);
      const unknown = Object.keys(env).filter((k) => !known.has(k));
      expect(unknown, `${s} sets variables nothing reads`).toEqual([]);
      expect(Object.keys(env), s).toEqual(expect.arrayContaining(['DATABASE_URL', 'SVC_MASTER_KEY']));
      // production refuses to start without a master key: compose must make it required, not empty
      expect(env.NODE_ENV).toBe('production');
      expect(env.SVC_MASTER_KEY, s).toMatch(/^\$\{SVC_MASTER_KEY:\?.+\}$/);
    }
  });

  it('DATABASE_URL and REDIS_URL point at the postgres and redis services', () => {
    const pgEnv = envOf('postgres');
    for (const s of APP) {
      const db = new URL(envOf(s).DATABASE_URL);
      expect(db.protocol).toMatch(/^postgres(ql)?:$/);
      expect({
        host: db.hostname,
        port: db.port || '5432',
        user: db.username,
        password: db.password,
        database: db.pathname.slice(1),
      }).toEqual({
        host: 'postgres',
        port: '5432',
        user: pgEnv.POSTGRES_USER,
        password: pgEnv.POSTGRES_PASSWORD,
        database: pgEnv.POSTGRES_DB,
      });
      expect(new URL(envOf(s).REDIS_URL).hostname).toBe('redis');
    }
  });

  it('tenant queries log in as the app role with a required password, which the migrate service sets', () => {
    const passwords = new Set<string>();
    for (const s of APP) {
      const env = envOf(s);
      expect(env.SVC_APP_PASSWORD, s).toMatch(/^\$\{SVC_APP_PASSWORD:\?.+\}$/);
      expect(env.SVC_APP_DATABASE_URL, `${s} derives the app URL from DATABASE_URL`).toBeUndefined();
      passwords.add(env.SVC_APP_PASSWORD);
      // the URL the code derives from this environment
      const saved = { url: process.env.SVC_APP_DATABASE_URL, pw: process.env.SVC_APP_PASSWORD };
      try {
        delete process.env.SVC_APP_DATABASE_URL;
        process.env.SVC_APP_PASSWORD = 'from-compose';
        const app = new URL(appDatabaseUrl(env.DATABASE_URL));
        expect({ user: app.username, password: app.password, host: app.hostname, database: app.pathname }).toEqual({
          user: APP_LOGIN_ROLE,
          password: 'from-compose',
          host: 'postgres',
          database: new URL(env.DATABASE_URL).pathname,
        });
        expect(app.username).not.toBe(new URL(env.DATABASE_URL).username);
      } finally {
        for (const [k, v] of [
          ['SVC_APP_DATABASE_URL', saved.url],
          ['SVC_APP_PASSWORD', saved.pw],
        ] as const) {
          if (v === undefined) delete process.env[k];
          else process.env[k] = v;
        }
      }
    }
    expect(passwords.size, 'migrate, api and worker share one SVC_APP_PASSWORD').toBe(1);
    // the migrate service is what sets it on the role
    expect(commandOf('migrate')[2]).toBe('migrate');
    expect(read('src/core/db/migrate.ts')).toContain('ensureAppLogin(');
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const instructions = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => ({ op: l.split(/\s+/)[0].toUpperCase(), args: l.slice(l.split(/\s+/)[0].length).trim() }));

  it('builds FROM node:24-slim, which satisfies package.json engines', () => {
    const from = instructions.filter((i) => i.op === 'FROM').map((i) => i.args);
    expect(from).toEqual(['node:24-slim']);
    const min = /(\d+)\.(\d+)/.exec(pkg.engines.node)!;
    expect(24).toBeGreaterThanOrEqual(Number(min[1]));
  });

  it('installs with npm ci, and copies only paths that exist', () => {
    const runs = instructions.filter((i) => i.op === 'RUN').map((i) => i.args);
    expect(runs.some((r) => /\bnpm ci\b/.test(r))).toBe(true);
    const copies = instructions
      .filter((i) => i.op === 'COPY')
      .map((i) => i.args.split(/\s+/).filter((a) => !a.startsWith('--')));
    for (const args of copies)
      for (const src of args.slice(0, -1)) expect(existsSync(join(ROOT, src)), `COPY ${src}`).toBe(true);
    // the postinstall script (Prisma generate) runs inside `npm ci`: its inputs are copied before it
    const ciAt = instructions.findIndex((i) => i.op === 'RUN' && /\bnpm ci\b/.test(i.args));
    const before = instructions
      .slice(0, ciAt)
      .filter((i) => i.op === 'COPY')
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    const postinstall = pkg.scripts.postinstall as string;
    expect(postinstall).toBe('node scripts/prisma-generate.mjs');
    for (const needed of [
      'package.json',
      'package-lock.json',
      'prisma.config.ts',
      'scripts/prisma-generate.mjs',
      'prisma',
    ])
      expect(before, needed).toContain(needed);
  });

  it('CMD runs a real CLI command, and EXPOSE is the port compose publishes', async () => {
    const cmd = JSON.parse(instructions.find((i) => i.op === 'CMD')!.args) as string[];
    const [bin, script, command] = cmd;
    expect([bin, script]).toEqual(['node', pkg.bin.svc]);
    expect((await cliCommands()).has(command)).toBe(true);
    expect(instructions.find((i) => i.op === 'EXPOSE')?.args).toBe(envOf('api').PORT);
  });

  it('--omit=dev is safe: every package the runtime imports is a dependency', () => {
    const omitsDev = /npm ci\b[^\n]*--omit=dev/.test(dockerfile);
    const builtins = new Set(builtinModules);
    const imported = new Set<string>();
    for (const f of runtimeFiles()) {
      const src = read(f);
      const specs = [
        ...src.matchAll(/^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm),
        ...src.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
      ].map((m) => m[1]);
      for (const s of specs) {
        if (s.startsWith('.') || s.startsWith('node:') || builtins.has(s)) continue;
        imported.add(s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]);
      }
    }
    expect([...imported]).toEqual(expect.arrayContaining(['fastify', 'graphql-yoga', 'pg', 'tsx', 'dotenv']));
    const deps = new Set(Object.keys(pkg.dependencies));
    const missing = [...imported].filter((p) => !deps.has(p));
    expect(omitsDev ? missing : [], 'imported by the runtime but only a devDependency (the image omits them)').toEqual(
      [],
    );
  });

  it('.dockerignore keeps local state out and everything the image runs in', () => {
    const patterns = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    for (const p of ['node_modules', '.git', '.env', '.data']) expect(patterns, p).toContain(p);
    // Patterns here are plain paths (no wildcards except *.ext), so prefix matching is exact.
    const ignored = (path: string) =>
      patterns.some((p) => (p.startsWith('*.') ? path.endsWith(p.slice(1)) : path === p || path.startsWith(`${p}/`)));
    const needed = [
      'package.json',
      'package-lock.json',
      'prisma.config.ts',
      'scripts/prisma-generate.mjs',
      'tsconfig.json',
      ...runtimeFiles(),
      ...readdirSync(join(ROOT, 'prisma/schema')).map((f) => `prisma/schema/${f}`),
    ];
    for (const m of readdirSync(join(ROOT, 'prisma/migrations'), { recursive: true }) as string[])
      needed.push(relative(ROOT, join(ROOT, 'prisma/migrations', m)));
    for (const f of readdirSync(join(ROOT, 'rest-compat/operations'))) needed.push(`rest-compat/operations/${f}`);
    expect(needed.filter(ignored)).toEqual([]);
    expect(ignored('src/generated/prisma/client.ts')).toBe(true);
  });
});

describe('README', () => {
  it('has a "Running with containers" section naming the required variable', () => {
    const readme = read('README.md');
    const section = /^## Running with containers\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(readme)?.[1];
    expect(section, 'README.md needs a "## Running with containers" section').toBeTruthy();
    expect(section).toContain('docker compose up');
    expect(section).toContain('SVC_MASTER_KEY');
  });
});
