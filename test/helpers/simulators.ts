import { afterAll, beforeAll } from 'vitest';

const PROVIDER_ENV = [
  'SVC_CALLBACK_BASE_URL',
  'PROVIDER_A_BASE_URL',
  'PROVIDER_B_BASE_URL',
  'PROVIDER_C_BASE_URL',
  'PROVIDER_C_WEBHOOK_ID',
];

/**
 * For a file whose payments go through the provider simulators: callbacks point at the test
 * server, and the simulators registered with `track` are closed and the provider settings
 * cleared after the file.
 */
export function useSimulators(server: { url: string }) {
  const running: { close(): Promise<void> }[] = [];
  beforeAll(() => {
    process.env.SVC_CALLBACK_BASE_URL = server.url;
  });
  afterAll(async () => {
    for (const k of PROVIDER_ENV) delete process.env[k];
    await Promise.all(running.map((s) => s.close()));
  });
  return { track: <S extends { close(): Promise<void> }>(sim: S): S => (running.push(sim), sim) };
}
