/**
 * Setup file of the `shared` project (files share a process per worker): whatever a file changes in
 * `process.env` or `config`, its spies and fake timers are put back after its last case, so the next
 * file on the worker starts from the state a fresh process would give it.
 */
import { afterAll, vi } from 'vitest';
import { config } from '../../src/core/config.ts';

// Taken when the setup file runs, before the test file is imported (some set `config` at their top).
const env: Record<string, string | undefined> = { ...process.env };
/** `config`'s plain fields (its getters, such as `masterKey`, read the environment put back here). */
const plain = (o: object) =>
  Object.entries(Object.getOwnPropertyDescriptors(o)).filter(([, d]) => 'value' in d && d.writable);
const settings = new Map(plain(config).map(([k, d]) => [k, d.value]));
/** Its nested objects (`rateLimits`), copied: a file may change them in place. */
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
const nested = new Map([...settings].filter(([, v]) => isRecord(v)).map(([k, v]) => [k, structuredClone(v)]));

afterAll(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
  for (const [k, v] of Object.entries(env)) if (v !== undefined && process.env[k] !== v) process.env[k] = v;
  const live = config as Record<string, unknown>;
  for (const [k] of plain(config)) {
    if (!settings.has(k)) delete live[k];
    else live[k] = settings.get(k);
  }
  for (const [k, copy] of nested) {
    const v = live[k] as Record<string, unknown>;
    for (const key of Object.keys(v)) if (!(key in copy)) delete v[key];
    Object.assign(v, structuredClone(copy));
  }
});
