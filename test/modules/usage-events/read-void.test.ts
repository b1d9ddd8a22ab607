import { afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useServer, type Workspace } from '../../helpers/server.ts';
import { config } from '../../../src/core/config.ts';

const server = useServer();

type Res = { status: number; json: any; headers: Headers };
const key = () => ({ 'idempotency-key': randomUUID() });
function expectError(res: Res, status: number, code: string, field?: string) {
  expect({ status: res.status, code: res.json?.error?.code, field: res.json?.error?.field }).toEqual({
    status,
    code,
    field: field ?? res.json?.error?.field,
  });
}
const HOUR = 3_600_000;

async function setup() {
  const ws = await server.workspace();
  const a = (await ws.client.post('/v1/customers', { name: 'A', externalId: 'ext-a' })).json.data;
  const b = (await ws.client.post('/v1/customers', { name: 'B' })).json.data;
  await ws.client.post(
    '/v1/meters',
    { key: 'calls', name: 'Calls', eventName: 'api.call', aggregation: 'count' },
    key(),
  );
  await ws.client.post('/v1/meters', { key: 'jobs', name: 'Jobs', eventName: 'job.run', aggregation: 'count' }, key());
  return { ws, a, b };
}
const ingest = (ws: Workspace, events: unknown[]) => ws.client.post('/v1/usage-events', { events });
const ids = (res: Res) => res.json.data.map((e: any) => e.id);

describe('GET /v1/usage-events', () => {
  it('lists newest timestamp first, ties in receipt order, with the guide filters and keyset pages', async () => {
    const { ws, a, b } = await setup();
    const t0 = Date.now() - 10 * HOUR;
    const at = (h: number) => new Date(t0 + h * HOUR).toISOString();
    await ingest(ws, [
      { id: 'l1', eventName: 'api.call', customerId: a.id, timestamp: at(1) },
      { id: 'l2', eventName: 'job.run', customerId: b.id, timestamp: at(2) },
      { id: 'l3', eventName: 'api.call', externalCustomerId: 'ext-a', timestamp: at(3) },
    ]);
    await ingest(ws, [{ id: 'l4', eventName: 'api.call', customerId: b.id, timestamp: at(3) }]);
    expect(ids(await ws.client.get('/v1/usage-events'))).toEqual(['l4', 'l3', 'l2', 'l1']);
    expect(ids(await ws.client.get('/v1/usage-events?order=asc'))).toEqual(['l1', 'l2', 'l3', 'l4']);
    expect(ids(await ws.client.get(`/v1/usage-events?customerId=${a.id}`))).toEqual(['l3', 'l1']);
    expect(ids(await ws.client.get('/v1/usage-events?externalCustomerId=ext-a'))).toEqual(['l3']);
    expect(ids(await ws.client.get('/v1/usage-events?eventName=job.run'))).toEqual(['l2']);
    const window = `from=${encodeURIComponent(at(2))}&to=${encodeURIComponent(at(3))}`;
    expect(ids(await ws.client.get(`/v1/usage-events?${window}`))).toEqual(['l2']);
    const page1 = await ws.client.get('/v1/usage-events?limit=2');
    expect(ids(page1)).toEqual(['l4', 'l3']);
    expect(page1.json.meta.page.hasMore).toBe(true);
    const page2 = await ws.client.get(`/v1/usage-events?limit=2&cursor=${page1.json.meta.page.nextCursor}`);
    expect(ids(page2)).toEqual(['l2', 'l1']);
    expectError(await ws.client.get('/v1/usage-events?status=gone'), 400, 'validation_error', 'status');
    expectError(await ws.client.get('/v1/usage-events?from=yesterday'), 400, 'validation_error', 'from');
    expectError(await ws.client.get('/v1/usage-events?limit=0'), 400, 'invalid_limit');
    expectError(await ws.client.get('/v1/usage-events?cursor=nope'), 400, 'invalid_cursor');
  });
});

