// The OpenAPI document: current on disk, valid OpenAPI 3.1, served publicly, derived from the
// route table (a new route appears by itself), true to what the server answers, and usable by
// a mainstream generator: openapi-typescript types driving signed openapi-fetch calls.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import createFetchClient, { type Middleware } from 'openapi-fetch';
import type { paths } from '../../src/client/generated/openapi.ts';
import {
  clientOperationsFile,
  clientTypesFile,
  openApiFile,
  printedClientOperations,
  printedClientTypes,
  printedOpenApi,
} from '../../scripts/openapi.ts';
import { buildOpenApi } from '../../rest-compat/openapi.ts';
import { routes } from '../../rest-compat/routes.ts';
import { edgeRoutes } from '../../src/server/edge-routes.ts';
import { schema } from '../../schema/index.ts';
import { statusOf } from '../../src/core/errors.ts';
import { machines } from '../../src/modules/state-machines.ts';
import { isObjectType } from 'graphql';
import { signRequest } from '../../src/core/auth/signing.ts';
import { useServer } from '../helpers/server.ts';
import { sandboxPayment } from '../helpers/payments.ts';
import { isId, prefixes, type IdKind } from '../../src/core/ids.ts';
import { randomUUID } from 'node:crypto';

const kindOf = Object.fromEntries(Object.entries(prefixes).map(([k, p]) => [p, k as IdKind]));

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Op>>;
  components: Record<string, Record<string, any>>;
};
type Op = {
  operationId: string;
  parameters: { name?: string; in?: string; required?: boolean; $ref?: string }[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: unknown }> }>;
};

const server = useServer();
const doc = JSON.parse(printedOpenApi()) as Doc;
const ops = Object.values(doc.paths).flatMap((p) => Object.values(p));
const opOf = (id: string) => ops.find((o) => o.operationId === id)!;
const errorCodes = (op: Op, status: number): string[] => {
  const ref = op.responses[status]?.$ref;
  if (!ref) return [];
  const r = doc.components.responses[ref.replace('#/components/responses/', '')];
  return r.content['application/json'].schema.allOf[1].properties.error.properties.code.enum;
};

describe('generated files are current', () => {
  it('schema/openapi.json and the client generated from it are what `npm run openapi` writes', async () => {
    const stale = (file: string, text: string) =>
      expect(
        readFileSync(file, 'utf8') === text,
        `${file} is stale: run \`npm run openapi\` and commit the result`,
      ).toBe(true);
    stale(openApiFile, printedOpenApi());
    stale(clientTypesFile, await printedClientTypes(doc));
    stale(clientOperationsFile, printedClientOperations(doc));
  }, 30_000);
});

