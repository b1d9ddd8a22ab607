import { beforeEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { customer, plan, seedSubscription } from './helpers/renewals.ts';
import { useServer, type Workspace } from './helpers/server.ts';
import { signRequest } from '../src/core/auth/signing.ts';
import { routes, type Route } from '../rest-compat/routes.ts';
import { newId, type IdKind } from '../src/core/ids.ts';
import { sandboxPayment } from './helpers/payments.ts';
import { planBody } from './helpers/plans.ts';

const server = useServer();

// A case that returns before asserting (a route with no usable body, a skipped branch) fails
// instead of passing silently.
beforeEach(() => {
  expect.hasAssertions();
});

/**
 * Workspaces shared by cases whose every request is refused (a refusal changes nothing, which is
 * what those cases assert): creating one per case was most of this file's time. Each serves at
 * most `budget` requests, under the burst of every rate class it spends (mutating heavy: 20, read:
 * 200), so a 429 never stands in for the answer under test. Cases whose request may succeed (odd
 * bodies, known-good bodies) get a workspace of their own.
 */
function sharedWorkspaces(budget: number) {
  let current: Promise<Workspace> | undefined;
  let left = 0;
  return (requests: number) => {
    if (!current || left < requests) {
      current = server.workspace();
      left = budget;
    }
    left -= requests;
    return current;
  };
}
/** For writes (and anything that may take a mutating token). */
const refusedWrites = sharedWorkspaces(15);
/** For reads only. */
const refusedReads = sharedWorkspaces(150);

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** Signs exactly the bytes that go on the wire, then sends them with fetch. */
async function raw(
  ws: Workspace,
  method: string,
  target: string,
  body?: Buffer,
  headers: Record<string, string> = {},
): Promise<Reply> {
  // What fetch puts on the request line (it normalises some characters); the signature must cover that.
  const url = new URL(server.url + target);
  const sent = url.pathname + url.search;
  const signed = signRequest({ keyId: ws.keyId, secret: ws.secret, method, target: sent, body: body ?? '' });
  const res = await fetch(url, {
    method,
    // Every mutating REST request carries an Idempotency-Key (some routes require one), so the
    // answer is about the body or path under test, never about a missing key.
    headers: {
      ...signed,
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...(method !== 'GET' && target.startsWith('/v1/') ? { 'idempotency-key': randomUUID() } : {}),
      ...headers,
    },
    body: body as BodyInit | undefined,
  });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* asserted below */
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Every failure is a 4xx in the envelope: `data` null, `error.code` a string, `meta.requestId`. */
function expectClientError(res: Reply, what: string) {
  expect(res.status, `${what}: ${res.status} ${res.text.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  expect(res.status, `${what}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
  expect(res.json, `${what}: not JSON: ${res.text.slice(0, 300)}`).not.toBeNull();
  expect(res.json.data, what).toBeNull();
  expect(typeof res.json.error?.code, `${what}: ${res.text.slice(0, 300)}`).toBe('string');
  expect(typeof res.json.error?.message, what).toBe('string');
  expect(res.json.meta.requestId, what).toBe(res.headers.get('x-request-id'));
}

const isValidationCode = (code: string) => /^validation_error$/i.test(code);

/** A well-formed id for the path's resource (one that does not exist). */
const kindOfSegment: Record<string, IdKind> = {
  'api-keys': 'apiKey',
  'checkout-sessions': 'checkoutSession',
  payments: 'payment',
  payouts: 'payout',
  invoices: 'invoice',
  lines: 'invoiceLine',
  plans: 'plan',
  prices: 'price',
  refunds: 'refund',
  receipts: 'receipt',
  ledger: 'ledgerEntry',
  'portal-sessions': 'portalSession',
  'webhook-endpoints': 'webhookEndpoint',
  deliveries: 'webhookDelivery',
  events: 'event',
  workspaces: 'workspace',
  customers: 'customer',
  templates: 'template',
  members: 'member',
  'dunning-policies': 'dunningPolicy',
  subscriptions: 'subscription',
  'credit-notes': 'creditNote',
  'balance-transactions': 'customerBalanceTransaction',
  coupons: 'coupon',
};
function pathFor(route: Route, ws: Workspace, opts: { ownWorkspace?: boolean } = {}) {
  const parts = route.path.split('/');
  return parts
    .map((p, i) => {
      if (!p.startsWith(':')) return p;
      const kind = kindOfSegment[parts[i - 1]];
      // PATCH on the caller's own workspace reaches body validation; everything else is an unknown id.
      if (kind === 'workspace' && opts.ownWorkspace) return ws.workspaceId;
      return kind ? newId(kind) : newId('request').replace(/^req_/, 'x_');
    })
    .join('/');
}

/**
 * Known good bodies, so an unknown field is the only thing wrong: each, sent as it is by a fresh
 * workspace, is accepted (201; checked below). The money routes set up what they need in that
 * workspace first. The first field is the one "wrong types" sets to a number, so it is a string.
 */
const validBodies: Record<string, (ws: Workspace) => Promise<Record<string, unknown>>> = {
  createApiKey: async () => ({ name: 'bad-input' }),
  createWorkspace: async () => ({ name: 'Bad Input' }),
  updateWorkspace: async () => ({ name: 'Renamed' }),
  inviteMember: async () => ({ email: 'bad-input@example.com', role: 'member' }),
  createCustomer: async () => ({ name: 'Bad Input' }),
  createPaymentMethod: async (ws) => ({ customerId: (await ws.client.post('/v1/customers', {})).json.data.id }),
  createTemplate: async () => ({ name: 'Bad Input', kind: 'receipt' }),
  replayEvents: async (ws) => ({ eventIds: [(await ws.client.get('/v1/events?limit=1')).json.data[0].id] }),
  triggerEvent: async () => ({ type: 'bad.input' }),
  // A loopback receiver (allowed in tests): names outside this machine need DNS, which tests cannot count on.
  createWebhookEndpoint: async () => ({ url: 'http://127.0.0.1:9/bad-input', events: ['*'] }),
  createCheckoutSession: async () => ({
    successUrl: 'https://shop.example/ok',
    amount: 1000,
    currency: 'IDR',
    methods: ['qris'],
    cancelUrl: 'https://shop.example/cart',
  }),
  createSetupSession: async (ws) => ({
    customerId: (await ws.client.post('/v1/customers', {})).json.data.id,
    successUrl: 'https://shop.example/ok',
    cancelUrl: 'https://shop.example/cart',
  }),
  createInvoice: async (ws) => ({
    customerId: (await ws.client.post('/v1/customers', {})).json.data.id,
    currency: 'IDR',
    lines: [{ description: 'Bad input', quantity: 1, unitAmount: 1000 }],
  }),
  payInvoice: async () => ({}),
  createCreditNote: async (ws) => {
    const body = await validBodies.createInvoice(ws);
    const inv = await ws.client.post('/v1/invoices', { ...body, status: 'open' });
    return { invoiceId: inv.json.data.id, amount: 100 };
  },
  createCustomerBalanceTransaction: async () => ({ currency: 'IDR', amount: 5000 }),
  createReconciliationRun: async () => ({ adapter: 'provider_a' }),
  createRefund: async (ws) => ({
    reason: 'requested_by_customer',
    chargeId: (await sandboxPayment(server, ws, { amount: 10000 })).id,
  }),
  createPayout: async (ws) => {
    await sandboxPayment(server, ws, { amount: 100000 });
    const bank = await ws.client.patch('/v1/payouts/bank-account', {
      bankCode: 'BCA',
      bankName: 'Bank Central Asia',
      bankAccountNumber: '1234567890',
      bankAccountHolder: 'PT Bad Input',
    });
    expect(bank.status, bank.text).toBe(200);
    return { note: 'bad input', amount: 1000, currency: 'IDR' };
  },
  createPlan: async () => planBody({ name: 'Bad Input' }),
  createCoupon: async () => ({ name: 'Bad Input', percentOff: 10, duration: 'forever' }),
  createMeter: async () => ({ key: 'bad_input', name: 'Bad input', eventName: 'bad.input', aggregation: 'count' }),
  addPrice: async () => ({ currency: 'USD', model: 'flat', unitAmount: 500 }),
  // timestamp first: the wrong-type case sends 123 (epoch seconds of 1970, before the period) for it.
  createUsageRecord: async () => ({ timestamp: new Date().toISOString(), quantity: 1 }),
  createDunningPolicy: async () => ({ finalAction: 'void', retryScheduleDays: [1, 3, 5] }),
  createPortalSession: async (ws) => ({
    customerId: (await ws.client.post('/v1/customers', {})).json.data.id,
    returnUrl: 'https://shop.example/account',
  }),
  createTestClock: async () => ({ name: 'bad input', frozenTime: '2025-01-31T00:00:00.000Z' }),
  createSubscription: async (ws) => {
    const plan = await ws.client.post('/v1/plans', planBody({ name: 'Bad Input' }), {
      'idempotency-key': randomUUID(),
    });
    expect(plan.status, plan.text).toBe(201);
    return {
      customerId: (await ws.client.post('/v1/customers', {})).json.data.id,
      priceId: plan.json.data.prices[0].id,
    };
  },
};

/** 201 routes under an existing resource (`POST /v1/plans/:id/prices`, `/v1/invoices/:id/pay`): the path to use. */
const validPaths: Record<string, (ws: Workspace) => Promise<string>> = {
  inviteMember: async (ws) => `/v1/workspaces/${ws.workspaceId}/members`,
  addPrice: async (ws) => {
    const plan = await ws.client.post('/v1/plans', await validBodies.createPlan(ws), {
      'idempotency-key': randomUUID(),
    });
    expect(plan.status, plan.text).toBe(201);
    return `/v1/plans/${plan.json.data.id}/prices`;
  },
  createUsageRecord: async (ws) => {
    const { planId, priceId } = await plan(ws, {
      usageAggregate: 'sum',
      prices: [{ currency: 'IDR', model: 'usage', unitAmount: 100 }],
    });
    const sub = await seedSubscription(ws, {
      customerId: await customer(ws),
      planId,
      priceId,
      anchorAt: new Date(Date.now() - 86_400_000),
    });
    return `/v1/subscriptions/${sub}/usage`;
  },
  createCustomerBalanceTransaction: async (ws) =>
    `/v1/customers/${(await ws.client.post('/v1/customers', {})).json.data.id}/balance-transactions`,
  payInvoice: async (ws) => {
    const body = await validBodies.createInvoice(ws);
    const inv = await ws.client.post('/v1/invoices', { ...body, status: 'open' });
    return `/v1/invoices/${inv.json.data.id}/pay`;
  },
};

/** Create routes whose `name` field is optional, so `{"name":null}` is a valid body. */
const nameOptional = new Set(['createCustomer']);

const writeRoutes = routes.filter((r) => r.method !== 'GET');
const bodyRoutes = routes.filter((r) => r.method === 'POST' || r.method === 'PATCH' || r.method === 'PUT');
const createRoutes = bodyRoutes.filter((r) => r.method === 'POST' && r.status === 201);
const label = (r: Route) => `${r.method} ${r.path}`;

/** Bodies every write route must refuse with a 4xx envelope. */
const bodies: [string, Buffer][] = [
  ['malformed JSON', Buffer.from('{"name": "x",')],
  ['a bare word', Buffer.from('nope')],
  ['a JSON array', Buffer.from('[{"name":"x"}]')],
  ['a JSON string', Buffer.from('"name"')],
  ['JSON null', Buffer.from('null')],
  ['a JSON number', Buffer.from('42')],
  ['wrong types', Buffer.from('{"name":123,"role":[],"environment":{},"brandName":false,"region":7}')],
  ['null for a required field', Buffer.from('{"name":null}')],
  ['a nested object for a string', Buffer.from('{"name":{"$gt":""}}')],
  ['unknown fields', Buffer.from('{"bogus":1}')],
  ['invalid UTF-8', Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])],
  [
    'an overlong UTF-8 encoding',
    Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]),
  ],
  ['a lone surrogate escape', Buffer.from('{"name":"a\\ud800"}')],
  ['a NUL character', Buffer.from('{"name":"a\\u0000b"}')],
  ['a very long string', Buffer.from(JSON.stringify({ name: 'x'.repeat(100_000) }))],
  ['deeply nested JSON', Buffer.from(`{"name":${'['.repeat(5000)}${']'.repeat(5000)}}`)],
  ['a huge number in an unknown field', Buffer.from('{"name":"x","limit":1e400}')],
  ['duplicate keys, last one wrong', Buffer.from('{"name":"x","name":5}')],
];
/** Odd but acceptable bodies: any status but a 5xx, and errors in the envelope. */
const oddBodies: [string, Buffer][] = [
  ['a UTF-8 BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"x"}')])],
  ['an astral character', Buffer.from(JSON.stringify({ name: 'pay \u{1F4B8}' }))],
  ['an empty body', Buffer.alloc(0)],
  ['an empty object', Buffer.from('{}')],
];

