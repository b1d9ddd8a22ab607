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
    ...extra,
  };
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `svc <args>` to completion (killed after `timeoutMs`). */
export function svc(args: string[], env: NodeJS.ProcessEnv, opts: { timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SVC_BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
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

/** Starts `svc <command>` (serve by default) as a separate process and waits until GET /healthz answers 200. */
export async function startInstance(databaseUrl: string, opts: { command?: string; timeoutMs?: number; env?: Record<string, string> } = {}): Promise<Instance> {
  const port = await freePort();
  const child = spawn(process.execPath, [SVC_BIN, opts.command ?? 'serve'], {
    cwd: ROOT,
    env: childEnv(databaseUrl, { PORT: String(port), ...opts.env }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  let exited: string | null = null;
  const closed = new Promise<void>((r) => child.once('exit', (code, signal) => {
    exited = `exited with ${code ?? signal}`;
    r();
  }));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (exited) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await closed;
    clearTimeout(killer);
  };
  const deadline = Date.now() + (opts.timeoutMs ?? 45_000);
  for (;;) {
    if (exited) throw new Error(`svc ${opts.command ?? 'serve'} ${exited} before it was ready:\n${stderr}`);
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
      if (res.status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`svc ${opts.command ?? 'serve'} was not ready on ${url} in time:\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  return { url, child, stderr: () => stderr, stop };
}

/** Starts `svc worker` as a separate process and waits for its ready line on stderr. */
export async function startWorkerProcess(databaseUrl: string, env: Record<string, string> = {}, timeoutMs = 45_000): Promise<Omit<Instance, 'url'>> {
  const child = spawn(process.execPath, [SVC_BIN, 'worker'], { cwd: ROOT, env: childEnv(databaseUrl, env), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`svc worker not ready in time:\n${stderr}`)), timeoutMs);
    child.stderr!.on('data', (d) => {
      stderr += d;
      if (stderr.includes('svc worker running')) (clearTimeout(timer), resolve());
    });
    child.once('exit', (code, signal) => (clearTimeout(timer), reject(new Error(`svc worker exited with ${code ?? signal}:\n${stderr}`))));
  });
  const closed = new Promise<void>((r) => child.once('exit', () => r()));
  await ready;
  return {
    child,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await closed;
      clearTimeout(killer);
    },
  };
}
