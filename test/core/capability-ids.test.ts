/**
 * Ids are not guessable from one another, and the hosted checkout URL carries a
 * secret, so knowing a session's id (or any other id) opens nothing.
 */
import { describe, expect, it, vi } from 'vitest';
import { useServer, db } from '../helpers/server.ts';
import { hostedToken } from '../helpers/payments.ts';
import { newId, prefixes, type IdKind } from '../../src/core/ids.ts';
import { config } from '../../src/core/config.ts';
import { clientBucket } from '../../src/server/edge-route.ts';

const server = useServer();

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** An id's 80-bit random part as a number, and its 48-bit time part as text. */
function parts(id: string) {
  const body = id.slice(id.indexOf('_') + 1);
  let random = 0n;
  for (const c of body.slice(10)) random = random * 32n + BigInt(CROCKFORD.indexOf(c));
  return { time: body.slice(0, 10), random };
}

/** Adjacent ids (in the order given) minted in the same millisecond, and whether any is the previous + 1. */
function sameMillisecondSteps(ids: string[]) {
  let pairs = 0;
  let plusOne = 0;
  for (let i = 1; i < ids.length; i++) {
    const a = parts(ids[i - 1]);
    const b = parts(ids[i]);
    if (a.time !== b.time) continue;
    pairs++;
    if (b.random - a.random === 1n) plusOne++;
  }
  return { pairs, plusOne };
}

describe('ids are fresh CSPRNG bits, sortable by time only', () => {
  it('ids minted in one millisecond are not increments of each other, across kinds or within one', () => {
    const kinds = Object.keys(prefixes) as IdKind[];
    // One frozen millisecond: every id below shares its time part.
    const spy = vi.spyOn(Date, 'now').mockReturnValue(Date.UTC(2026, 10, 24));
    try {
      const mixed = Array.from({ length: 2000 }, (_, i) => newId(kinds[i % kinds.length]));
      const payments = Array.from({ length: 2000 }, () => newId('payment'));
      for (const ids of [mixed, payments]) {
        const steps = sameMillisecondSteps(ids);
        expect(steps.pairs).toBe(1999);
        expect(steps.plusOne).toBe(0);
        // Not increasing either: the order inside a millisecond carries nothing.
        const sorted = [...ids].map((id) => id.slice(id.indexOf('_') + 1)).sort();
        expect(sorted).not.toEqual(ids.map((id) => id.slice(id.indexOf('_') + 1)));
      }
      expect(new Set(payments).size).toBe(payments.length);
    } finally {
      spy.mockRestore();
    }
  });

  it('the time part still orders ids across milliseconds', () => {
    const spy = vi.spyOn(Date, 'now');
    try {
      spy.mockReturnValue(1_700_000_000_000);
      const earlier = newId('payment');
      spy.mockReturnValue(1_700_000_000_001);
      const later = newId('receipt');
      expect(parts(earlier).time < parts(later).time).toBe(true);
      expect(earlier).toMatch(/^pay_[0-9A-HJKMNP-TV-Z]{26}$/);
    } finally {
      spy.mockRestore();
    }
  });

  it('X-Request-Id values are not increments of each other', async () => {
    const responses = await Promise.all(Array.from({ length: 200 }, () => fetch(`${server.url}/healthz`)));
    const ids = responses.map((r) => r.headers.get('x-request-id')!);
    for (const id of ids) expect(id).toMatch(/^req_[0-9A-HJKMNP-TV-Z]{26}$/);
    // Sorted, ids of one millisecond sit next to each other; a monotonic factory would make them +1 apart.
    const steps = sameMillisecondSteps([...ids].sort());
    expect(steps.pairs).toBeGreaterThan(0);
    expect(steps.plusOne).toBe(0);
  });
});