describe.each(bodyRoutes.map((r) => [label(r), r] as const))('bad bodies on %s', (_name, route) => {
  it.each(bodies)('%s is a 4xx envelope, never a 500', async (what, body) => {
    // `{"name":null}` may be accepted where `name` is optional: that case has a workspace of its own.
    const ws = await (what === 'null for a required field' && nameOptional.has(route.id)
      ? server.workspace()
      : refusedWrites(1));
    const res = await raw(ws, route.method, pathFor(route, ws, { ownWorkspace: true }), body, {
      'idempotency-key': randomUUID(),
    });
    // `name` is optional on some resources (a customer may be created empty): null is then valid.
    if (what === 'null for a required field' && nameOptional.has(route.id))
      expect(res.status, res.text.slice(0, 300)).toBeLessThan(500);
    else expectClientError(res, `${label(route)} with ${what}`);
  });

  // Odd bodies may be accepted (and change the workspace): they share one of their own per route.
  let odd: Promise<Workspace> | undefined;
  it.each(oddBodies)('%s never yields a 5xx', async (what, body) => {
    odd ??= server.workspace();
    const ws = await odd;
    const res = await raw(ws, route.method, pathFor(route, ws, { ownWorkspace: true }), body, {
      'idempotency-key': randomUUID(),
    });
    expect(res.status, `${what}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
    if (res.status >= 400) expectClientError(res, what);
  });

  it('NUL characters and unpaired surrogates are 400 validation errors', async () => {
    const ws = await refusedWrites(3);
    for (const body of ['{"name":"a\\u0000b"}', '{"name":"\\udc00"}', '{"a\\u0000":"x"}']) {
      const res = await raw(ws, route.method, pathFor(route, ws, { ownWorkspace: true }), Buffer.from(body), {
        'idempotency-key': randomUUID(),
      });
      expect(res.status, body).toBe(400);
      expect(isValidationCode(res.json.error.code), body).toBe(true);
    }
  });

  it('malformed JSON and non-object JSON are 400 validation errors', async () => {
    const ws = await refusedWrites(8);
    for (const [what, body] of bodies.filter(([w]) =>
      /^(malformed JSON|a bare word|a JSON array|a JSON string|JSON null|a JSON number|invalid UTF-8|an overlong UTF-8 encoding)$/.test(
        w,
      ),
    )) {
      const res = await raw(ws, route.method, pathFor(route, ws, { ownWorkspace: true }), body, {
        'idempotency-key': randomUUID(),
      });
      expectClientError(res, what);
      expect(res.status, what).toBe(400);
      expect(isValidationCode(res.json.error.code), `${what}: ${res.json.error.code}`).toBe(true);
      expect(res.json.error.field, what).toBe('body');
    }
  });

  it('a body over 1 MiB (or the route limit) is 413 in the envelope', async () => {
    const ws = await refusedWrites(1);
    const limit = route.bodyLimit ?? 1024 * 1024;
    const body = Buffer.from(JSON.stringify({ name: 'x', pad: 'y'.repeat(limit + 16) }));
    const res = await raw(ws, route.method, pathFor(route, ws, { ownWorkspace: true }), body, {
      'idempotency-key': randomUUID(),
    });
    expect(res.status).toBe(413);
    expectClientError(res, 'huge body');
    expect(res.json.error.code).toBe('payload_too_large');
  });
});

describe.each(createRoutes.map((r) => [label(r), r] as const))('unknown fields on %s', (_name, route) => {
  const baseFor = (ws: Workspace) => {
    const make = validBodies[route.id];
    // Every create route has a known-good body: without one its cases below would prove nothing.
    expect(make, `no valid body for ${route.id}`).toBeDefined();
    return make(ws);
  };
  const pathOf = (ws: Workspace) => validPaths[route.id]?.(ws) ?? pathFor(route, ws);

  it('the known-good body is accepted as it is', async () => {
    const ws = await server.workspace({ platformAdmin: route.id === 'createWorkspace' });
    const res = await raw(ws, 'POST', await pathOf(ws), Buffer.from(JSON.stringify(await baseFor(ws))), {
      'idempotency-key': randomUUID(),
    });
    expect(res.status, res.text.slice(0, 300)).toBe(201);
  });

  // The two refused cases share a workspace; their fixtures (a customer, a charge) take a few requests.
  let refused: Promise<Workspace> | undefined;
  it('are 400 validation_error naming the field', async () => {
    refused ??= server.workspace();
    const ws = await refused;
    const body = Buffer.from(JSON.stringify({ ...(await baseFor(ws)), bogus: 1 }));
    const res = await raw(ws, 'POST', await pathOf(ws), body, { 'idempotency-key': randomUUID() });
    expectClientError(res, 'unknown field');
    expect(res.status).toBe(400);
    expect(isValidationCode(res.json.error.code)).toBe(true);
    // with a known-good body the unknown field is the only possible culprit
    expect(res.json.error.field).toBe('bogus');
  });

  it('wrong types are 400 validation_error naming the field', async () => {
    refused ??= server.workspace();
    const ws = await refused;
    const base = await baseFor(ws);
    // A route with an empty body (pay) names the sent field all the same.
    const field = Object.keys(base)[0] ?? 'name';
    const res = await raw(ws, 'POST', await pathOf(ws), Buffer.from(JSON.stringify({ ...base, [field]: 123 })), {
      'idempotency-key': randomUUID(),
    });
    expect(res.status, res.text.slice(0, 300)).toBe(400);
    expect(isValidationCode(res.json.error.code)).toBe(true);
    expect(res.json.error.field).toBe(field);
  });
});

describe('specific validation failures', () => {
  it('POST /v1/api-keys names the offending field', async () => {
    const ws = await server.workspace();
    const cases: [unknown, string][] = [
      [{ name: 'x', bogus: 1 }, 'bogus'],
      [{ name: 123 }, 'name'],
      [{ name: 'x', role: 5 }, 'role'],
      [{ name: 'x', scopes: 'all' }, 'scopes'],
      // A coercion failure names its whole path.
      [{ name: 'x', scopes: [1] }, 'scopes[0]'],
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(81) }, 'name'],
      [{ name: 'x', environment: 'prod' }, 'environment'],
      [{ name: 'x', role: 'god' }, 'role'],
      [{ name: 'x', scopes: ['payments:read'] }, 'scopes'],
      [{ name: 'a\u0000b' }, 'name'],
      [{ name: 'x', role: 'read_only', scopes: ['\ud800'] }, 'scopes'],
    ];
    for (const [body, field] of cases) {
      const res = await raw(ws, 'POST', '/v1/api-keys', Buffer.from(JSON.stringify(body)));
      expectClientError(res, JSON.stringify(body));
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error, JSON.stringify(body)).toMatchObject({ code: 'validation_error', field });
    }
  });

  it('PATCH /v1/workspaces/:id names the offending field', async () => {
    const ws = await server.workspace();
    const cases: [unknown, string][] = [
      [{ bogus: 1 }, 'bogus'],
      [{ name: 5 }, 'name'],
      [{ timezone: 'Mars/Olympus' }, 'timezone'],
      [{ slug: 'A B' }, 'slug'],
      [{ businessEmail: 'nope' }, 'businessEmail'],
    ];
    for (const [body, field] of cases) {
      const res = await raw(ws, 'PATCH', `/v1/workspaces/${ws.workspaceId}`, Buffer.from(JSON.stringify(body)));
      expectClientError(res, JSON.stringify(body));
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error, JSON.stringify(body)).toMatchObject({ code: 'validation_error', field });
    }
  });
});

const badQueries = [
  'limit=abc',
  'limit=0',
  'limit=101',
  'limit=-5',
  'limit=1&limit=abc',
  'limit[]=1',
  'cursor=garbage',
  'cursor=cur_%ZZ',
  'cursor=%FF%FE',
  `cursor=${'A'.repeat(5000)}`,
  'includeRevoked=maybe',
  'environment=prod',
  'archived=2',
  'mode=staging',
  'order=sideways',
  'occurredAfter=yesterday',
  'since=99999999999999',
  'until=-1',
  'occurredBefore=2026-13-45',
  'type=%00',
  'objectId[$ne]=x',
  'workspaceId=ws_x',
  'status=%E2%80%AE',
  'since=1e9',
  'limit=%20',
  '%ZZ=1',
  'metadata[a]=b',
];

describe.each(routes.filter((r) => r.method === 'GET').map((r) => [label(r), r] as const))(
  'bad query values on %s',
  (_name, route) => {
    it('never yield a 5xx', async () => {
      const ws = await refusedReads(badQueries.length);
      for (const q of badQueries) {
        const res = await raw(ws, 'GET', `${pathFor(route, ws)}?${q}`);
        expect(res.status, `${q}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
        if (res.status >= 400) expectClientError(res, q);
        else expect(res.json.error, q).toBeNull();
      }
    });
  },
);

