import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { config } from '../../src/core/config.ts';

export const ROOT = join(import.meta.dirname, '../..');
/** The `svc` executable as package.json's "bin" declares it, run by this Node. */
export const SVC_BIN = join(ROOT, 'bin/svc.js');

/**
 * Environment for a child `svc`: the test database, the same master key as this process (API
 * key signing keys are encrypted with it), quiet logs, loopback only. DATABASE_URL is always set,
 * so a child never falls back to the embedded PostgreSQL.
 */
export function childEnv(databaseUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    SVC_MASTER_KEY: config.masterKey.toString('hex'),
    // Small pools: test files run in parallel, some with several children, against one server's 100 connections.
    SVC_DB_POOL: '6',
    ...extra,
  };
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `svc <args>` to completion (killed after `timeoutMs`), in `cwd` (the checkout) with `stdin` (none). */
export function svc(
  args: string[],
  env: NodeJS.ProcessEnv,
  opts: { timeoutMs?: number; cwd?: string; stdin?: string } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SVC_BIN, ...args], {
      cwd: opts.cwd ?? ROOT,
      env,
      stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (opts.stdin !== undefined) child.stdin!.end(opts.stdin);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** A TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface Instance {
  url: string;
  child: ChildProcess;
  /** Everything the child wrote to stderr so far (for failure messages). */
  stderr(): string;
  stop(): Promise<void>;
}

/** `svc <command>` as a child process: its stderr, whether it has exited, and a stop that escalates to SIGKILL. */
function spawnSvc(command: string, databaseUrl: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [SVC_BIN, command], {
    cwd: ROOT,
    env: childEnv(databaseUrl, env),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  let exited: string | null = null;
  const closed = new Promise<void>((r) =>
    child.once('exit', (code, signal) => {
      exited = `exited with ${code ?? signal}`;
      r();
    }),
  );
  const stop = async () => {
    if (exited) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await closed;
    clearTimeout(killer);
  };
  return { child, stderr: () => stderr, exited: () => exited, stop };
}

/** Polls until `ready()` holds; stops the child and throws with its stderr if it exits or takes too long. */
async function waitReady(
  svc: ReturnType<typeof spawnSvc>,
  what: string,
  ready: () => Promise<boolean>,
  timeoutMs: number,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (svc.exited()) throw new Error(`svc ${what} ${svc.exited()} before it was ready:\n${svc.stderr()}`);
    if (await ready()) return;
    if (Date.now() > deadline) {
      await svc.stop();
      throw new Error(`svc ${what} was not ready in time:\n${svc.stderr()}`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
}

/**
 * Starts `svc <command>` (serve by default) as a separate process and waits until GET /healthz
 * answers 200. `port` fixes the port, so a restart comes back at the same URL.
 */
export async function startInstance(
  databaseUrl: string,
  opts: { command?: string; timeoutMs?: number; env?: Record<string, string>; port?: number } = {},
): Promise<Instance> {
  const port = opts.port ?? (await freePort());
  const svc = spawnSvc(opts.command ?? 'serve', databaseUrl, { PORT: String(port), ...opts.env });
  const url = `http://127.0.0.1:${port}`;
  const healthy = () =>
    fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) }).then(
      (r) => r.status === 200,
      () => false,
    );
  await waitReady(svc, opts.command ?? 'serve', healthy, opts.timeoutMs ?? 45_000);
  return { url, child: svc.child, stderr: svc.stderr, stop: svc.stop };
}

/** Starts `svc worker` as a separate process and waits for its ready line on stderr. */
export async function startWorkerProcess(
  databaseUrl: string,
  env: Record<string, string> = {},
  timeoutMs = 45_000,
): Promise<Omit<Instance, 'url'>> {
  const svc = spawnSvc('worker', databaseUrl, env);
  await waitReady(svc, 'worker', async () => svc.stderr().includes('svc worker running'), timeoutMs);
  return { child: svc.child, stderr: svc.stderr, stop: svc.stop };
}
