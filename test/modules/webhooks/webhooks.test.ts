import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useServer, db, createClient, untilPublished, type Workspace } from '../../helpers/server.ts';
import { startReceiver, until, type Receiver } from '../../helpers/receiver.ts';
import { mintLiveKey } from '../../helpers/keys.ts';
import { insertEvent } from '../../helpers/events.ts';
import { clock } from '../../../src/core/clock.ts';
import { verifyWebhook, verifyWebhookDelivery } from '../../../src/client/webhooks.ts';
import { retryScheduleMs } from '../../../src/modules/webhooks/states.ts';
import { resolver } from '../../../src/modules/webhooks/url-policy.ts';
import { purgeDeliveryHistory } from '../../../src/modules/webhooks/retention.ts';

const server = useServer({ background: 'worker' });
const receivers: Receiver[] = [];
// No DNS here: example.com names resolve to a public address (tests below stub others).
const systemLookup = resolver.lookupAll;
beforeAll(() => {
  resolver.lookupAll = async (host) => (host.endsWith('.example.com') ? ['93.184.216.34'] : systemLookup(host));
});
afterAll(() => {
  resolver.lookupAll = systemLookup;
});
afterEach(async () => {
  clock.reset();
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(...args: Parameters<typeof startReceiver>) {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

/**
 * An endpoint for the workspace. Events committed earlier but published after it exists (the
 * workspace's own `workspace.created`) would reach it too, so the relay catches up first.
 */
async function endpoint(ws: Workspace, url: string, body: Record<string, unknown> = {}) {
  await untilPublished();
  const res = await ws.client.post('/v1/webhook-endpoints', { url, ...body });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data as { id: string; signingSecret: string; [k: string]: unknown };
}

const customer = (ws: Workspace, name = 'Budi') => ws.client.post('/v1/customers', { name });
const deliveries = async (endpointId: string) =>
  (
    await db().system.query('SELECT * FROM webhook_deliveries WHERE "endpointId" = $1 ORDER BY "createdAt", id', [
      endpointId,
    ])
  ).rows;
/** Wakes the relay at once instead of at its next 1 s poll (after moving the clock). */
const nudgeRelay = () => db().system.query(`SELECT pg_notify('svc_events', '')`);
/**
 * Instead of sleeping until "nothing more arrives": a sentinel workspace whose endpoint gets a
 * `customer.created` committed on call, awaited until delivered. The relay publishes in commit order
 * (gapless publishedPosition, docs/architecture.md, Events) and writes every delivery row, and
 * enqueues every row due on the injected clock, in the publishing transaction: once the sentinel
 * arrives, every row an earlier commit, nudge or clock move could cause exists. POSTs are not
 * ordered (docs/webhooks.md, Order), so what must not be sent is also checked on the rows.
 */
async function sentinelFeed() {
  const ws = await server.workspace();
  const rx = await receiver();
  await endpoint(ws, rx.url);
  return async () => {
    // Inserted, not created through the API: a request signed now is refused once the clock has moved.
    const id = await insertEvent(ws.workspaceId, { type: 'sentinel.tick', at: Date.now() });
    await until(() => rx.received.some((r) => r.headers['x-svc-event-id'] === id), 'the sentinel delivery');
  };
}

describe('webhook endpoints API', () => {
  it('create answers 201 with the secret once; retrieve and list never show it', async () => {
    const ws = await server.workspace();
    const created = await ws.client.post('/v1/webhook-endpoints', {
      url: 'https://hooks.example.com/svc',
      description: 'orders',
    });
    expect(created.status).toBe(201);
    const ep = created.json.data;
    expect(ep).toMatchObject({
      url: 'https://hooks.example.com/svc',
      events: ['*'],
      description: 'orders',
      status: 'active',
      signatureFormat: 'svc',
      lastDelivery: null,
    });
    expect(ep.id).toMatch(/^whep_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(ep.signingSecret).toMatch(/^whsec_[0-9a-f]{48}$/);
    const got = await ws.client.get(`/v1/webhook-endpoints/${ep.id}`);
    expect(got.json.data).toEqual({ ...ep, signingSecret: null });
    const list = await ws.client.get('/v1/webhook-endpoints');
    expect(list.json.data).toEqual([{ ...ep, signingSecret: null }]);
    expect(list.json.meta.page).toEqual({ limit: 50, hasMore: false, nextCursor: null });
    const stored = await db().system.query('SELECT secret FROM webhook_endpoints WHERE id = $1', [ep.id]);
    expect(Buffer.from(stored.rows[0].secret).includes(Buffer.from(ep.signingSecret))).toBe(false); // encrypted at rest
  });

  it('lists newest first with a status filter; another workspace gets 404', async () => {
    const ws = await server.workspace();
    const a = await endpoint(ws, 'https://a.example.com/h');
    const b = await endpoint(ws, 'https://b.example.com/h', { enabled: false });
    const all = await ws.client.get('/v1/webhook-endpoints?limit=1');
    expect(all.json.data.map((e: { id: string }) => e.id)).toEqual([b.id]);
    const next = await ws.client.get(`/v1/webhook-endpoints?limit=1&cursor=${all.json.meta.page.nextCursor}`);
    expect(next.json.data.map((e: { id: string }) => e.id)).toEqual([a.id]);
    expect(
      (await ws.client.get('/v1/webhook-endpoints?status=disabled')).json.data.map((e: { id: string }) => e.id),
    ).toEqual([b.id]);
    expect((await ws.client.get('/v1/webhook-endpoints?status=nope')).json.error).toMatchObject({
      code: 'validation_error',
      field: 'status',
    });
    const other = await server.workspace();
    expect((await other.client.get(`/v1/webhook-endpoints/${a.id}`)).json.error.code).toBe('not_found');
    expect((await other.client.patch(`/v1/webhook-endpoints/${a.id}`, { description: 'x' })).status).toBe(404);
    expect((await other.client.delete(`/v1/webhook-endpoints/${a.id}`)).status).toBe(404);
  });

  it('update changes only what is sent: events replaced, description cleared, enabled toggles the status', async () => {
    const ws = await server.workspace();
    const ep = await endpoint(ws, 'https://a.example.com/h', { events: ['customer.created'], description: 'd' });
    let res = await ws.client.patch(`/v1/webhook-endpoints/${ep.id}`, {
      events: ['payment.succeeded', 'refund.created'],
      description: null,
    });
    expect(res.json.data).toMatchObject({
      events: ['payment.succeeded', 'refund.created'],
      description: null,
      url: ep.url,
      status: 'active',
      signingSecret: null,
    });
    res = await ws.client.patch(`/v1/webhook-endpoints/${ep.id}`, { enabled: false });
    expect(res.json.data.status).toBe('disabled');
    res = await ws.client.patch(`/v1/webhook-endpoints/${ep.id}`, { enabled: true, url: 'https://b.example.com/h' });
    expect(res.json.data).toMatchObject({ status: 'active', url: 'https://b.example.com/h' });
    expect(
      (await ws.client.patch(`/v1/webhook-endpoints/${ep.id}`, { url: 'http://10.0.0.1/h' })).json.error.code,
    ).toBe('url_not_allowed');
    expect((await ws.client.patch(`/v1/webhook-endpoints/${ep.id}`, { events: [] })).json.error).toMatchObject({
      code: 'validation_error',
      field: 'events',
    });
  });

  it('rotate-secret returns a new secret, never the old one; overlap is bounded', async () => {
    const ws = await server.workspace();
    const ep = await endpoint(ws, 'https://a.example.com/h');
    const res = await ws.client.post(`/v1/webhook-endpoints/${ep.id}/rotate-secret`, { overlapSeconds: 60 });
    expect(res.status).toBe(200);
    expect(res.json.data.signingSecret).toMatch(/^whsec_[0-9a-f]{48}$/);
    expect(res.json.data.signingSecret).not.toBe(ep.signingSecret);
    expect(res.text).not.toContain(ep.signingSecret);
    expect((await ws.client.post(`/v1/webhook-endpoints/${ep.id}/rotate-secret`)).status).toBe(200); // default overlap
    for (const overlapSeconds of [259_201, -1, 1.5]) {
      expect(
        (await ws.client.post(`/v1/webhook-endpoints/${ep.id}/rotate-secret`, { overlapSeconds })).json.error,
      ).toMatchObject({ code: 'validation_error' });
    }
  });

  it('validates every create field', async () => {
    const ws = await server.workspace();
    const bad = async (body: Record<string, unknown>, code: string, field?: string) => {
      const res = await ws.client.post('/v1/webhook-endpoints', body);
      expect(res.status, JSON.stringify(body)).toBe(
        code === 'url_not_allowed' || code === 'validation_error' ? 400 : 422,
      );
      expect(res.json.error).toMatchObject({ code, ...(field ? { field } : {}) });
    };
    await bad({}, 'validation_error', 'url');
    await bad({ url: 'not a url' }, 'validation_error', 'url');
    await bad({ url: 'ftp://files.example.com/x' }, 'validation_error', 'url');
    await bad(
      { url: 'https://a.example.com', events: ['payment.succeeded', 'no.such_event'] },
      'validation_error',
      'events',
    );
    await bad({ url: 'https://a.example.com', description: 'x'.repeat(201) }, 'validation_error', 'description');
    await bad({ url: 'https://a.example.com', signatureFormat: 'jwt' }, 'validation_error', 'signatureFormat');
    await bad({ url: 'https://a.example.com', secret: 'mine' }, 'validation_error');
    expect(
      (await ws.client.post('/v1/webhook-endpoints', { url: 'https://a.example.com', description: 'x'.repeat(200) }))
        .status,
    ).toBe(201);
  });

  it('refuses private, link-local, metadata and (unless allowed) loopback addresses, also after DNS resolution', async () => {
    const ws = await server.workspace();
    const refused = async (url: string) => {
      const res = await ws.client.post('/v1/webhook-endpoints', { url });
      expect(res.json.error, url).toMatchObject({ code: 'url_not_allowed', field: 'url' });
    };
    for (const url of [
      'http://10.0.0.1/h',
      'http://172.16.5.4/h',
      'http://192.168.1.1/h',
      'http://169.254.169.254/latest/meta-data',
      'http://100.64.0.1/h',
      'http://0.0.0.0/h',
      'http://[fd00::1]/h',
      'http://[fe80::1]/h',
      'http://[::ffff:10.0.0.1]/h',
      'http://[::ffff:a9fe:a9fe]/h',
      'http://metadata.google.internal/computeMetadata/v1',
      'http://224.0.0.1/h',
      // IPv6 special-purpose ranges: IPv4-compatible (even of a public address), 6to4, site-local,
      // local-use NAT64, Teredo and IETF assignments, documentation, SRv6, dummy, IPv4-translated
      'http://[::10.0.0.1]/h',
      'http://[::5db8:d822]/h',
      'http://[2002:a00:1::1]/h',
      'http://[2002:5db8:d822::1]/h',
      'http://[fec0::1]/h',
      'http://[64:ff9b:1::a00:1]/h',
      'http://[2001::1]/h',
      'http://[2001:2::1]/h',
      'http://[3fff::1]/h',
      'http://[5f00::1]/h',
      'http://[100:0:0:1::1]/h',
      'http://[::ffff:0:a00:1]/h',
    ])
      await refused(url);
    expect((await ws.client.post('/v1/webhook-endpoints', { url: 'https://[2606:4700:4700::1111]/h' })).status).toBe(
      201,
    );

    const lookupAll = resolver.lookupAll;
    resolver.lookupAll = async (host) =>
      ({ 'rebind.example.com': ['93.184.216.34', '10.1.2.3'], 'public.example.com': ['93.184.216.34'] })[host] ??
      lookupAll(host);
    const allow = process.env.SVC_WEBHOOK_ALLOW_LOOPBACK;
    try {
      await refused('https://rebind.example.com/h'); // one private address among the answers is enough
      await refused('https://does-not-resolve.invalid/h');
      expect((await ws.client.post('/v1/webhook-endpoints', { url: 'https://public.example.com/h' })).status).toBe(201);
      // Loopback only with the documented setting; nothing else is relaxed by it.
      delete process.env.SVC_WEBHOOK_ALLOW_LOOPBACK;
      for (const url of [
        'http://127.0.0.1:8080/h',
        'http://localhost:3000/h',
        'http://[::1]/h',
        'http://app.localhost/h',
      ]) {
        await refused(url);
        // The refusal shows the way: the setting that allows loopback, and svc listen.
        const { message } = (await ws.client.post('/v1/webhook-endpoints', { url })).json.error;
        expect(message).toContain('SVC_WEBHOOK_ALLOW_LOOPBACK=1');
        expect(message).toContain('svc listen --forward-to');
      }
      process.env.SVC_WEBHOOK_ALLOW_LOOPBACK = '1';
      expect((await ws.client.post('/v1/webhook-endpoints', { url: 'http://localhost:3000/h' })).status).toBe(201);
      await refused('http://10.0.0.1/h');
    } finally {
      resolver.lookupAll = lookupAll;
      process.env.SVC_WEBHOOK_ALLOW_LOOPBACK = allow;
    }
  });

  it('a resolver that does not answer is bounded: 400 validation_error naming the URL after the DNS timeout', async () => {
    const ws = await server.workspace();
    const lookupAll = resolver.lookupAll;
    resolver.lookupAll = (host) => (host === 'slow.example.com' ? new Promise<string[]>(() => {}) : lookupAll(host));
    const previous = process.env.SVC_WEBHOOK_DNS_TIMEOUT_MS;
    process.env.SVC_WEBHOOK_DNS_TIMEOUT_MS = '300';
    try {
      const started = Date.now();
      const res = await ws.client.post('/v1/webhook-endpoints', { url: 'https://slow.example.com/h' });
      expect(Date.now() - started).toBeLessThan(3000);
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ code: 'validation_error', field: 'url' });
      expect(res.json.error.message).toContain('https://slow.example.com/h');
    } finally {
      resolver.lookupAll = lookupAll;
      if (previous === undefined) delete process.env.SVC_WEBHOOK_DNS_TIMEOUT_MS;
      else process.env.SVC_WEBHOOK_DNS_TIMEOUT_MS = previous;
    }
  });

  it('live mode needs https://', async () => {
    const ws = await server.workspace();
    const live = createClient({ baseUrl: server.url, ...(await mintLiveKey(ws.workspaceId)) });
    expect((await live.post('/v1/webhook-endpoints', { url: 'http://hooks.example.com/h' })).json.error).toMatchObject({
      code: 'url_not_allowed',
      field: 'url',
    });
    expect((await live.post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/h' })).status).toBe(201);
  });

  it('caps endpoints per plan tier (starter: 5) with 422 tier_cap_exceeded, also under concurrency', async () => {
    const ws = await server.workspace();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        ws.client.post('/v1/webhook-endpoints', { url: `https://h${i}.example.com/h` }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    for (const r of results.filter((r) => r.status !== 201)) expect(r.json.error.code).toBe('tier_cap_exceeded');
    expect(results.every((r) => r.status === 201 || r.status === 422)).toBe(true);
  });

  it('read_only keys may read but not write endpoints', async () => {
    const ws = await server.workspace();
    await endpoint(ws, 'https://a.example.com/h');
    const key = (await ws.client.post('/v1/api-keys', { name: 'ro', role: 'read_only' })).json.data;
    const ro = createClient({ baseUrl: server.url, keyId: key.keyId, secret: key.key });
    expect((await ro.get('/v1/webhook-endpoints')).status).toBe(200);
    expect((await ro.post('/v1/webhook-endpoints', { url: 'https://b.example.com/h' })).json.error.code).toBe(
      'insufficient_scope',
    );
  });
});

describe('delivery', () => {
  it('POSTs the event, signed (checked by the exported helper), with the body GET /v1/events/:id returns', async () => {
    const ws = await server.workspace();
    const rx = await receiver();
    const ep = await endpoint(ws, rx.url);
    const created = await customer(ws);
    await until(() => rx.received.length === 1, 'the delivery');
    const [req] = rx.received;
    const event = verifyWebhook({
      payload: req.body,
      headers: req.headers as Record<string, string>,
      secret: ep.signingSecret,
    });
    expect(event).toMatchObject({
      type: 'customer.created',
      workspaceId: ws.workspaceId,
      mode: 'test',
      data: { id: created.json.data.id },
    });
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['x-svc-event-id']).toBe(event.id);
    expect(req.headers['x-svc-event-type']).toBe('customer.created');
    expect(req.headers['x-svc-delivery-id']).toMatch(/^whdel_/);
    expect(req.headers['x-svc-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const archived = await ws.client.get(`/v1/events/${event.id}`);
    expect(JSON.parse(req.body.toString())).toEqual(archived.json.data);
    expect(req.body.toString()).toBe(JSON.stringify(archived.json.data)); // byte for byte

    await until(async () => (await deliveries(ep.id))[0]?.status === 'succeeded', 'the delivery row');
    const list = await ws.client.get(`/v1/webhook-endpoints/${ep.id}/deliveries`);
    expect(list.json.data).toHaveLength(1);
    expect(list.json.data[0]).toMatchObject({
      id: req.headers['x-svc-delivery-id'],
      endpointId: ep.id,
      eventId: event.id,
      eventType: 'customer.created',
      status: 'succeeded',
      statusCode: 200,
      retryCount: 0,
      nextRetryAt: null,
      responseBodyPreview: 'ok',
    });
    expect(list.json.data[0].durationMs).toBeGreaterThanOrEqual(0);
    expect(list.json.meta.page.limit).toBe(50);
    const got = await ws.client.get(`/v1/webhook-endpoints/${ep.id}`);
    expect(got.json.data.lastDelivery).toMatchObject({ eventId: event.id, statusCode: 200 });
    expect(got.json.data.lastDelivery.deliveredAt).toBe(list.json.data[0].attemptedAt);
  });

  it('filters by event type, and never crosses mode or workspace', async () => {
    const ws = await server.workspace();
    const rxAll = await receiver();
    const rxPayments = await receiver();
    const sentinel = await sentinelFeed();
    const epAll = await endpoint(ws, rxAll.url);
    const epPayments = await endpoint(ws, rxPayments.url, { events: ['payment.succeeded'] });
    const live = createClient({ baseUrl: server.url, ...(await mintLiveKey(ws.workspaceId)) });
    await live.post('/v1/customers', { name: 'live one' }); // a live event: not for test endpoints
    const other = await server.workspace();
    await customer(other); // another workspace's event
    await customer(ws, 'mine');
    await until(() => rxAll.received.length >= 1, 'the test-mode delivery');
    await sentinel(); // published after the live and other-workspace events: a wrongly routed row exists by now
    expect(await deliveries(epAll.id)).toHaveLength(1);
    expect(await deliveries(epPayments.id)).toEqual([]);
    expect(rxAll.events().map((e) => [e.type, e.mode, e.workspaceId])).toEqual([
      ['customer.created', 'test', ws.workspaceId],
    ]);
    expect(rxPayments.received).toHaveLength(0);
  });

  it('signs with both secrets during a rotation overlap, and with the new one only after overlap 0', async () => {
    const ws = await server.workspace();
    const rx = await receiver();
    const ep = await endpoint(ws, rx.url);
    const rotated = (await ws.client.post(`/v1/webhook-endpoints/${ep.id}/rotate-secret`, { overlapSeconds: 3600 }))
      .json.data;
    await customer(ws);
    await until(() => rx.received.length === 1, 'the delivery');
    const r0 = rx.received[0];
    expect(String(r0.headers['x-svc-signature']).match(/v1=/g)).toHaveLength(2);
    const headers = r0.headers as Record<string, string>;
    expect(verifyWebhookDelivery({ payload: r0.body, headers, secret: rotated.signingSecret }).secretIndex).toBe(0);
    expect(verifyWebhookDelivery({ payload: r0.body, headers, secret: ep.signingSecret }).secretIndex).toBe(0);

    const again = (await ws.client.post(`/v1/webhook-endpoints/${ep.id}/rotate-secret`, { overlapSeconds: 0 })).json
      .data;
    await customer(ws);
    await until(() => rx.received.length === 2, 'the second delivery');
    const r1 = rx.received[1];
    expect(String(r1.headers['x-svc-signature']).match(/v1=/g)).toHaveLength(1);
    expect(() =>
      verifyWebhook({ payload: r1.body, headers: r1.headers as Record<string, string>, secret: rotated.signingSecret }),
    ).toThrow(/secret/);
    expect(
      verifyWebhook({ payload: r1.body, headers: r1.headers as Record<string, string>, secret: again.signingSecret })
        .type,
    ).toBe('customer.created');
  });

  it('sends Standard Webhooks headers to endpoints that choose them', async () => {
    const ws = await server.workspace();
    const rx = await receiver();
    const ep = await endpoint(ws, rx.url, { signatureFormat: 'standard' });
    expect(ep.signatureFormat).toBe('standard');
    await customer(ws);
    await until(() => rx.received.length === 1, 'the delivery');
    const { headers, body } = rx.received[0];
    expect(headers['webhook-id']).toMatch(/^evt_/);
    expect(headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(headers['x-svc-signature']).toBeUndefined();
    const v = verifyWebhookDelivery({
      payload: body,
      headers: headers as Record<string, string>,
      secret: ep.signingSecret,
    });
    expect(v.format).toBe('standard');
    expect(v.event.id).toBe(headers['webhook-id']);
  });

  it('retries on the schedule: a receiver failing 3 times gets the event on the 4th attempt (injected clock)', async () => {
    const ws = await server.workspace();
    const rx = await receiver((n) => (n < 3 ? { status: 500, body: `boom ${n}` } : 200));
    const ep = await endpoint(ws, rx.url);
    const sentinel = await sentinelFeed();
    await customer(ws);
    for (let attempt = 0; attempt < 3; attempt++) {
      await until(
        async () =>
          (await deliveries(ep.id))[0]?.retryCount === attempt &&
          (await deliveries(ep.id))[0]?.attemptedAt !== null &&
          rx.received.length === attempt + 1,
        `failed attempt ${attempt}`,
      );
      const [d] = await deliveries(ep.id);
      expect(d).toMatchObject({
        status: 'pending',
        statusCode: 500,
        responseBodyPreview: `boom ${attempt}`,
        retryCount: attempt,
      });
      expect(d.nextRetryAt.getTime() - d.attemptedAt.getTime()).toBe(retryScheduleMs[attempt]);
      // Not before its time: a relay pass now enqueues nothing.
      await nudgeRelay();
      await sentinel(); // a relay pass on this clock has run: the retry was not due, so not enqueued
      expect((await deliveries(ep.id))[0].enqueuedAt).toBeNull();
      expect(rx.received).toHaveLength(attempt + 1);
      clock.advance(retryScheduleMs[attempt]);
      await nudgeRelay();
    }
    await until(async () => (await deliveries(ep.id))[0]?.status === 'succeeded', 'the 4th attempt');
    const [d] = await deliveries(ep.id);
    expect(d).toMatchObject({ statusCode: 200, retryCount: 3, nextRetryAt: null });
    expect(rx.received).toHaveLength(4);
    const ids = rx.received.map((r) => r.headers['x-svc-event-id']);
    expect(new Set(ids).size).toBe(1); // the same event id every time
    // Signed at the (injected) time of each attempt: valid against that time.
    const last = rx.received[3];
    expect(
      verifyWebhook({
        payload: last.body,
        headers: last.headers as Record<string, string>,
        secret: ep.signingSecret,
        now: clock.now(),
      }).id,
    ).toBe(ids[0]);
  });

  it('a delivery fails for good after the last retry of the schedule', async () => {
    const ws = await server.workspace();
    const rx = await receiver(() => 503);
    const ep = await endpoint(ws, rx.url);
    await customer(ws);
    for (let attempt = 0; attempt <= retryScheduleMs.length; attempt++) {
      await until(() => rx.received.length === attempt + 1, `attempt ${attempt}`);
      await until(
        async () =>
          (await deliveries(ep.id))[0]?.retryCount === attempt && (await deliveries(ep.id))[0]?.attemptedAt !== null,
        `attempt ${attempt} recorded`,
      );
      if (attempt < retryScheduleMs.length) {
        clock.advance(retryScheduleMs[attempt]);
        await nudgeRelay();
      }
    }
    await until(async () => (await deliveries(ep.id))[0]?.status === 'failed', 'the final failure');
    expect((await deliveries(ep.id))[0]).toMatchObject({ retryCount: 8, nextRetryAt: null, statusCode: 503 });
  });

  it('checks the address again at connect time: once the address is refused, nothing is sent', async () => {
    const ws = await server.workspace();
    const rx = await receiver();
    const lookupAll = resolver.lookupAll;
    resolver.lookupAll = async (host) => (host === 'rebinding.example.com' ? ['127.0.0.1'] : lookupAll(host));
    const allow = process.env.SVC_WEBHOOK_ALLOW_LOOPBACK;
    try {
      const ep = await endpoint(ws, `http://rebinding.example.com:${new URL(rx.url).port}/hooks`);
      // Delivered through the name: the guarded resolver is what connects (there is no DNS here).
      await customer(ws, 'first');
      await until(() => rx.received.length === 1, 'the first delivery');
      // The same address is no longer allowed (as a name rebound to a private one would not be): the next
      // connection is refused before it is made. (An open keep-alive socket stays with the address it was checked for.)
      delete process.env.SVC_WEBHOOK_ALLOW_LOOPBACK;
      rx.dropConnections();
      await customer(ws, 'second');
      await until(
        async () => (await deliveries(ep.id)).length === 2 && (await deliveries(ep.id))[1].attemptedAt != null,
        'the refused attempt',
      );
      const refused = (await deliveries(ep.id))[1];
      expect(refused).toMatchObject({ status: 'pending', statusCode: null, responseBodyPreview: null });
      expect(refused.durationMs).toBeLessThan(1000); // refused at once, not a timeout
      expect(rx.received).toHaveLength(1);
    } finally {
      resolver.lookupAll = lookupAll;
      process.env.SVC_WEBHOOK_ALLOW_LOOPBACK = allow;
    }
  });

  it('keeps only the first 1 KB of the response', async () => {
    const ws = await server.workspace();
    const rx = await receiver(() => ({ status: 400, body: 'é'.repeat(3000) }));
    const ep = await endpoint(ws, rx.url);
    await customer(ws);
    await until(async () => (await deliveries(ep.id))[0]?.statusCode === 400, 'the attempt');
    const preview: string = (await deliveries(ep.id))[0].responseBodyPreview;
    expect(Buffer.byteLength(preview)).toBeLessThanOrEqual(1024 + 2);
    expect(preview.startsWith('é'.repeat(500))).toBe(true);
  });

  it('times a hanging receiver out after 10 s: no status code, no duration', async () => {
    const ws = await server.workspace();
    const rx = await receiver(() => 'hang');
    const ep = await endpoint(ws, rx.url);
    await customer(ws);
    await until(() => rx.received.length === 1, 'the request');
    const started = Date.now();
    await until(async () => (await deliveries(ep.id))[0]?.attemptedAt !== null, 'the timeout', 20_000);
    expect(Date.now() - started).toBeGreaterThan(9_000);
    expect((await deliveries(ep.id))[0]).toMatchObject({
      status: 'pending',
      statusCode: null,
      durationMs: null,
      retryCount: 0,
    });
  }, 30_000);

  it('20 consecutive failures trip the breaker: errored, webhook_endpoint.disabled, nothing more sent; enabling resets it', async () => {
    const ws = await server.workspace();
    const rx = await receiver(() => 500);
    const ep = await endpoint(ws, rx.url, { events: ['customer.created'] });
    const watcher = await receiver();
    await endpoint(ws, watcher.url, { events: ['webhook_endpoint.disabled'] });
    for (let i = 0; i < 20; i++) await customer(ws, `c${i}`);
    await until(
      async () => (await ws.client.get(`/v1/webhook-endpoints/${ep.id}`)).json.data.status === 'errored',
      'the breaker',
    );
    await until(() => watcher.received.length === 1, 'webhook_endpoint.disabled');
    expect(watcher.events()[0]).toMatchObject({
      type: 'webhook_endpoint.disabled',
      data: { id: ep.id, object: { id: ep.id, status: 'errored', url: rx.url } },
    });
    expect((await ws.client.get('/v1/events?type=webhook_endpoint.disabled')).json.data).toHaveLength(1);
    const sent = rx.received.length;
    expect(sent).toBe(20);
    const sentinel = await sentinelFeed();
    await customer(ws, 'after');
    await sentinel(); // published after 'after': no row for the errored endpoint, so nothing to send
    expect(await deliveries(ep.id)).toHaveLength(sent);
    expect(rx.received).toHaveLength(sent);
    const enabled = await ws.client.patch(`/v1/webhook-endpoints/${ep.id}`, { enabled: true });
    expect(enabled.json.data.status).toBe('active');
    expect(
      (await db().system.query('SELECT "consecutiveFailures" FROM webhook_endpoints WHERE id = $1', [ep.id])).rows[0]
        .consecutiveFailures,
    ).toBe(0);
  });

  it('manual retry: a new row with retryCount + 1; already_succeeded, endpoint_disabled and not_found', async () => {
    const ws = await server.workspace();
    let failing = true;
    const rx = await receiver(() => (failing ? 500 : 200));
    const ep = await endpoint(ws, rx.url);
    await customer(ws);
    await until(async () => (await deliveries(ep.id))[0]?.statusCode === 500, 'the failed attempt');
    const [first] = await deliveries(ep.id);
    failing = false;
    const retried = await ws.client.post(`/v1/webhook-endpoints/${ep.id}/deliveries/${first.id}/retry`);
    expect(retried.status).toBe(202);
    expect(retried.json.data).toMatchObject({
      status: 'pending',
      retryCount: 1,
      eventId: first.eventId,
      endpointId: ep.id,
      attemptedAt: null,
    });
    expect(retried.json.data.id).not.toBe(first.id);
    await until(
      async () => (await deliveries(ep.id)).find((d) => d.id === retried.json.data.id)?.status === 'succeeded',
      'the manual attempt',
    );
    // the automatic schedule goes on untouched
    expect((await deliveries(ep.id)).find((d) => d.id === first.id)).toMatchObject({
      status: 'pending',
      retryCount: 0,
    });
    const again = await ws.client.post(`/v1/webhook-endpoints/${ep.id}/deliveries/${first.id}/retry`);
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('already_succeeded');
    expect(
      (await ws.client.post(`/v1/webhook-endpoints/${ep.id}/deliveries/whdel_01J00000000000000000000000/retry`)).json
        .error.code,
    ).toBe('not_found');

    await customer(ws, 'second');
    await until(
      async () => (await deliveries(ep.id)).length === 3 && (await deliveries(ep.id))[2].status === 'succeeded',
      'the second event',
    );
    const third = (await deliveries(ep.id))[2];
    await db().system.query(`UPDATE webhook_deliveries SET "createdAt" = now() - interval '31 days' WHERE id = $1`, [
      third.id,
    ]);
    expect((await ws.client.post(`/v1/webhook-endpoints/${ep.id}/deliveries/${third.id}/retry`)).json.error.code).toBe(
      'not_found',
    );
    await ws.client.patch(`/v1/webhook-endpoints/${ep.id}`, { enabled: false });
    const disabled = await ws.client.post(`/v1/webhook-endpoints/${ep.id}/deliveries/${first.id}/retry`);
    expect(disabled.status).toBe(422);
    expect(disabled.json.error.code).toBe('endpoint_disabled');
  });

  it('delete drops pending retries: nothing more is sent', async () => {
    const ws = await server.workspace();
    const rx = await receiver(() => 500);
    const ep = await endpoint(ws, rx.url);
    await customer(ws);
    await until(async () => (await deliveries(ep.id))[0]?.statusCode === 500, 'the failed attempt');
    expect((await ws.client.delete(`/v1/webhook-endpoints/${ep.id}`)).status).toBe(204);
    expect(await deliveries(ep.id)).toEqual([]);
    expect((await ws.client.get(`/v1/webhook-endpoints/${ep.id}`)).status).toBe(404);
    const sentinel = await sentinelFeed();
    clock.advance(retryScheduleMs[0]);
    await sentinel(); // its pass runs on the moved clock: a surviving retry would be enqueued with it
    expect(await deliveries(ep.id)).toEqual([]);
    expect(rx.received).toHaveLength(1);
  });

  it("a partner's endpoint receives its merchants' events, each with the merchant's workspaceId", async () => {
    const partner = await server.workspace({ platformAdmin: true });
    const rx = await receiver();
    await endpoint(partner, rx.url, { events: ['customer.created'] });
    const merchant = (await partner.client.post('/v1/workspaces', { name: 'Toko Budi' })).json.data;
    const onBehalf = createClient({
      baseUrl: server.url,
      keyId: partner.keyId,
      secret: partner.secret,
      onBehalfOf: merchant.accountId,
    });
    await onBehalf.post('/v1/customers', { name: 'merchant customer' });
    await customer(partner, 'partner customer');
    await until(() => rx.received.length === 2, 'both deliveries');
    expect(
      rx
        .events()
        .map((e) => e.workspaceId)
        .sort(),
    ).toEqual([merchant.id, partner.workspaceId].sort());
  });

  it('lists deliveries with status, eventType and since filters; history older than 30 days is purged', async () => {
    const ws = await server.workspace();
    const rx = await receiver();
    const ep = await endpoint(ws, rx.url);
    await customer(ws);
    const c = (await customer(ws, 'b')).json.data;
    await ws.client.patch(`/v1/customers/${c.id}`, { name: 'b2' });
    await until(
      async () => (await deliveries(ep.id)).filter((d) => d.status === 'succeeded').length === 3,
      'three deliveries',
    );
    const q = (s: string) => ws.client.get(`/v1/webhook-endpoints/${ep.id}/deliveries?${s}`).then((r) => r.json);
    expect((await q('eventType=customer.updated')).data).toHaveLength(1);
    expect((await q('status=succeeded&limit=2')).meta.page.hasMore).toBe(true);
    expect((await q('status=pending')).data).toEqual([]);
    expect((await q(`since=${Math.floor(Date.now() / 1000) + 60}`)).data).toEqual([]);
    expect((await q('status=bogus')).error.code).toBe('validation_error');
    const [oldest] = await deliveries(ep.id);
    await db().system.query(`UPDATE webhook_deliveries SET "createdAt" = now() - interval '31 days' WHERE id = $1`, [
      oldest.id,
    ]);
    expect((await q('')).data).toHaveLength(2);
    expect(await purgeDeliveryHistory()).toBeGreaterThanOrEqual(1); // earlier tests' backdated rows go too
    expect((await deliveries(ep.id)).map((d) => d.id)).not.toContain(oldest.id);
    expect(await deliveries(ep.id)).toHaveLength(2);
  });
});
