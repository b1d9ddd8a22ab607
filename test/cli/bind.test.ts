// Where `svc serve` listens: loopback unless HOST says otherwise, and the banner says where.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { childEnv, freePort, ROOT, SVC_BIN } from '../helpers/cli.ts';
import { useServer } from '../helpers/server.ts';

const server = useServer({ background: 'none' });

/** The local addresses of listening TCP sockets on `port`, read from the kernel's tables. */
function listeners(port: number): string[] {
  const out: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state !== '0A' || !local) continue; // 0A: LISTEN
      const [hex, p] = local.split(':');
      if (Number.parseInt(p, 16) !== port) continue;
      out.push(
        hex.length === 8
          ? [3, 2, 1, 0].map((i) => Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16)).join('.')
          : hex === '0'.repeat(32)
            ? '::'
            : hex,
      );
    }
  }
  return out;
}

/** Starts `svc serve` with `host` (undefined: HOST unset), returns its banner line and bound addresses. */
async function serveWith(host: string | undefined) {
  const port = await freePort();
  const env = childEnv(server.dbUrl, { PORT: String(port) });
  if (host === undefined) delete env.HOST;
  else env.HOST = host;
  const child = spawn(process.execPath, [SVC_BIN, 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  try {
    const deadline = Date.now() + 90_000;
    while (!stderr.includes('svc listening')) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`svc serve did not start:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    return { port, banner: /svc listening on .*/.exec(stderr)![0], bound: listeners(port), health: health.status };
  } finally {
    // A child that already exited (a port taken between freePort() and its bind) fires no second 'exit'.
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  }
}

/** `serveWith`, once more on another port when the first was taken before the child bound it. */
async function serveOn(host: string | undefined) {
  try {
    return await serveWith(host);
  } catch (e) {
    if (!/EADDRINUSE/.test(String(e))) throw e;
    return serveWith(host);
  }
}

describe.skipIf(!existsSync('/proc/net/tcp'))('svc serve binds', () => {
  it('loopback when HOST is unset, and the banner prints that address', { timeout: 120_000 }, async () => {
    const r = await serveOn(undefined);
    expect(r.health).toBe(200);
    expect(r.bound).toEqual(['127.0.0.1']);
    expect(r.banner).toBe(`svc listening on http://127.0.0.1:${r.port} (GraphQL at /graphql)`);
  });

  it('every interface with HOST=0.0.0.0 (the container), and the banner says so', { timeout: 120_000 }, async () => {
    const r = await serveOn('0.0.0.0');
    expect(r.health).toBe(200);
    expect(r.bound).toEqual(['0.0.0.0']);
    expect(r.banner).toContain('every interface (HOST=0.0.0.0)');
  });
});