describe('the hosted checkout URL is the capability, not the session id', () => {
  const createSession = async () => {
    const ws = await server.workspace();
    const res = await ws.client.post(
      '/v1/checkout-sessions',
      {
        amount: 50000,
        currency: 'IDR',
        methods: ['qris', 'va'],
        successUrl: 'https://shop.example/ok',
        cancelUrl: 'https://shop.example/cart',
        lineItems: [{ name: 'Kopi', quantity: 2, unitAmount: 25000 }],
      },
      { 'idempotency-key': newId('request') },
    );
    expect(res.status, res.text).toBe(201);
    return { ws, session: res.json.data as { id: string; hostedUrl: string } };
  };
  const call = async (token: string, path: string, body?: unknown) => {
    const res = await fetch(
      `${server.url}/c/${token}${path}`,
      body === undefined
        ? {}
        : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
    );
    return { status: res.status, text: await res.text(), type: res.headers.get('content-type') };
  };
  // Every hosted action: the page, its status poll, attempt, declare-paid, simulate, cancel.
  const actions: [string, unknown][] = [
    ['', undefined],
    ['/status', undefined],
    ['/attempt', { method: 'qris' }],
    ['/attempt/declare-paid', {}],
    ['/simulate', { outcome: 'success' }],
    ['/cancel', {}],
  ];
  /** The answer without its per-request id and time, to compare answers to different requests. */
  const shape = (r: { status: number; text: string; type: string | null }) => ({
    status: r.status,
    type: r.type,
    body: r.text.replace(/req_[0-9A-Z]{26}/g, 'req_').replace(/"timestamp":"[^"]+"/g, '"timestamp":""'),
  });

  it('hostedUrl is {hosted_base}/c/<id>_<40 hex>; the secret differs per session', async () => {
    const a = (await createSession()).session;
    const b = (await createSession()).session;
    expect(a.hostedUrl).toMatch(new RegExp(`/c/${a.id}_[0-9a-f]{40}$`));
    expect(a.hostedUrl.split('_').pop()).not.toBe(b.hostedUrl.split('_').pop());
  });

  it('every action with the bare id, a wrong secret or a missing one answers exactly like an unknown session, and changes nothing', async () => {
    const { ws, session } = await createSession();
    const secret = session.hostedUrl.split('_').pop()!;
    const wrong = secret.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    const unknown = `${newId('checkoutSession')}_${secret}`;
    for (const [path, body] of actions) {
      const expected = shape(await call(unknown, path, body));
      expect(expected.status).toBe(404);
      for (const token of [
        session.id,
        `${session.id}_`,
        `${session.id}_${wrong}`,
        `${session.id}_${secret.toUpperCase()}`,
        `${session.id}_${secret}0`,
        `${session.id}${secret}`,
      ]) {
        expect(shape(await call(token, path, body)), `${path} with ${token}`).toEqual(expected);
      }
    }
    const after = (await ws.client.get(`/v1/checkout-sessions/${session.id}`)).json.data;
    expect(after).toMatchObject({ status: 'open', adapter: null });
    const { rows } = await db().system.query(`SELECT "attemptCount" FROM checkout_sessions WHERE id = $1`, [
      session.id,
    ]);
    expect(rows[0].attemptCount).toBe(0);
  });

  it('the right token opens the page, and the page calls its endpoints with the token', async () => {
    const { session } = await createSession();
    const token = new URL(session.hostedUrl).pathname.split('/').pop()!;
    expect(token).toBe(await hostedToken(session.id));
    const page = await call(token, '');
    expect(page.status).toBe(200);
    expect(page.text).toContain(`"token":"${token}"`);
    expect(page.text).not.toContain(`"id":"${session.id}"`);
    expect((await call(token, '/attempt', { method: 'qris' })).status).toBe(200);
    const done = await call(token, '/simulate', { outcome: 'success' });
    expect(done.status, done.text).toBe(200);
    expect(JSON.parse(done.text).data.status).toBe('completed');
  });
});

describe('public hosted pages are rate-limited per client address', () => {
  it('distinct (even bogus) session tokens share the caller bucket: the burst, then 429 RATE_LIMITED', async () => {
    const saved = { ...config.rateLimits.hosted };
    config.rateLimits.hosted = { perSec: 0.001, burst: 5 };
    const before = (server.app.limiter as unknown as { size: number }).size;
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++)
        statuses.push((await fetch(`${server.url}/c/${newId('checkoutSession')}_${'0'.repeat(40)}/status`)).status);
      expect(statuses).toEqual([404, 404, 404, 404, 404, 429, 429, 429]);
      const page = await fetch(`${server.url}/c/${newId('checkoutSession')}`);
      expect(page.status).toBe(429);
      expect(page.headers.get('retry-after')).toMatch(/^\d+$/);
      // One bucket for this address, none per attacker-chosen id.
      expect((server.app.limiter as unknown as { size: number }).size - before).toBeLessThanOrEqual(1);
    } finally {
      config.rateLimits.hosted = saved;
    }
  });

  it('the bucket is the IPv4 address or the IPv6 /64', () => {
    expect(clientBucket('203.0.113.7')).toBe('hosted-ip:203.0.113.7');
    expect(clientBucket('::ffff:203.0.113.7')).toBe('hosted-ip:203.0.113.7');
    expect(clientBucket('2001:db8:1:2:aaaa::1')).toBe('hosted-ip:2001:db8:1:2::/64');
    expect(clientBucket('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('hosted-ip:2001:db8:1:2::/64');
    expect(clientBucket('2001:db8::1')).toBe('hosted-ip:2001:db8:0:0::/64');
    expect(clientBucket('::1')).toBe('hosted-ip:0:0:0:0::/64');
  });
});