describe('bad query values on list routes', () => {
  const cases: [string, string, string][] = [
    ['/v1/api-keys', 'limit=abc', 'invalid_limit'],
    ['/v1/api-keys', 'cursor=garbage', 'invalid_cursor'],
    ['/v1/api-keys', 'includeRevoked=maybe', 'validation_error'],
    ['/v1/api-keys', 'environment=prod', 'validation_error'],
    ['/v1/workspaces', 'archived=2', 'validation_error'],
    ['/v1/workspaces', 'mode=staging', 'validation_error'],
    ['/v1/workspaces', 'limit=500', 'invalid_limit'],
    ['/v1/events', 'order=sideways', 'validation_error'],
    ['/v1/events', 'occurredAfter=yesterday', 'validation_error'],
    ['/v1/events', 'until=not-a-time', 'validation_error'],
    ['/v1/events', 'occurredBefore=2026-13-45', 'validation_error'],
    ['/v1/events', 'cursor=cur_abc.def', 'invalid_cursor'],
  ];
  it.each(cases)('%s?%s is 400 %s', async (path, q, code) => {
    const ws = await refusedReads(1);
    const res = await raw(ws, 'GET', `${path}?${q}`);
    expectClientError(res, q);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe(code);
  });
});

describe.each(writeRoutes.filter((r) => r.method === 'DELETE').map((r) => [label(r), r] as const))(
  'odd requests on %s',
  (_name, route) => {
    it('a body on DELETE, a huge body, or a malformed id are 4xx', async () => {
      const ws = await refusedWrites(3);
      expectClientError(await raw(ws, 'DELETE', pathFor(route, ws), Buffer.from('{oops')), 'malformed body');
      expectClientError(
        await raw(ws, 'DELETE', pathFor(route, ws), Buffer.from('x'.repeat(1024 * 1024 + 1))),
        'huge body',
      );
      const weird = route.path.replace(/:[A-Za-z]+/g, encodeURIComponent("'; DROP TABLE x; --"));
      expectClientError(await raw(ws, 'DELETE', weird), 'odd id');
    });
  },
);

