// The typed client (src/client/svc.ts): against a real server (typed calls, pages, errors,
// idempotent replays, webhook verification, the runnable example), and against a loopback
// server that answers 429 with Retry-After and drops connections (retries, one Idempotency-Key
// per call across them, the waits).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Svc, SvcConnectionError, SvcError, type ErrorCodeOf } from '../../src/client/index.ts';
import { deliveryHeaders, newSigningSecret } from '../../src/client/webhook-signing.ts';
import { canonicalString, parseAuthorization, signature, signingKeyOf } from '../../src/core/auth/signing.ts';
import { useServer } from '../helpers/server.ts';
import { ROOT } from '../helpers/cli.ts';

const server = useServer();

describe('against a real server', () => {
  let svc: Svc;
  let keyId: string;
  let secret: string;
  beforeAll(async () => {
    ({ keyId, secret } = await server.workspace());
    svc = new Svc({ baseUrl: server.url, keyId, secret });
  });

  it('creates, updates and reads typed resources', async () => {
    const c = await svc.api.createCustomer({
      body: { name: 'Ani', email: 'ani@example.com', metadata: { tier: 'gold' } },
    });
    expect(c.id).toMatch(/^cus_/);
    expect(c.metadata).toEqual({ tier: 'gold' });
    const renamed = await svc.call('updateCustomer', { params: { id: c.id }, body: { name: 'Ani W.' } });
    expect(renamed.name).toBe('Ani W.');
    const got = await svc.api.getCustomer({ params: { id: c.id } });
    expect(got.email).toBe('ani@example.com');
    // @ts-expect-error not a field of Customer
    expect(got.amount).toBeUndefined();
    // @ts-expect-error params.id is required
    await expect(svc.api.getCustomer({})).rejects.toThrow(/params.id is required/);
  });

  it('calls the routes outside GraphQL: the ledger CSV as a document, the invoice PDF as its signed link', async () => {
    const csv = await svc.api.downloadLedgerCsv({ query: { from: '2026-01-01', to: '2026-01-31' } });
    expect(csv.contentType).toMatch(/^text\/csv/);
    expect(csv.filename).toBe('ledger-2026-01-01-to-2026-01-31.csv');
    expect(Buffer.from(csv.body).toString()).toMatch(/^[\w,]+\r?\n/);
    const bad = await svc.api.downloadLedgerCsv({ query: { from: '2026-02-01', to: '2026-01-01' } }).catch((e) => e);
    expect(bad).toBeInstanceOf(SvcError);
    expect(bad).toMatchObject({ status: 400, field: 'to' });

    const customerId = (await svc.api.createCustomer({ body: { name: 'Dewi' } })).id;
    const inv = await svc.api.createInvoice({
      body: {
        customerId,
        currency: 'IDR',
        status: 'open',
        lines: [{ description: 'Jasa', quantity: 1, unitAmount: 10_000 }],
      },
    });
    const link = await svc.api.getInvoicePdfLink({ params: { id: inv.id } });
    expect(link.location).toMatch(new RegExp(`/f/${inv.id}\\.pdf\\?`));
    const url = new URL(link.location);
    const pdf = await fetch(`${server.url}${url.pathname}${url.search}`);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const missing = await svc.api
      .getInvoicePdfLink({ params: { id: 'inv_01JCKZ3V6Q8Y2X4W5T7R9P0M1N' } })
      .catch((e) => e);
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
    const code: ErrorCodeOf<'getInvoicePdfLink'> = 'not_found';
    expect(code).toBe('not_found');
  });

  it('walks every page of a list with the async iterator', async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++)
      made.push((await svc.api.createCustomer({ body: { name: `P${i}`, metadata: { batch: 'pages' } } })).id);
    const seen: string[] = [];
    for await (const c of svc.paginate('listCustomers', {
      query: { limit: 2, order: 'asc', metadata: { batch: 'pages' } },
    }))
      seen.push(c.id);
    expect(seen).toEqual(made);
    // early exit stops fetching
    for await (const c of svc.paginate('listCustomers', { query: { limit: 2 } })) {
      expect(c.id).toMatch(/^cus_/);
      break;
    }
  });

  it('throws typed errors with the route spelling, field and request id', async () => {
    const missing = await svc.api.getRefund({ params: { id: 'rf_01J00000000000000000000000' } }).catch((e) => e);
    expect(missing).toBeInstanceOf(SvcError);
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND', attempts: 1 });
    expect(missing.requestId).toMatch(/^req_/);
    const code: ErrorCodeOf<'getRefund'> = missing.code;
    expect(code).toBe('NOT_FOUND');
    // The types are the route's, not `string`/`any` (npx tsc --noEmit checks these lines).
    // @ts-expect-error refunds spell it NOT_FOUND
    const lower: ErrorCodeOf<'getRefund'> = 'not_found';
    expect(lower).not.toBe(code);
    const invalid = await svc.api
      .createCustomer({ body: { name: 'x', unknownField: 1 } as never })
      .catch((e: SvcError<ErrorCodeOf<'createCustomer'>>) => e);
    expect(invalid).toMatchObject({ status: 400, code: 'validation_error', field: 'unknownField' });
  });

  it('sends a generated Idempotency-Key with each write, and a given one replays', async () => {
    const a = await svc.api.createCustomer({ body: { name: 'Once' }, idempotencyKey: 'client-test-1' });
    const b = await svc.api.createCustomer({ body: { name: 'Once' }, idempotencyKey: 'client-test-1' });
    expect(b.id).toBe(a.id);
    // a required key is supplied without the caller thinking of it
    const trig = await svc.api.triggerEvent({ body: { type: 'customer.note', aggregateId: a.id } });
    expect(trig).toBeTruthy();
  });

  it('verifies a webhook delivery (verifyWebhook) and refuses a tampered one', () => {
    const whsec = newSigningSecret();
    const body = JSON.stringify({ id: 'evt_1', type: 'customer.created', data: { object: {} } });
    const headers = deliveryHeaders(
      'svc',
      [whsec],
      { eventId: 'evt_1', eventType: 'customer.created', deliveryId: 'whdel_1' },
      body,
    );
    expect(Svc.verifyWebhook({ payload: body, headers, secret: whsec }).id).toBe('evt_1');
    expect(() => Svc.verifyWebhook({ payload: `${body} `, headers, secret: whsec })).toThrow(/body/i);
  });

  it('runs examples/client.ts (the README example) against the server', async () => {
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'examples/client.ts')], {
        cwd: ROOT,
        env: { ...process.env, SVC_BASE_URL: server.url, SVC_KEY_ID: keyId, SVC_SECRET: secret },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^created cus_\w+ jane@example\.com$/m);
    expect(out.stdout).toMatch(/^renamed Jane Q\. Doe$/m);
    expect(out.stdout).toMatch(/^customers with crmId c-42: 1$/m);
    expect(out.stdout).toMatch(/^lookup failed 404 not_found req_$/m);
  }, 30_000);
});

