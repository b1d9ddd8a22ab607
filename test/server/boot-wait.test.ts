// `svc serve` before its database is up: it waits with backoff, says so once
// per interval, serves as soon as the database answers, and gives up non-zero after the bounded wait.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnection, createServer, type Server } from 'node:net';
import { freshDatabase, dropDatabase } from '../helpers/db.ts';
import { spawn } from 'node:child_process';
import { ROOT, SVC_BIN, svc, childEnv, freePort } from '../helpers/cli.ts';

let dbUrl: string;
let dbName: string;
beforeAll(async () => {
  ({ url: dbUrl, name: dbName } = await freshDatabase());
});
afterAll(() => dropDatabase(dbName));

/**
 * The database's URL through a port that, until `open()` is called, accepts and resets every
 * connection (counted in `refused()`: the server's attempts, each an unreachable database to it),
 * then forwards to the database.
 */
async function lateDatabase(url: string) {
  const target = new URL(url);
  const port = await freePort();
  const via = new URL(url);
  via.port = String(port);
  let server: Server | undefined;
  let refused = 0;
  let forward = false;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((socket) => {
        if (!forward) {
          refused++;
          socket.resetAndDestroy();
          return;
        }
        const upstream = createConnection(Number(target.port || 5432), target.hostname);
        socket.pipe(upstream).pipe(socket);
        socket.on('error', () => upstream.destroy());
        upstream.on('error', () => socket.destroy());
      });
      server.listen(port, '127.0.0.1', () => resolve());
    });
  return {
    url: via.toString(),
    refused: () => refused,
    listen,
    open: async () => {
      forward = true;
      if (!server) await listen();
    },
    close: () => new Promise<void>((r) => (server ? server.close(() => r()) : r())),
  };
}

const logs = { LOG_LEVEL: 'info', SVC_LOG_FORMAT: 'json', SVC_LOG_STDERR: '1' };
const waitingLines = (stderr: string) => stderr.split('\n').filter((l) => l.includes('"waiting for the database"'));

describe('svc serve waits for its database at boot', () => {
  it('serves once the database comes up, having said so once per interval meanwhile', async () => {
    const late = await lateDatabase(dbUrl);
    const port = await freePort();
    const child = spawn(process.execPath, [SVC_BIN, 'serve'], {
      cwd: ROOT,
      env: childEnv(late.url, {
        ...logs,
        PORT: String(port),
        SVC_DB_WARN_INTERVAL_MS: '60000',
        SVC_DB_BOOT_WAIT_SEC: '60',
      }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    try {
      const deadline = Date.now() + 60_000;
      while (waitingLines(stderr).length === 0) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no waiting line:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      // More attempts fail (backoff from 0.25 s) before the database appears: counted, not timed.
      await late.listen();
      const before = late.refused();
      while (late.refused() < before + 2) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no further attempts:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await late.open();
      while (
        !(await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.status === 200,
          () => false,
        ))
      ) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`not ready:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 150));
      }
      // One line for the whole wait (the interval is longer than it), however many attempts it took.
      expect(waitingLines(stderr)).toHaveLength(1);
      expect(stderr).toContain('"database reachable"');
    } finally {
      child.kill('SIGTERM');
      await exited;
      await late.close();
    }
  }, 120_000);

  it('gives up after SVC_DB_BOOT_WAIT_SEC and exits non-zero, naming the setting', async () => {
    const late = await lateDatabase(dbUrl); // never opened
    const started = Date.now();
    const run = await svc(
      ['serve'],
      childEnv(late.url, {
        ...logs,
        PORT: String(await freePort()),
        SVC_DB_BOOT_WAIT_SEC: '3',
        SVC_DB_WARN_INTERVAL_MS: '1000',
      }),
      { timeoutMs: 60_000 },
    );
    const took = Date.now() - started;
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('SVC_DB_BOOT_WAIT_SEC');
    expect(took).toBeGreaterThan(3000);
    // Bounded, and one line per interval of 1 s over 3 s of waiting: a handful, not one per attempt.
    expect(took).toBeLessThan(45_000);
    const lines = waitingLines(run.stderr).length;
    expect(lines).toBeGreaterThanOrEqual(2);
    expect(lines).toBeLessThanOrEqual(5);
  }, 90_000);
});
