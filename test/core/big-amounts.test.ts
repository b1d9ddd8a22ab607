/**
 * Issue 12 item 14 (part): amounts past 2^53 are exact or refused, never a 500 and never rounded.
 * A line's unitAmount x quantity on the hosted page, and sums (ledger balances) in the Money scalar.
 */
import { describe, expect, it } from 'vitest';
import { useServer, db } from '../helpers/server.ts';
import { hostedToken, sandboxPayment, unthrottled } from '../helpers/payments.ts';
import { newId } from '../../src/core/ids.ts';

const server = useServer();
const MAX = Number.MAX_SAFE_INTEGER; // 9007199254740991

describe('amounts past 2^53', () => {
  it('a line whose unitAmount x quantity passes 2^53 - 1 is refused at creation: 400 naming the line', async () => {
    const ws = await server.workspace();
    const base = {
      amount: 1000,
      currency: 'IDR',
      methods: ['qris'],
      successUrl: 'https://shop.example/ok',
      cancelUrl: 'https://shop.example/cart',
    };
    const over = await ws.client.post(
      '/v1/checkout-sessions',
      {
        ...base,
        lineItems: [
          { name: 'Ok', quantity: 1, unitAmount: 5 },
          { name: 'Big', quantity: 2, unitAmount: MAX },
        ],
      },
      { 'idempotency-key': newId('request') },
    );
    expect(over.status, over.text).toBe(400);
    expect(over.json.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'lineItems[1].quantity' });
    const edge = await ws.client.post(
      '/v1/checkout-sessions',
      { ...base, lineItems: [{ name: 'Edge', quantity: 1, unitAmount: MAX }] },
      { 'idempotency-key': newId('request') },
    );
    expect(edge.status, edge.text).toBe(201);
  });

  it('the hosted page shows a stored line of unitAmount x quantity > 2^53 exactly (a session from before the rule)', async () => {
    const ws = await server.workspace();
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
    const lines = [
      { name: 'Many', quantity: 2 ** 31 - 1, unitAmount: MAX },
      { name: 'Big', quantity: 3, unitAmount: MAX },
    ];
    await db().system.query(`UPDATE checkout_sessions SET "lineItems" = $2 WHERE id = $1`, [
      s.json.data.id,
      JSON.stringify(lines),
    ]);
    const res = await fetch(`${server.url}/c/${await hostedToken(s.json.data.id)}`);
    const html = await res.text();
    expect(res.status, html).toBe(200);
    // (2^31 - 1) x (2^53 - 1) and 3 x (2^53 - 1), in id-ID grouping: exact, not rounded.
    expect(html).toContain('Rp 19.342.813.104.826.865.393.074.177');
    expect(html).toContain('Rp 27.021.597.764.222.973');
  });

  it('ledger balances summing past 2^53 serialize exactly over REST and GraphQL', async () => {
    const ws = await server.workspace();
    await unthrottled(async () => {
      for (let i = 0; i < 3; i++) await sandboxPayment(server, ws, { amount: MAX, method: 'qris' });
    });
    const rest = await ws.client.get('/v1/ledger/balances');
    expect(rest.status, rest.text).toBe(200);
    const gql = await ws.client.post('/graphql', {
      query: '{ ledgerBalances { code currency debits credits balance } }',
    });
    expect(gql.status, gql.text).toBe(200);
    for (const text of [rest.text, gql.text]) {
      expect(text).not.toMatch(/internal_error|INTERNAL/);
      // Three captures of 2^53 - 1: the sums are exact JSON integers, never rounded floats.
      expect(text).toMatch(/\b27021597764222973\b/);
      expect(text).not.toMatch(/2702159776422297[0-24-9]\b|e\+/);
    }
  });
});