describe('the document', () => {
  it('is valid OpenAPI 3.1 (@seriousme/openapi-schema-validator, with every $ref resolved)', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('has every route of the table once, under its id, with the route status', () => {
    const documentedEdge = edgeRoutes.flatMap((r) => (r.api ? [r.api.id] : []));
    // The reconciliation upload: a raw body, mounted on its own (src/server/uploads.ts).
    const upload = 'uploadReconciliationImport';
    expect(ops.map((o) => o.operationId).sort()).toEqual(
      [...routes.map((r) => r.id), ...documentedEdge, upload].sort(),
    );
    expect(Object.keys(opOf(upload).responses).slice(0, 2)).toEqual(['200', '201']);
    for (const r of routes) {
      const op = opOf(r.id);
      expect(doc.paths[r.path.replace(/:(\w+)/g, '{$1}')][r.method.toLowerCase()]).toBe(op);
      expect(Object.keys(op.responses)[0]).toBe(String(r.status ?? 200));
    }
  });

  it("documents each route's error codes as the route spells them, each under its own status", () => {
    for (const r of routes) {
      const op = opOf(r.id);
      // every route is signed and rate limited
      expect(errorCodes(op, 401)).toEqual(['invalid_signature', 'invalid_key']);
      expect(errorCodes(op, 429)).toEqual(['RATE_LIMITED']);
      if (r.path.includes(':')) expect(errorCodes(op, 404)).toHaveLength(1);
      for (const code of r.errors ?? []) expect(Object.keys(op.responses)).toContain(String(statusOf[code]));
    }
    // spellings per resource (spec Errors): plans and refunds differ from checkout and API keys
    expect(errorCodes(opOf('createPlan'), 409)).toContain('IDEMPOTENCY_MISMATCH');
    expect(errorCodes(opOf('createPlan'), 400)).toContain('VALIDATION_ERROR');
    expect(errorCodes(opOf('getRefund'), 404)).toEqual(['NOT_FOUND']);
    expect(errorCodes(opOf('createRefund'), 409)).toContain('IDEMPOTENCY_CONFLICT');
    expect(errorCodes(opOf('createApiKey'), 400)).toContain('validation_error');
    expect(errorCodes(opOf('listApiKeys'), 400)).toEqual(['validation_error', 'invalid_limit', 'invalid_cursor']);
    expect(errorCodes(opOf('createCheckoutSession'), 400)).toContain('idempotency_required');
    expect(errorCodes(opOf('createApiKey'), 400)).not.toContain('idempotency_required');
  });

  it('reads parameters and bodies from what each route uses', () => {
    const names = (op: Op, where: string) => op.parameters.filter((p) => p.in === where).map((p) => p.name);
    expect(names(opOf('listApiKeys'), 'query')).toEqual(['limit', 'cursor', 'environment', 'includeRevoked']);
    // aliases: `since` fills occurredAfter as the spec's name for it
    expect(names(opOf('listEvents'), 'query')).toEqual(expect.arrayContaining(['since', 'until', 'occurredAfter']));
    expect(names(opOf('listCustomers'), 'query')).toContain('metadata');
    expect(names(opOf('retryWebhookDelivery'), 'path')).toEqual(['id', 'deliveryId']);
    // a route that reads no limit has none, even when its variables function goes through listQuery
    expect(names(opOf('getPayoutBalance'), 'query')).not.toContain('limit');
    // the Idempotency-Key is required exactly where the mutation field says so
    const key = (id: string) => opOf(id).parameters.find((p) => p.name === 'Idempotency-Key');
    expect(key('createRefund')?.required).toBe(true);
    expect(key('createCustomer')?.required).toBe(false);
    expect(key('getCustomer')).toBeUndefined();
    expect(opOf('createCustomer').requestBody!.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/CreateCustomerInput',
    });
    expect(doc.components.schemas.CreateCustomerInput.additionalProperties).toBe(false);
    expect(opOf('emailReceipt').requestBody!.content['application/json'].schema).toMatchObject({
      properties: { to: {} },
      additionalProperties: false,
    });
    expect(doc.components.securitySchemes.SvcSignature).toMatchObject({ type: 'apiKey', name: 'Authorization' });
  });

  it("marks a query parameter required where the server requires it: a report's from and to", async () => {
    const ws = await server.workspace();
    for (const id of ['getPnlReport', 'getCashFlowReport']) {
      const required = Object.fromEntries(
        opOf(id)
          .parameters.filter((p) => p.in === 'query')
          .map((p) => [p.name, p.required]),
      );
      expect(required).toEqual({ from: true, to: true, currency: false });
      const path = Object.entries(doc.paths).find(([, o]) => o.get?.operationId === id)![0];
      for (const [query, missing] of [
        ['to=2026-01-31', 'from'],
        ['from=2026-01-01', 'to'],
      ]) {
        const r = await ws.client.get(`${path}?${query}`);
        expect([id, r.status, r.json.error.code, r.json.error.field]).toEqual([id, 400, 'validation_error', missing]);
      }
      expect((await ws.client.get(`${path}?from=2026-01-01&to=2026-01-31`)).status).toBe(200);
    }
  });

  it("lists each status field's and status filter's values from its state machine", () => {
    const statusEnum = (component: string) => doc.components.schemas[component].properties.status.enum;
    expect(statusEnum('Payment')).toEqual([...machines.payment.statuses]);
    expect(statusEnum('Refund')).toEqual([...machines.refund.statuses]);
    expect(statusEnum('Payout')).toEqual([...machines.payout.statuses]);
    expect(statusEnum('WebhookEndpoint')).toEqual([...machines.webhook_endpoint.statuses]);
    expect(statusEnum('WebhookDelivery')).toEqual([...machines.webhook_delivery.statuses]);
    const filter = (id: string) => (opOf(id).parameters.find((p) => p.name === 'status') as any).schema.enum;
    expect(filter('listInvoices')).toEqual([...machines.invoice.statuses]);
    expect(filter('listWebhookDeliveries')).toEqual([...machines.webhook_delivery.statuses]);
    // the link is the machine itself: every declared list is one of the registry's, not a copy
    const registered = Object.values(machines).map((m) => m.statuses as unknown);
    let declared = 0;
    for (const type of Object.values(schema.getTypeMap()).filter(isObjectType)) {
      for (const field of Object.values(type.getFields())) {
        for (const ext of [field.extensions, ...field.args.map((a) => a.extensions)]) {
          if (!('statuses' in ext)) continue;
          declared++;
          expect(registered, `${type.name}.${field.name}`).toContain(ext.statuses);
        }
      }
    }
    expect(declared).toBeGreaterThan(15);
    // a status outside the machine does not validate
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'doc', components: doc.components } as never);
    const status = ajv.compile({ $ref: 'doc#/components/schemas/WebhookEndpoint/properties/status' });
    expect(status('active')).toBe(true);
    expect(status('paused')).toBe(false);
  });

  it('documents the routes outside GraphQL that declare an API entry: every signed one', () => {
    for (const r of edgeRoutes) expect(!!r.api, `${r.method} ${r.url}`).toBe(r.auth === 'key');
    const pdf = doc.paths['/v1/invoices/{id}/pdf'].get as any;
    expect(pdf.operationId).toBe('getInvoicePdfLink');
    expect(Object.keys(pdf.responses)).toEqual(['302', '400', '401', '403', '404', '429', '500', '503']);
    expect(pdf.responses['302'].headers.Location.required).toBe(true);
    expect(errorCodes(pdf, 404)).toEqual(['not_found']);
    const csv = doc.paths['/v1/reports/ledger.csv'].get as any;
    expect(Object.keys(csv.responses['200'].content)).toEqual(['text/csv']);
    expect(csv.parameters.filter((p: any) => p.in === 'query' && p.required).map((p: any) => p.name)).toEqual([
      'from',
      'to',
    ]);
    expect(errorCodes(csv, 403)).toEqual(['insufficient_scope']);
    // hosted pages and provider callbacks are not the API
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith('/v1/'))).toEqual([]);
  });

  it('takes a new route from the table without another edit', () => {
    routes.push({ ...routes.find((r) => r.id === 'getCustomer')!, path: '/v1/customers/:id/twin' });
    try {
      const next = buildOpenApi(schema) as Doc;
      expect(next.paths['/v1/customers/{id}/twin'].get.operationId).toBe('getCustomer');
    } finally {
      routes.pop();
    }
  });
});

