// Twelve advances at once from one restricted test key used to take every system
// connection (each walker held one idle after its advisory lock while the walk waited for a second),
// and then every tenant's requests, /healthz and SIGTERM hung. Against a real `svc start` process
// with the default pool (20: a system pool of 10), as the report had it.
import { afterAll, describe, expect, it } from 'vitest';
import { useServer, createClient } from '../../helpers/server.ts';
import { mintKey } from '../../helpers/keys.ts';
import { startInstance, type Instance } from '../../helpers/cli.ts';
import { clockedSubscriptions } from '../../helpers/clocked-subscriptions.ts';
import { until } from '../../helpers/receiver.ts';
import { watchHealth, within } from '../../helpers/health-watch.ts';

const server = useServer({ background: 'none' });
let svc: Instance | undefined;
afterAll(() => {
  if (svc && svc.child.exitCode === null) svc.child.kill('SIGKILL');
});

const start = '2025-01-31T00:00:00.000Z';

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

    const health = watchHealth(svc.url);
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
    // Each clock is read until it is ready, a round every 250 ms: polling all twelve every 25 ms on an
    // idle machine outran the key's read limit, and a 429 is only "not yet". The deadline decides.
    const ready = new Set<string>();
    await until(
      async () => {
        const waiting = clocks.filter((id) => !ready.has(id));
        const reads = await Promise.all(waiting.map((id) => restricted.get(`/v1/test-clocks/${id}`)));
        for (const [i, r] of reads.entries())
          if (r.status === 200 && r.json.data.status === 'ready') ready.add(waiting[i]);
        if (ready.size < clocks.length) await new Promise((r) => setTimeout(r, 250));
        return ready.size === clocks.length;
      },
      'every clock ready',
      60_000,
    );
    // Every /healthz answered (before: none after the burst), p95 within 1 s beyond a request without
    // the database sent at the same moment (test/helpers/health-watch.ts).
    const h = await health();
    expect(h.worst).toBeLessThan(Number.POSITIVE_INFINITY);
    expect(h.p95OverControl).toBeLessThan(1000);

    // SIGTERM while a new round of walks is under way.
    await Promise.all(
      clocks.map((id) => restricted.post(`/v1/test-clocks/${id}/advance`, { frozenTime: '2026-12-31T00:00:00.000Z' })),
    );
    const exited = new Promise<void>((r) => svc!.child.once('exit', () => r()));
    const t = performance.now();
    svc.child.kill('SIGTERM');
    await within(10_000, 'SIGTERM', exited);
    expect(performance.now() - t).toBeLessThan(10_000);
  }, 240_000);
});
