import { afterAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { useServer } from '../helpers/server.ts';
import { startReceiver, until } from '../helpers/receiver.ts';
import { config } from '../../src/core/config.ts';

// A collector on loopback (OTLP/HTTP JSON), and tracing on for this file's server: every new trace kept.
const collector = await startReceiver(() => 200);
process.env.OTEL_EXPORTER_OTLP_ENDPOINT = collector.origin;
config.otel.exporter = 'otlp';
config.otel.sampleRatio = 1;
const server = useServer();
afterAll(() => collector.close());

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
}
/** Every span the collector received so far. */
const spans = (): OtlpSpan[] =>
  collector.received
    .filter((r) => r.path === '/v1/traces')
    .flatMap((r) => JSON.parse(r.body.toString()).resourceSpans)
    .flatMap((rs: { scopeSpans: { spans: OtlpSpan[] }[] }) => rs.scopeSpans.flatMap((s) => s.spans));
const attr = (s: OtlpSpan, key: string) => {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v && Object.values(v)[0];
};

describe('OpenTelemetry traces (SVC_OTEL=otlp)', () => {
  it("continue the caller's trace: a server span per request, a child per GraphQL operation, ids and route patterns", async () => {
    const ws = await server.workspace();
    const traceId = randomBytes(16).toString('hex');
    const parent = randomBytes(8).toString('hex');
    const res = await ws.client.post(
      '/v1/customers',
      { name: 'Traced' },
      { traceparent: `00-${traceId}-${parent}-01` },
    );
    expect(res.status, res.text).toBe(201);
    const requestId = res.headers.get('x-request-id');

    await until(() => spans().some((s) => s.traceId === traceId && s.kind === 2), 'the server span exported', 10_000);
    const mine = spans().filter((s) => s.traceId === traceId);
    const root = mine.find((s) => s.kind === 2)!; // SERVER
    expect(root.name).toBe('POST /v1/customers');
    expect(root.parentSpanId).toBe(parent);
    expect(attr(root, 'http.route')).toBe('/v1/customers');
    expect(Number(attr(root, 'http.response.status_code'))).toBe(201);
    expect(attr(root, 'svc.request_id')).toBe(requestId);
    await until(() => spans().some((s) => s.traceId === traceId && s.name.startsWith('graphql')), 'the operation span');
    const op = spans().find((s) => s.traceId === traceId && s.name.startsWith('graphql'))!;
    expect(op.name).toBe('graphql mutation createCustomer');
    expect(op.parentSpanId).toBe(root.spanId);
    // No body, no secret, no workspace data in any attribute.
    const text = JSON.stringify(mine);
    expect(text).not.toContain('Traced');
    expect(text).not.toContain(ws.secret);
  });

  it("a caller's unsampled trace stays unsampled (parent-based sampling)", async () => {
    const ws = await server.workspace();
    const traceId = randomBytes(16).toString('hex');
    const res = await ws.client.get('/v1/customers', {
      traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-00`,
    });
    expect(res.status).toBe(200);
    // A sampled request after it: once its span is exported, the unsampled one would have been too.
    const sentinel = randomBytes(16).toString('hex');
    await ws.client.get('/v1/customers', { traceparent: `00-${sentinel}-${randomBytes(8).toString('hex')}-01` });
    await until(() => spans().some((s) => s.traceId === sentinel && s.kind === 2), 'the sentinel span', 10_000);
    expect(spans().filter((s) => s.traceId === traceId)).toEqual([]);
  });
});