describe('ids in paths', () => {
  it.each(routes.filter((r) => r.path.includes(':')).map((r) => [label(r), r] as const))(
    '%s with malformed ids is a 4xx',
    async (_n, route) => {
      const ws = await refusedWrites(9);
      for (const id of [
        'x',
        '%00',
        'a%00b',
        '%ED%A0%80',
        '%E2%80%AE',
        '%FF',
        'a'.repeat(2000),
        "'or'1'='1",
        '..%2F..%2Fetc',
      ]) {
        const path = route.path.replace(/:[A-Za-z]+/g, id);
        const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : Buffer.from('{}');
        const res = await raw(ws, route.method, path, body, { 'idempotency-key': randomUUID() });
        expectClientError(res, `${route.method} ${path.slice(0, 80)}`);
      }
    },
  );
});

describe('unknown routes', () => {
  it.each([
    ['GET', '/v1/nope'],
    ['POST', '/v1/nope'],
    ['GET', '/nope'],
    ['GET', '/v2/api-keys'],
    ['PUT', '/v1/api-keys'],
    ['PATCH', '/v1/events'],
    ['GET', '/v1/api-keys/x/y'],
  ])('%s %s is a 404 envelope', async (method, path) => {
    const ws = await refusedWrites(1);
    const res = await raw(ws, method, path, method === 'GET' ? undefined : Buffer.from('{}'));
    expect(res.status).toBe(404);
    expectClientError(res, path);
    expect(res.json.error.code).toBe('not_found');
  });

  it('unsigned requests to unknown routes are also 404 envelopes', async () => {
    const res = await fetch(`${server.url}/v1/definitely-not-here`);
    expect(res.status).toBe(404);
    const json = await res.json();
    expect(json).toMatchObject({ data: null, error: { code: 'not_found' } });
  });
});