interface Seen {
  at: number;
  method: string;
  url: string;
  key: string | undefined;
  signed: boolean;
  body: string;
}

/** A loopback server scripted per request: each handler answers (or drops) one attempt. */
function flakyServer() {
  const seen: Seen[] = [];
  let script: ((req: IncomingMessage, res: ServerResponse) => void)[] = [];
  let http: Server;
  const secret = 'sk_test_secret';
  const state = {
    url: '',
    seen,
    secret,
    keyId: 'pk_test_000000000000',
    play(...steps: typeof script) {
      script = steps;
      seen.length = 0;
    },
  };
  beforeAll(async () => {
    http = createServer(async (req, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      const auth = parseAuthorization(req.headers.authorization);
      const ts = String(req.headers['x-svc-timestamp']);
      const expected = signature(signingKeyOf(secret), canonicalString(ts, req.method!, req.url!, body));
      seen.push({
        at: performance.now(),
        method: req.method!,
        url: req.url!,
        key: req.headers['idempotency-key'] as string | undefined,
        signed: auth?.signature === expected,
        body,
      });
      const step = script.shift();
      if (!step) throw new Error('unscripted request');
      step(req, res);
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    state.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => http.close(() => r())));
  return state;
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  (_: IncomingMessage, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
const meta = { requestId: 'req_x', timestamp: '2026-01-01T00:00:00.000Z' };
const ok = (data: unknown, status = 200) => json(status, { data, error: null, meta });
const rateLimited = (retryAfter: string) =>
  json(429, { data: null, error: { code: 'RATE_LIMITED', message: 'slow down' }, meta }, { 'retry-after': retryAfter });
/** The connection is closed before any response: the client sees a network error. */
const drop = (req: IncomingMessage) => req.socket.destroy();

describe('retries against a loopback server', () => {
  const flaky = flakyServer();
  const client = (opts: Partial<ConstructorParameters<typeof Svc>[0]> = {}) =>
    new Svc({ baseUrl: flaky.url, keyId: flaky.keyId, secret: flaky.secret, retryBaseMs: 100, ...opts });

  it('waits Retry-After on 429, then retries the write with the same Idempotency-Key, re-signed', async () => {
    flaky.play(rateLimited('1'), ok({ id: 'cus_1' }, 201));
    const out = await client().api.createCustomer({ body: { name: 'R' } });
    expect(out).toEqual({ id: 'cus_1' });
    expect(flaky.seen).toHaveLength(2);
    const [first, second] = flaky.seen;
    expect(first.key).toMatch(/^svc_[0-9a-f-]{36}$/);
    expect(second.key).toBe(first.key);
    expect(second.body).toBe(first.body);
    expect(flaky.seen.every((s) => s.signed)).toBe(true);
    expect(second.at - first.at).toBeGreaterThanOrEqual(1000);
  });

  it('retries dropped connections with exponential backoff and one key, then succeeds', async () => {
    flaky.play(drop, drop, ok({ id: 'cus_2' }, 201));
    const out = await client({ maxRetries: 3 }).api.createCustomer({ body: { name: 'D' } });
    expect(out).toEqual({ id: 'cus_2' });
    expect(flaky.seen).toHaveLength(3);
    expect(new Set(flaky.seen.map((s) => s.key)).size).toBe(1);
    // jittered steps of 100 * 2^n ms, each at least half of its step
    expect(flaky.seen[1].at - flaky.seen[0].at).toBeGreaterThanOrEqual(50);
    expect(flaky.seen[2].at - flaky.seen[1].at).toBeGreaterThanOrEqual(100);
  });

  it('retries a read after a drop, and gives up with SvcConnectionError after maxRetries', async () => {
    flaky.play(drop, ok({ id: 'cus_3' }));
    expect(await client().api.getCustomer({ params: { id: 'cus_3' } })).toEqual({ id: 'cus_3' });
    expect(flaky.seen.map((s) => [s.method, s.url, s.key])).toEqual([
      ['GET', '/v1/customers/cus_3', undefined],
      ['GET', '/v1/customers/cus_3', undefined],
    ]);

    flaky.play(drop, drop, drop);
    const e = await client({ maxRetries: 2 })
      .api.getCustomer({ params: { id: 'cus_3' } })
      .catch((x) => x);
    expect(e).toBeInstanceOf(SvcConnectionError);
    expect(e.attempts).toBe(3);
    expect(flaky.seen).toHaveLength(3);
  });

  it('does not retry a client error, nor a 429 whose Retry-After exceeds retryMaxMs', async () => {
    flaky.play(json(409, { data: null, error: { code: 'conflict', message: 'no' }, meta }));
    const conflict = await client()
      .api.cancelCheckoutSession({ params: { id: 'cs_1' } })
      .catch((x) => x);
    expect(conflict).toMatchObject({ status: 409, code: 'conflict', attempts: 1 });
    expect(flaky.seen).toHaveLength(1);

    flaky.play(rateLimited('120'));
    const limited = await client({ retryMaxMs: 5_000 })
      .api.listCustomers()
      .catch((x) => x);
    expect(limited).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfter: 120, attempts: 1 });
  });

  it('returns a document route as bytes with its content type and filename', async () => {
    flaky.play((_, res) => {
      res.writeHead(200, { 'content-type': 'application/pdf', 'content-disposition': 'inline; filename="R-1.pdf"' });
      res.end(Buffer.from('%PDF-1.7 x'));
    });
    const doc = await client().api.getReceiptPdf({ params: { id: 'rcpt_1' } });
    expect(doc.contentType).toBe('application/pdf');
    expect(doc.filename).toBe('R-1.pdf');
    expect(Buffer.from(doc.body).toString()).toBe('%PDF-1.7 x');
    expect(flaky.seen[0].url).toBe('/v1/receipts/rcpt_1/receipt.pdf');
  });

  it('follows nextCursor across pages, with the query kept', async () => {
    const page = (ids: string[], next: string | null) =>
      json(200, {
        data: ids.map((id) => ({ id })),
        error: null,
        meta: { ...meta, page: { limit: 2, hasMore: !!next, nextCursor: next } },
      });
    flaky.play(page(['a', 'b'], 'cur_1'), rateLimited('0'), page(['c'], null));
    // @ts-expect-error only list routes page (a generator: nothing is sent until iterated)
    void client().paginate('getCustomer');
    const ids: string[] = [];
    for await (const c of client().paginate('listCustomers', { query: { limit: 2, email: 'x@y.z' } })) ids.push(c.id);
    expect(ids).toEqual(['a', 'b', 'c']);
    expect(flaky.seen.map((s) => s.url)).toEqual([
      '/v1/customers?limit=2&email=x%40y.z',
      '/v1/customers?limit=2&email=x%40y.z&cursor=cur_1',
      '/v1/customers?limit=2&email=x%40y.z&cursor=cur_1',
    ]);
  });
});
