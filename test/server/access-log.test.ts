import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { startInstance, type Instance } from '../helpers/cli.ts';
import { useServer } from '../helpers/server.ts';
import { newId } from '../../src/core/ids.ts';

// A real `svc serve` writing JSON logs: what an operator (or whoever reads the logs) gets.
const server = useServer({ background: 'none' });
let api: Instance;
beforeAll(async () => {
  api = await startInstance(server.dbUrl, {
    env: { LOG_LEVEL: 'info', SVC_LOG_STDERR: '1', SVC_LOG_FORMAT: 'json', SVC_RATE_LIMIT: 'off' },
    timeoutMs: 90_000,
  });
}, 120_000);
afterAll(() => api?.stop());

const requestLines = (log: string) =>
  log
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.msg === 'request');

describe('access log', () => {
  it('logs route patterns; hosted, invitation and signed-download secrets never reach it', async () => {
    const ws = await server.workspace({ name: 'Log Shop' });
    const session = await ws.client.post(
      '/v1/checkout-sessions',
      {
        amount: 100000,
        currency: 'IDR',
        methods: ['qris'],
        successUrl: 'https://shop.example/ok',
        cancelUrl: 'https://shop.example/cart',
      },
      { 'idempotency-key': randomUUID() },
    );
    expect(session.status, session.text).toBe(201);
    const cs = new URL(session.json.data.hostedUrl as string).pathname.split('/').pop()!;
    const csSecret = cs.slice(cs.lastIndexOf('_') + 1);
    const invitation = `${newId('member')}_${randomBytes(20).toString('hex')}`;
    const invoice = `${newId('invoice')}_${randomBytes(20).toString('hex')}`;
    const mac = randomBytes(32).toString('base64url');
    const secrets = [csSecret, invitation.slice(-40), invoice.slice(-40), mac];

    const get = (path: string, method = 'GET') => fetch(`${api.url}${path}`, { method }).then((r) => r.status);
    expect(await get(`/c/${cs}`)).toBe(200);
    expect(await get(`/c/${cs}/status`)).toBe(200);
    await get(`/invitations/${invitation}`);
    await get(`/invitations/${invitation}`, 'POST');
    await get(`/i/${invoice}`);
    await get(`/some-shop/c/${cs}`);
    await get(`/f/${newId('invoice')}.pdf?w=${ws.workspaceId}&m=test&e=1900000000&s=${mac}`);
    await get(`/c/${cs}/no-such-call?s=${mac}`);
    await api.stop();

    const log = api.stderr();
    const lines = requestLines(log);
    expect(lines.length, log).toBeGreaterThanOrEqual(8);
    for (const secret of secrets) expect(log).not.toContain(secret);
    const byRoute = (route: string) => lines.filter((l) => l.route === route).map((l) => l.url);
    const csId = cs.slice(0, cs.lastIndexOf('_'));
    expect(byRoute('/c/:token')).toEqual([`/c/${csId}_[redacted]`]);
    expect(byRoute('/c/:token/status')).toEqual([`/c/${csId}_[redacted]/status`]);
    expect(byRoute('/invitations/:token')).toEqual([
      `/invitations/${invitation.slice(0, -41)}_[redacted]`,
      `/invitations/${invitation.slice(0, -41)}_[redacted]`,
    ]);
    expect(byRoute('/:slug/c/:token')).toEqual([`/some-shop/c/${csId}_[redacted]`]);
    expect(byRoute('/f/:file')[0]).toMatch(/\?w=ws_\w+&m=test&e=1900000000&s=\[redacted\]$/);
    expect(byRoute('unmatched')).toEqual([expect.stringMatching(/\/no-such-call\?s=\[redacted\]$/)]);
  });
});