describe('POST /graphql with bad input', () => {
  it.each(bodies)('%s is never a 500', async (what, body) => {
    const ws = await refusedWrites(1);
    const res = await raw(ws, 'POST', '/graphql', body);
    expect(res.status, `${what}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
  });

  it('a body over 1 MiB is 413', async () => {
    const ws = await refusedWrites(1);
    const res = await raw(
      ws,
      'POST',
      '/graphql',
      Buffer.from(JSON.stringify({ query: '{ __typename }', pad: 'y'.repeat(1024 * 1024 + 16) })),
    );
    expect(res.status).toBe(413);
  });
});

describe('POST /graphql with unstorable variables', () => {
  it('a NUL character in a variable is a 400 naming the variable', async () => {
    const ws = await refusedWrites(1);
    const query = 'mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { id } }';
    const res = await raw(
      ws,
      'POST',
      '/graphql',
      Buffer.from(JSON.stringify({ query, variables: { input: { name: 'a\u0000b' } } })),
    );
    expect(res.status).toBe(400);
    expect(res.json.errors[0].extensions).toMatchObject({ code: 'validation_error', field: 'input' });
  });
});

describe('POST /graphql with a deeply nested document', () => {
  // graphql-js parses recursively: thousands of levels overflowed its stack and answered internal_error.
  const documents: [string, (n: number) => string][] = [
    ['a list literal', (n) => `{ checkoutSessions(first: ${'['.repeat(n)}1${']'.repeat(n)}) { totalCount } }`],
    ['a selection set', (n) => `{ ${'a { '.repeat(n)}b${' }'.repeat(n)} }`],
    ['an object literal', (n) => `{ checkoutSessions(filter: ${'{a: '.repeat(n)}1${'}'.repeat(n)}) { totalCount } }`],
  ];
  it.each(documents)(
    '%s nested 5,000 levels deep is a syntax error, not an internal error',
    async (_what, document) => {
      const ws = await refusedReads(2);
      // POST runs in process (parseCached); GET goes through yoga's own parse (its URL caps the size).
      for (const [method, path, body] of [
        ['POST', '/graphql', Buffer.from(JSON.stringify({ query: document(5000) }))],
        ['GET', `/graphql?query=${encodeURIComponent(document(65))}`, undefined],
      ] as const) {
        const res = await raw(ws, method, path, body);
        expect(res.status).toBeLessThan(500);
        expect(res.text).toContain('nests deeper than 64 levels');
        expect(res.text).not.toContain('internal_error');
      }
    },
  );

  it('brackets inside strings and comments do not count', async () => {
    const ws = await refusedReads(2);
    const deep = '[{('.repeat(100);
    const query = `# ${deep}\n{ customer(id: "cus_${deep}\\"${deep}") { id } block: customer(id: """${deep}""") { id } }`;
    const res = await raw(ws, 'POST', '/graphql', Buffer.from(JSON.stringify({ query })));
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('nests deeper');
    expect(res.json.errors[0].extensions.code).toBe('not_found');
  });
});
