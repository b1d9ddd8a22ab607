// Ctrl-C of `npm start`: the terminal's SIGINT goes to the whole process
// group; the service stops in order (API, worker, pools, then its embedded PostgreSQL, which runs
// in a group of its own), says "stopping" and "stopped" once each, writes no warning or error,
// and exits 0 within 10 s. Three times in a row over one embedded database (a running service with a
// socket open, one still booting, a running one again); `npm run test:faults` runs ten.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import WebSocket from 'ws';
import { ROOT, SVC_BIN } from '../helpers/cli.ts';
import { embeddedDataDir, embeddedStartEnv, embeddedUnreachable as unreachable } from '../helpers/embedded-start.ts';

const ROUNDS = Number(process.env.SHUTDOWN_ROUNDS ?? 3);
// (test/core/db/embedded.test.ts covers what svc says where the embedded server cannot run)
const dir = embeddedDataDir('svc-shutdown-');

interface Line {
  level?: number;
  msg?: string;
  raw: string;
}

/** Whether the embedded server still answers: refused is down; a wrong password would be an error. */
async function pgUp(port: number) {
  const password = readFileSync(join(dir, 'data', 'pg-superuser.password'), 'utf8').trim();
  const c = new pg.Client({ connectionString: `postgresql://postgres:${password}@127.0.0.1:${port}/svc` });
  c.on('error', () => {});
  try {
    await c.connect();
    await c.end();
    return true;
  } catch (e) {
    if ((e as { code?: string }).code === 'ECONNREFUSED') return false;
    throw e;
  }
}

describe('SIGINT to the process group of `svc start` with an embedded PostgreSQL', () => {
  it.skipIf(unreachable)(
    `stops cleanly ${ROUNDS} times in a row: "stopping" and "stopped", exit 0 within 10 s, no warning or error`,
    async () => {
      const { env, port, pgPort } = await embeddedStartEnv(join(dir, 'data'), {
        LOG_LEVEL: 'info',
        SVC_LOG_FORMAT: 'json',
      });

      for (let round = 1; round <= ROUNDS; round++) {
        // Its own process group, as a terminal starts it: the signal goes to -pid.
        const child = spawn(process.execPath, [SVC_BIN, 'start'], {
          cwd: ROOT,
          env,
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        child.stdout!.on('data', (d) => (output += d));
        child.stderr!.on('data', (d) => (output += d));
        const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
          child.once('exit', (code, signal) => r({ code, signal })),
        );
        const deadline = Date.now() + 150_000;
        // Most rounds stop a running service; the second stops one still booting (its worker not yet started).
        const ready = round === 2 ? 'server listening' : 'worker started';
        while (!output.includes(ready)) {
          if (child.exitCode !== null || Date.now() > deadline)
            throw new Error(`round ${round}: svc start did not come up:\n${output}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        // A graphql-ws socket open at the stop is told 1001 (going away).
        let socketClose: Promise<number> | undefined;
        if (round === 1) {
          const ws = new WebSocket(`ws://127.0.0.1:${port}/graphql`, 'graphql-transport-ws');
          await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
          socketClose = new Promise((r) => ws.once('close', (code) => r(code)));
        }

        const stopAt = Date.now();
        process.kill(-child.pid!, 'SIGINT');
        const killer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 20_000);
        const { code, signal } = await exited;
        clearTimeout(killer);
        const took = Date.now() - stopAt;

        const lines: Line[] = output
          .split('\n')
          .filter(Boolean)
          .map((raw) => {
            try {
              return { ...(JSON.parse(raw) as { level?: number; msg?: string }), raw };
            } catch {
              return { raw };
            }
          });
        const context = `round ${round}:\n${output}`;
        expect({ code, signal }, context).toEqual({ code: 0, signal: null });
        expect(took, context).toBeLessThan(10_000);
        expect(lines.filter((l) => l.msg === 'stopping').length, context).toBe(1);
        expect(lines.filter((l) => l.msg === 'stopped').length, context).toBe(1);
        expect(
          lines.findIndex((l) => l.msg === 'stopped'),
          context,
        ).toBe(lines.length - 1);
        // pino: 40 is warn, 50 error; plain lines (the banner) must not carry one either.
        expect(
          lines.filter((l) => (l.level ?? 0) >= 40 || (l.level === undefined && /error|warn/i.test(l.raw))),
          context,
        ).toEqual([]);
        if (socketClose) expect(await socketClose).toBe(1001);
        // The embedded PostgreSQL went last, with the service: nothing listens on its port.
        expect(await pgUp(pgPort), context).toBe(false);
      }
    },
    600_000,
  );
});
