import { expect } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { TestServer, Workspace } from './server.ts';
import { db } from './server.ts';
import { config } from '../../src/core/config.ts';

/**
 * The token of a session's hosted URL (`<id>_<secret>`), as the merchant has it in `hostedUrl`;
 * tests that hold only the id read the secret from the database.
 */
export async function hostedToken(sessionId: string): Promise<string> {
  const { rows } = await db().system.query(`SELECT "hostedSecret" FROM checkout_sessions WHERE id = $1`, [sessionId]);
  if (!rows[0]) throw new Error(`no checkout session ${sessionId}`);
  return `${sessionId}_${rows[0].hostedSecret}`;
}

/** The hosted page's own calls (public, unsigned), for the session `id`. */
export async function hosted(server: TestServer, id: string, path: string, body: unknown) {
  const res = await fetch(`${server.url}/c/${await hostedToken(id)}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text) as any, text };
}

/** A checkout session the customer starts paying with `method` (sandbox or a connected adapter). */
export async function startPayment(
  server: TestServer,
  ws: Workspace,
  opts: { amount?: number; currency?: string; method?: string; customerId?: string } = {},
) {
  const method = opts.method ?? 'card';
  const s = await ws.client.post(
    '/v1/checkout-sessions',
    {
      amount: opts.amount ?? 100000,
      currency: opts.currency ?? 'IDR',
      methods: [method],
      successUrl: 'https://shop.example/thanks',
      cancelUrl: 'https://shop.example/cart',
      ...(opts.customerId ? { customerId: opts.customerId } : {}),
    },
    { 'idempotency-key': randomUUID() },
  );
  expect(s.status, s.text).toBe(201);
  const a = await hosted(server, s.json.data.id, '/attempt', { method });
  expect(a.status, a.text).toBe(200);
  return s.json.data.id as string;
}

/** A captured test-mode payment through the managed sandbox; returns the payment. */
export async function sandboxPayment(
  server: TestServer,
  ws: Workspace,
  opts: { amount?: number; currency?: string; method?: string; customerId?: string } = {},
) {
  const sessionId = await startPayment(server, ws, opts);
  const done = await hosted(server, sessionId, '/simulate', { outcome: 'success' });
  expect(done.status, done.text).toBe(200);
  const session = (await ws.client.get(`/v1/checkout-sessions/${sessionId}`)).json.data;
  return (await ws.client.get(`/v1/payments/${session.paymentId}`)).json.data as {
    id: string;
    amount: number;
    status: string;
    amountRefunded: number;
    currency: string;
  };
}

export const providerRefOf = async (sessionId: string) =>
  (await db().system.query(`SELECT "providerReference" FROM checkout_sessions WHERE id = $1`, [sessionId])).rows[0]
    .providerReference as string;

/** Every txId of a workspace balances per currency (the database refuses otherwise; this proves it held). */
export async function unbalancedTxIds(workspaceId: string): Promise<string[]> {
  const { rows } = await db().system.query(
    `SELECT "txId" FROM ledger_entries WHERE "workspaceId" = $1 GROUP BY "txId", currency
      HAVING sum(CASE direction WHEN 'debit' THEN amount ELSE -amount END) <> 0`,
    [workspaceId],
  );
  return rows.map((r) => r.txId);
}

/** Lifts the rate limits for tests that are about concurrency, not rate limits. */
export async function unthrottled<T>(fn: () => Promise<T>): Promise<T> {
  const saved = { ...config.rateLimits };
  for (const k of Object.keys(config.rateLimits) as (keyof typeof config.rateLimits)[])
    config.rateLimits[k] = { perSec: 100_000, burst: 100_000 };
  try {
    return await fn();
  } finally {
    Object.assign(config.rateLimits, saved);
  }
}

/**
 * An open invoice paid through the platform: its hosted page's Pay button, then a managed-sandbox
 * card payment that succeeds (unlike POST /v1/invoices/:id/pay, money a refund can send back).
 */
export async function payInvoiceOnline(server: TestServer, invoiceId: string, method = 'card') {
  const { rows } = await db().system.query(`SELECT "hostedSecret" FROM invoices WHERE id = $1`, [invoiceId]);
  const res = await fetch(`${server.url}/i/${invoiceId}_${rows[0].hostedSecret}/pay`, {
    method: 'POST',
    redirect: 'manual',
  });
  expect(res.status).toBe(303);
  const sessionId = /\/c\/(cs_[0-9A-Z]+)_/.exec(res.headers.get('location')!)![1];
  const a = await hosted(server, sessionId, '/attempt', { method });
  expect(a.status, a.text).toBe(200);
  const done = await hosted(server, sessionId, '/simulate', { outcome: 'success' });
  expect(done.status, done.text).toBe(200);
  return sessionId;
}

/**
 * An open IDR invoice of 100,000 + 20,000 tax to a customer holding a 30,000 balance: the balance is
 * applied at issue, so 90,000 is due (the documents' "Balance applied" row).
 */
export async function invoiceWithBalanceApplied(ws: Workspace) {
  const cus = (await ws.client.post('/v1/customers', { name: 'Budi', email: 'budi@example.com' })).json.data.id;
  const credit = await ws.client.post(
    `/v1/customers/${cus}/balance-transactions`,
    { amount: 30_000, currency: 'IDR' },
    { 'idempotency-key': randomUUID() },
  );
  expect(credit.status, JSON.stringify(credit.json)).toBe(201);
  const created = await ws.client.post('/v1/invoices', {
    customerId: cus,
    currency: 'IDR',
    status: 'open',
    tax: 20_000,
    lines: [{ description: 'Konsultasi', quantity: 1, unitAmount: 100_000 }],
  });
  expect(created.json.data).toMatchObject({ total: 120_000, balanceApplied: 30_000, amountDue: 90_000 });
  return created.json.data;
}
