// Issue 23 defect 1: twelve advances at once from one restricted test key used to take every system
// connection (each walker held one idle after its advisory lock while the walk waited for a second),
// and then every tenant's requests, /healthz and SIGTERM hung. Against a real `svc start` process
// with the default pool (20: a system pool of 10), as the report had it.
import { afterAll, describe, expect, it } from 'vitest';
import { useServer, createClient } from '../../helpers/server.ts';
import { mintKey } from '../../helpers/keys.ts';
import { startInstance, type Instance } from '../../helpers/cli.ts';
import { clockedSubscriptions } from '../../helpers/clocked-subscriptions.ts';
import { until } from '../../helpers/receiver.ts';

const server = useServer({ background: 'none' });
let svc: Instance | undefined;
afterAll(() => {
  if (svc && svc.child.exitCode === null) svc.child.kill('SIGKILL');
});

const start = '2025-01-31T00:00:00.000Z';

/** `p`, or a rejection naming `what` once `ms` have passed (a hang fails the test instead of stalling it). */
const within = <T>(ms: number, what: string, p: Promise<T>) =>
  Promise.race([
    p,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms).unref(),
    ),
  ]);

describe('concurrent test clock advances', () => {
  it('12 at once from one restricted key: all answered, /healthz within 1 s, every clock ready, SIGTERM exits < 10 s', async () => {
    const ws = await server.workspace();
    const clocks: string[] = [];
    for (let i = 0; i < 12; i++) {
      const c = (await ws.client.post('/v1/test-clocks', { frozenTime: start })).json.data;
      await clockedSubscriptions(ws, { testClockId: c.id, anchor: start });
      clocks.push(c.id);
    }
    svc = await startInstance(server.dbUrl, { command: 'start', env: { SVC_DB_POOL: '20' } });
    const scopes = ['svc:subscription:read', 'svc:subscription:write'];
    const restricted = createClient({
      baseUrl: svc.url,
      ...(await mintKey(ws.workspaceId, 'test', { role: 'restricted', scopes })),
    });

    let health = 0;
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const t = performance.now();
        const ok = await within(1000, '/healthz', fetch(`${svc!.url}/healthz`)).then(
          (r) => r.status === 200,
          () => false,
        );
        health = Math.max(health, ok ? performance.now() - t : Number.POSITIVE_INFINITY);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const answers = await within(
      30_000,
      '12 advances',
      Promise.all(
        clocks.map((id) =>
          restricted.post(`/v1/test-clocks/${id}/advance`, { frozenTime: '2025-04-30T00:00:00.000Z' }),
        ),
      ),
    );
    expect(
      answers.map((a) => a.status),
      JSON.stringify(answers[0].json),
    ).toEqual(clocks.map(() => 200));
    await until(
      async () => {
        const all = await Promise.all(clocks.map((id) => restricted.get(`/v1/test-clocks/${id}`)));
        return all.every((r) => r.json.data.status === 'ready');
      },
      'every clock ready',
      60_000,
    );
    watching = false;
    await watch;
    expect(health).toBeLessThan(1000);

    // SIGTERM while a new round of walks is under way.
    await Promise.all(
      clocks.map((id) => restricted.post(`/v1/test-clocks/${id}/advance`, { frozenTime: '2026-12-31T00:00:00.000Z' })),
    );
    const exited = new Promise<void>((r) => svc!.child.once('exit', () => r()));
    const t = performance.now();
    svc.child.kill('SIGTERM');
    await within(10_000, 'SIGTERM', exited);
    expect(performance.now() - t).toBeLessThan(10_000);
  }, 120_000);
});