describe('POST /v1/usage-events/:id/void', () => {
  it('voids (200, status voided, voidedAt); again 200 unchanged; the id stays reserved; unknown 404', async () => {
    const { ws, a } = await setup();
    const e = { id: 'v:1', eventName: 'api.call', customerId: a.id };
    await ingest(ws, [e]);
    const first = await ws.client.post('/v1/usage-events/v%3A1/void');
    expect(first.status).toBe(200);
    expect(first.json.data).toMatchObject({ id: 'v:1', status: 'voided' });
    expect(first.json.data.voidedAt).not.toBeNull();
    const again = await ws.client.post('/v1/usage-events/v%3A1/void', {}, key());
    expect(again.status).toBe(200);
    expect(again.json.data).toEqual(first.json.data);
    expect((await ingest(ws, [e])).json.data.results[0].status).toBe('duplicate');
    expect(ids(await ws.client.get('/v1/usage-events?status=voided'))).toEqual(['v:1']);
    expect(ids(await ws.client.get('/v1/usage-events?status=accepted'))).toEqual([]);
    expectError(await ws.client.post('/v1/usage-events/nope/void'), 404, 'not_found');
    const other = await server.workspace();
    expectError(await other.client.post('/v1/usage-events/v%3A1/void'), 404, 'not_found');
    expectError(await other.client.get('/v1/usage-events/v%3A1'), 404, 'not_found');
    // No platform event per usage event.
    expect((await ws.client.get('/v1/events?type=meter.created')).json.data.length).toBe(2);
  });

  it('GraphQL: ingestUsageEvents answers per event; usageEvent reads it', async () => {
    const { ws, a } = await setup();
    const res = await ws.client.graphql(
      'mutation($i: IngestUsageEventsInput!) { ingestUsageEvents(input: $i) { accepted results { id status code } } }',
      { i: { events: [{ id: 'g1', eventName: 'api.call', customerId: a.id }, { id: 'g2' }] } },
    );
    expect(res.json.data.ingestUsageEvents).toEqual({
      accepted: 1,
      results: [
        { id: 'g1', status: 'accepted', code: null },
        { id: 'g2', status: 'rejected', code: 'validation_error' },
      ],
    });
    const read = await ws.client.graphql('{ usageEvent(id: "g1") { id status meterIds } }');
    expect(read.json.data.usageEvent).toMatchObject({ id: 'g1', status: 'accepted' });
  });
});

describe('a customer on a test clock', () => {
  it('its clock time is the default timestamp and the middle of the window', async () => {
    const { ws } = await setup();
    const clock = (await ws.client.post('/v1/test-clocks', { frozenTime: '2026-01-01T00:00:00Z' })).json.data;
    const c = (await ws.client.post('/v1/customers', { name: 'Clocked', testClockId: clock.id })).json.data;
    const e = { eventName: 'api.call', customerId: c.id };
    const res = await ingest(ws, [
      { ...e, id: 'c1' },
      { ...e, id: 'c2', timestamp: '2025-12-01T00:00:00Z' },
      { ...e, id: 'c3', timestamp: '2025-11-20T00:00:00Z' },
      { ...e, id: 'c4', timestamp: new Date(Date.now()).toISOString() },
    ]);
    expect(res.json.data.results.map((r: any) => r.code)).toEqual([
      null,
      null,
      'timestamp_out_of_window',
      'timestamp_out_of_window',
    ]);
    const c1 = (await ws.client.get('/v1/usage-events/c1')).json.data;
    expect(c1.timestamp).toBe('2026-01-01T00:00:00.000Z');
    // receivedAt stays on real time.
    expect(c1.receivedAt).not.toBe(c1.timestamp);
  });
});

describe('ingestion limits', () => {
  const saved = { ...config.rateLimits.usage_ingest };
  const savedSlots = { n: config.usageIngestConcurrency, wait: config.usageAdmissionWaitMs };
  afterEach(() => {
    config.rateLimits.usage_ingest = { ...saved };
    config.usageIngestConcurrency = savedSlots.n;
    config.usageAdmissionWaitMs = savedSlots.wait;
  });

  it('a request takes one usage_ingest token per event: too few is 429 RATE_LIMITED with Retry-After', async () => {
    const { ws, a } = await setup();
    config.rateLimits.usage_ingest = { perSec: 1, burst: 5 };
    const events = (n: number, p: string) =>
      Array.from({ length: n }, (_, i) => ({ id: `${p}${i}`, eventName: 'api.call', customerId: a.id }));
    expect((await ingest(ws, events(3, 'r'))).json.data.accepted).toBe(3);
    const refused = await ingest(ws, events(4, 's'));
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await ws.client.get('/v1/usage-events?limit=100')).json.data).toHaveLength(3);
  });

  it('no free slot within the admission wait is 503 service_unavailable with Retry-After', async () => {
    const { ws, a } = await setup();
    config.usageIngestConcurrency = 0;
    config.usageAdmissionWaitMs = 20;
    const res = await ingest(ws, [{ id: 'z', eventName: 'api.call', customerId: a.id }]);
    expectError(res, 503, 'service_unavailable');
    expect(res.headers.get('retry-after')).toBe('1');
  });
});
