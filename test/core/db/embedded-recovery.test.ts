// `npm start` over the embedded PostgreSQL makes whatever a stopped first start left missing (the
// `svc` database, a cluster whose initdb was cut short), keeps a port of its own per data folder
// so two checkouts run side by side, and names the port when another process holds it.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { ROOT, SVC_BIN } from '../../helpers/cli.ts';
import { embeddedFiles } from '../../../src/core/db/embedded.ts';
import { embeddedDataDir, embeddedStartEnv, embeddedUnreachable as unreachable } from '../../helpers/embedded-start.ts';

const running: (() => Promise<void>)[] = [];
const dir = embeddedDataDir('svc-embedded-recovery-', async () => {
  await Promise.all(running.map((stop) => stop()));
});

/** `svc start` in the background: until healthy (or exited), its stderr, a stop. */
function start(env: NodeJS.ProcessEnv, port: number) {
  const child = spawn(process.execPath, [SVC_BIN, 'start'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
  };
  running.push(stop);
  return {
    stderr: () => stderr,
    exited,
    stop,
    /** Resolves once GET /healthz answers 200; throws with stderr if the process exits first. */
    async healthy() {
      const deadline = Date.now() + 120_000;
      while (
        !(await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.ok,
          () => false,
        ))
      ) {
        if (child.exitCode !== null || Date.now() > deadline)
          throw new Error(`svc start did not become healthy (${child.exitCode}):\n${stderr}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    },
  };
}

/** A plain TCP listener on 127.0.0.1:port, as another program holding the port would be. */
function holdPort(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const s = createServer((socket) => socket.destroy());
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => resolve(s));
  });
}

describe.skipIf(unreachable)('the embedded PostgreSQL recovers what a first start left undone', () => {
  it('a first start whose database port is taken names the port; the next start, port free, is healthy', async () => {
    const data = join(dir, 'taken');
    const { env, port, pgPort } = await embeddedStartEnv(data);
    let holder = await holdPort(pgPort);
    const first = start(env, port);
    const code = await first.exited;
    holder.close();
    expect(code, first.stderr()).toBe(1);
    // one sentence: which port, that another process holds it, how to override
    expect(first.stderr().trim().split('\n').at(-1)).toBe(
      `svc: the embedded PostgreSQL cannot listen on 127.0.0.1:${pgPort} because another process holds that ` +
        'port: stop that process, or set SVC_EMBEDDED_PG_PORT to a free port',
    );

    // the cluster was made before the port was found taken; the database is made now
    const second = start(env, port);
    await second.healthy();
    await second.stop();

    // without the override, the folder's kept port: taken, the sentence names the file too
    delete env.SVC_EMBEDDED_PG_PORT;
    const file = embeddedFiles(data).port;
    writeFileSync(file, String(pgPort), { mode: 0o600 });
    holder = await holdPort(pgPort);
    const third = start(env, port);
    expect(await third.exited, third.stderr()).toBe(1);
    holder.close();
    expect(third.stderr().trim().split('\n').at(-1)).toBe(
      `svc: the embedded PostgreSQL cannot listen on 127.0.0.1:${pgPort} because another process holds that ` +
        `port (kept in ${file} since this data folder's first start): stop that process, set ` +
        `SVC_EMBEDDED_PG_PORT to a free port, or delete ${file} to have a free one picked`,
    );
  }, 240_000);

  it('two checkouts side by side each pick and keep a port; a cluster whose initdb was cut short is made again', async () => {
    const [a, b] = [join(dir, 'clone-a'), join(dir, 'clone-b')];
    // clone b: a first start stopped during initdb (its marker still there, the cluster half made)
    mkdirSync(join(b, 'pg'), { recursive: true });
    writeFileSync(join(b, 'pg', 'PG_VERSION'), '18\n');
    writeFileSync(embeddedFiles(b).initialising, '');
    const clones = await Promise.all(
      [a, b].map(async (data) => {
        const { env, port } = await embeddedStartEnv(data);
        delete env.SVC_EMBEDDED_PG_PORT; // each picks its own, as a new checkout does
        return { data, port, svc: start(env, port) };
      }),
    );
    await Promise.all(clones.map((c) => c.svc.healthy()));
    const ports = clones.map((c) => Number(readFileSync(embeddedFiles(c.data).port, 'utf8')));
    expect(new Set(ports).size).toBe(2);

    // the data folder is the service user's alone; as root, the cluster's own folder is "postgres"'s
    const files = embeddedFiles(a);
    const root = process.getuid?.() === 0;
    expect(statSync(a).mode & 0o777).toBe(root ? 0o711 : 0o700);
    expect(statSync(a).uid).toBe(process.getuid?.());
    expect(statSync(files.cluster).mode & 0o777).toBe(0o700);
    if (root) expect(statSync(files.cluster).uid).not.toBe(0);
    for (const f of [files.superuserPassword, files.appPassword, files.port])
      expect(statSync(f).mode & 0o777, f).toBe(0o600);
    // the superuser's password is the generated one, not "postgres"
    const login = async (password: string) => {
      const c = new pg.Client({ connectionString: `postgresql://postgres:${password}@127.0.0.1:${ports[0]}/svc` });
      try {
        await c.connect();
        return 'ok';
      } catch (e) {
        return (e as { code?: string }).code;
      } finally {
        await c.end().catch(() => {});
      }
    };
    expect(await login('postgres')).toBe('28P01');
    expect(await login(readFileSync(files.superuserPassword, 'utf8').trim())).toBe('ok');

    await Promise.all(clones.map((c) => c.svc.stop()));
  }, 240_000);
});
