// Cross-origin requests (docs/decisions.md, Cross-origin requests): no route reflects another origin
// or allows credentials, so a page elsewhere cannot read an answer made with a member's cookie; the
// dashboard is same-origin and needs no CORS; key-signed clients are servers and need none either.
import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/server.ts';
import { signIn, useDevIdp } from '../helpers/dashboard.ts';
import { hostedToken } from '../helpers/payments.ts';
import { newId } from '../../src/core/ids.ts';

const server = useServer();
useDevIdp(server);

const EVIL = 'https://evil.example';
const preflight = {
  origin: EVIL,
  'access-control-request-method': 'POST',
  'access-control-request-headers': 'content-type, authorization, x-svc-csrf',
};

/** No answer lets another origin in: no allow-origin at all, never credentials. */
function expectNoCors(res: Response | { headers: Headers }, what: string) {
  const allow = res.headers.get('access-control-allow-origin');
  expect(allow, what).not.toBe(EVIL);
  expect(allow, what).not.toBe('*');
  expect(allow, what).toBeNull();
  expect(res.headers.get('access-control-allow-credentials'), what).toBeNull();
}

describe('cross-origin requests', () => {
  it('/graphql: a preflight, a signed request, a malformed one and a cookie request from another origin get no CORS', async () => {
    const ws = await server.workspace();
    const options = await fetch(`${server.url}/graphql`, { method: 'OPTIONS', headers: preflight });
    expectNoCors(options, 'OPTIONS /graphql');
    const signed = await ws.client.graphql('{ customers(first: 1) { edges { node { id } } } }', {}, { origin: EVIL });
    expect(signed.status, signed.text).toBe(200);
    expectNoCors(signed, 'signed POST /graphql');
    // Answered by graphql-yoga itself (not JSON): the path that carried its default CORS.
    const malformed = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { origin: EVIL, 'content-type': 'text/plain', authorization: 'x' },
      body: 'x',
    });
    expectNoCors(malformed, 'malformed POST /graphql');
    const s = await signIn(server.url, 'owner@example.com');
    const cookie = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { origin: EVIL, 'content-type': 'application/json', cookie: s.cookie, 'x-svc-csrf': s.csrf },
      body: JSON.stringify({ query: '{ customers(first: 1) { edges { node { id } } } }' }),
    });
    expectNoCors(cookie, 'cookie POST /graphql');
  });

  it('REST /v1 and the hosted pages answer another origin without CORS', async () => {
    const ws = await server.workspace();
    const options = await fetch(`${server.url}/v1/customers`, { method: 'OPTIONS', headers: preflight });
    expectNoCors(options, 'OPTIONS /v1/customers');
    const list = await ws.client.get('/v1/customers', { origin: EVIL });
    expect(list.status, list.text).toBe(200);
    expectNoCors(list, 'GET /v1/customers');
    const s = await ws.client.post(
      '/v1/checkout-sessions',
      {
        amount: 1000,
        currency: 'IDR',
        methods: ['qris'],
        successUrl: 'https://shop.example/ok',
        cancelUrl: 'https://shop.example/cart',
      },
      { 'idempotency-key': newId('request') },
    );
    expect(s.status, s.text).toBe(201);
    const page = `${server.url}/c/${await hostedToken(s.json.data.id)}`;
    const hosted = await fetch(page, { headers: { origin: EVIL } });
    expect(hosted.status).toBe(200);
    expectNoCors(hosted, 'GET hosted page');
    expectNoCors(await fetch(page, { method: 'OPTIONS', headers: preflight }), 'OPTIONS hosted page');
  });

  it('the dashboard (same origin) still works: its GraphQL request with its own Origin is answered', async () => {
    await server.workspace();
    const s = await signIn(server.url, 'owner@example.com');
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { origin: server.url, 'content-type': 'application/json', cookie: s.cookie, 'x-svc-csrf': s.csrf },
      body: JSON.stringify({ query: '{ customers(first: 1) { edges { node { id } } } }' }),
    });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });
});