describe('served and true to the server', () => {
  it('GET /v1/openapi.json is public and the same document', async () => {
    const res = await fetch(`${server.url}/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual(doc);
  });

  it("real responses validate against their route's schema (success and errors)", async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'doc', components: doc.components } as never);
    const check = (id: string, status: number, body: unknown) => {
      const op = opOf(id);
      const response = op.responses[status];
      expect(response, `${id} documents ${status}`).toBeDefined();
      const content = response.$ref
        ? doc.components.responses[response.$ref.split('/').pop()!].content
        : response.content;
      const schemaOf = JSON.parse(JSON.stringify(content!['application/json'].schema).replaceAll('"#/', '"doc#/'));
      const validate = ajv.compile(schemaOf);
      expect(validate(body), `${id} ${status}: ${JSON.stringify(validate.errors)}`).toBe(true);
    };
    const { client, apiKeyId } = await server.workspace();
    const created = await client.post('/v1/customers', { name: 'Ani', email: 'ani@example.com', metadata: { k: 'v' } });
    check('createCustomer', 201, created.json);
    check('listCustomers', 200, (await client.get('/v1/customers?limit=1')).json);
    check('getCustomer', 200, (await client.get(`/v1/customers/${created.json.data.id}`)).json);
    const missing = await client.get('/v1/customers/cus_01J00000000000000000000000');
    expect(missing.status).toBe(404);
    check('getCustomer', 404, missing.json);
    const bad = await client.get('/v1/customers?limit=0');
    check('listCustomers', 400, bad.json);
    check('listApiKeys', 200, (await client.get('/v1/api-keys')).json);
    check('getAdapters', 200, (await client.get('/v1/adapters')).json);
    check('listEvents', 200, (await client.get('/v1/events')).json);
    const clock = await client.post('/v1/test-clocks', { frozenTime: '2025-01-31T00:00:00.000Z' });
    expect(clock.status, JSON.stringify(clock.json)).toBe(201);
    check('createTestClock', 201, clock.json); // status within the test clock machine's
    check('listWebhookEndpoints', 200, (await client.get('/v1/webhook-endpoints?status=active')).json);
    // domain errors: each within the codes its route documents
    const self = await client.delete(`/v1/api-keys/${apiKeyId}`);
    expect(self.status).toBe(409);
    check('revokeApiKey', 409, self.json);
    const keyless = await client.post('/v1/checkout-sessions', {});
    expect(keyless.status).toBe(400);
    check('createCheckoutSession', 400, keyless.json);
    const unsupported = await client.post('/v1/plans', { name: 'P', prices: [] }, { 'idempotency-key': 'p-1' });
    check('createPlan', unsupported.status, unsupported.json);
    const csvBad = await client.get('/v1/reports/ledger.csv?from=2026-01-01');
    expect(csvBad.status).toBe(400);
    check('downloadLedgerCsv', 400, csvBad.json);
    const pdfMissing = await client.get('/v1/invoices/inv_01JCKZ3V6Q8Y2X4W5T7R9P0M1N/pdf');
    check('getInvoicePdfLink', 404, pdfMissing.json);
    // and a document that does not match fails: the check can fail
    const ajvFails = ajv.compile({ $ref: 'doc#/components/schemas/Customer' });
    expect(ajvFails({ ...created.json.data, email: 42 })).toBe(false);
  });
});

describe('examples', () => {
  /** Every (schema, example) pair of the document: request bodies, responses, shared error examples. */
  function examples(): { where: string; schema: unknown; example: unknown }[] {
    const out: { where: string; schema: unknown; example: unknown }[] = [];
    for (const op of ops) {
      for (const [type, c] of Object.entries(op.requestBody?.content ?? {}) as [string, any][])
        if ('example' in c) out.push({ where: `${op.operationId} body ${type}`, schema: c.schema, example: c.example });
      for (const [status, r] of Object.entries(op.responses) as [string, any][])
        for (const [type, c] of Object.entries(r.content ?? {}) as [string, any][])
          if ('example' in c)
            out.push({ where: `${op.operationId} ${status} ${type}`, schema: c.schema, example: c.example });
    }
    for (const [name, r] of Object.entries(doc.components.responses))
      for (const c of Object.values(r.content ?? {}) as any[])
        for (const [code, ex] of Object.entries(c.examples ?? {}) as [string, any][])
          out.push({
            where: `response ${name} example ${code}`,
            schema: c.schema,
            example: doc.components.examples[ex.$ref.split('/').pop()].value,
          });
    return out;
  }
  /** Our id fields (`id`, `...Id`, `...Ids`), except the few that hold another party's identifier. */
  const NOT_OUR_IDS = new Set([
    'keyId',
    'merchantId',
    'clientId',
    'subAccountId',
    'merchantTaxId',
    'operationId',
    'transactionId',
    'settlementId',
  ]);
  function idsIn(value: unknown, key = '', out: [string, string][] = []): [string, string][] {
    if (Array.isArray(value)) for (const v of value) idsIn(v, key, out);
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) idsIn(v, k, out);
    else if (typeof value === 'string' && (key === 'id' || /Ids?$/.test(key)) && !NOT_OUR_IDS.has(key))
      out.push([key, value]);
    return out;
  }

  it('every example validates against its schema, and every id in it has a prefix of src/core/ids.ts', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'doc', components: doc.components } as never);
    const all = examples();
    expect(all.length).toBeGreaterThan(100);
    const known = new Set<string>(Object.values(prefixes));
    const problems: string[] = [];
    for (const { where, schema, example } of all) {
      const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/', '"doc#/')));
      if (!validate(example)) problems.push(`${where}: ${ajv.errorsText(validate.errors)}`);
      for (const [key, id] of idsIn(example)) {
        const prefix = id.slice(0, id.indexOf('_'));
        if (!known.has(prefix) || !isId(kindOf[prefix], id)) problems.push(`${where}: ${key} ${id}`);
      }
    }
    expect(problems).toEqual([]);
    // A resource's own id carries its own prefix.
    const example = (id: string) => opOf(id).responses[Object.keys(opOf(id).responses)[0]].content!['application/json'];
    expect((example('getRefund') as any).example.data.id).toMatch(/^rf_/);
    expect((example('getPayment') as any).example.data.id).toMatch(/^pay_/);
    expect((example('getApiKey') as any).example.data.id).toMatch(/^akey_/);
  });

  it('the createRefund example, sent as is by a client, is refused only because its payment does not exist; with a real payment it is a refund', async () => {
    const ws = await server.workspace();
    const body = (opOf('createRefund').requestBody!.content['application/json'] as any).example;
    const asIs = await ws.client.post('/v1/refunds', body, { 'idempotency-key': randomUUID() });
    // (refunds spell their codes upper case: src/core/errors.ts)
    expect({ status: asIs.status, code: asIs.json.error?.code?.toLowerCase() }, asIs.text).toEqual({
      status: 404,
      code: 'not_found',
    });
    const paymentId = (await sandboxPayment(server, ws)).id;
    const real = await ws.client.post(
      '/v1/refunds',
      { ...body, chargeId: paymentId },
      { 'idempotency-key': randomUUID() },
    );
    expect(real.status, real.text).toBe(201);
    expect(real.json.data).toMatchObject({ chargeId: paymentId, amount: body.amount, reason: body.reason });
  });
});

describe('openapi-typescript types with openapi-fetch', () => {
  it('make signed calls to a real server', async () => {
    const { keyId, secret } = await server.workspace();
    // Sign what is sent: the path and query as they go out, and the body bytes.
    const signing: Middleware = {
      async onRequest({ request }) {
        const url = new URL(request.url);
        const body = request.body ? await request.clone().text() : '';
        const headers = signRequest({ keyId, secret, method: request.method, target: url.pathname + url.search, body });
        for (const [k, v] of Object.entries(headers)) request.headers.set(k, v);
        return request;
      },
    };
    const api = createFetchClient<paths>({ baseUrl: server.url });
    api.use(signing);

    const created = await api.POST('/v1/customers', { body: { name: 'Budi', email: 'budi@example.com' } });
    expect(created.response.status).toBe(201);
    const id = created.data!.data.id;
    expect(id).toMatch(/^cus_/);

    const got = await api.GET('/v1/customers/{id}', { params: { path: { id } } });
    expect(got.data?.data.email).toBe('budi@example.com');

    const page = await api.GET('/v1/customers', { params: { query: { limit: 1, order: 'asc' } } });
    expect(page.data?.data).toHaveLength(1);
    expect(page.data?.meta.page.limit).toBe(1);

    const refund = await api.POST('/v1/refunds', {
      params: { header: { 'Idempotency-Key': 'k-1' } },
      body: { chargeId: 'pay_01J00000000000000000000000', amount: 100 },
    });
    expect(refund.response.status).toBe(404);
    expect(refund.error?.error.code).toBe('NOT_FOUND');
  });
});
