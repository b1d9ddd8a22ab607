import { afterAll, beforeAll } from 'vitest';

const PROVIDER_ENV = [
  'SVC_CALLBACK_BASE_URL',
  'PROVIDER_A_BASE_URL',
  'PROVIDER_B_BASE_URL',
  'PROVIDER_C_BASE_URL',
  'PROVIDER_C_WEBHOOK_ID',
  'SVC_PROVIDER_TIMEOUT_MS',
];

/**
 * For a file whose payments go through the provider simulators: callbacks point at the test
 * server, and the simulators registered with `track` are closed and the provider settings
 * cleared after the file. A dropped answer (a simulator holds the response open) ends the call as a
 * timeout would in production, after 3 s instead of 10: the same path, sooner.
 */
export function useSimulators(server: { url: string }) {
  const running: { close(): Promise<void> }[] = [];
  beforeAll(() => {
    process.env.SVC_CALLBACK_BASE_URL = server.url;
    process.env.SVC_PROVIDER_TIMEOUT_MS = '3000';
  });
  afterAll(async () => {
    for (const k of PROVIDER_ENV) delete process.env[k];
    await Promise.all(running.map((s) => s.close()));
  });
  return { track: <S extends { close(): Promise<void> }>(sim: S): S => (running.push(sim), sim) };
}
