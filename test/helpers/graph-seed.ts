import type pg from 'pg';

export interface GraphSeed {
  workspaceId: string;
  mode: 'test' | 'live';
  /** Distinguishes the ids of several seeds in one database. */
  tag: string;
  customers: number;
  paymentsPerCustomer: number;
  /** Every n-th payment gets one refund (0: none). */
  refundEvery?: number;
  /** Two balanced ledger entries per payment's session. */
  ledger?: boolean;
}

/**
 * A customer graph written with set-based SQL (generate_series), as the owner: customers, one
 * completed checkout session, payment and receipt per payment, some refunds. Rows satisfy the
 * tables' keys, checks and composite foreign keys; they are read-side fixtures (the graph's edges,
 * `npm run bench:graph`), not a replay of the money path. Ids are `<kind>_<tag>_<customer>_<n>`;
 * the newest payment of a customer is its n = 1.
 */
export async function seedGraph(pool: pg.Pool | pg.Client, s: GraphSeed) {
  const p = [s.workspaceId, s.mode, s.tag, s.customers, s.paymentsPerCustomer, s.refundEvery ?? 0];
  const grid = `generate_series(1, $4::int) c CROSS JOIN generate_series(1, $5::int) n`;
  const id = (kind: string) => `'${kind}_' || $3 || '_' || c || '_' || n`;
  const at = `now() - make_interval(secs => (c * $5::int + n))`;
  await pool.query(
    `INSERT INTO customers (id, "workspaceId", mode, name, email, "createdAt", "updatedAt")
     SELECT 'cus_' || $3 || '_' || c, $1, $2, 'Customer ' || c, 'c' || c || '@' || $3 || '.example',
       now() - make_interval(days => c), now()
     FROM generate_series(1, $4::int) c`,
    p.slice(0, 4),
  );
  await pool.query(
    `INSERT INTO checkout_sessions (id, "workspaceId", mode, status, amount, currency, methods, "successUrl",
       "cancelUrl", "customerId", "expiresAt", "completedAt", "paymentId", "createdAt", "updatedAt")
     SELECT ${id('cs')}, $1, $2, 'completed', 10000 + n, 'IDR', '{card}', 'https://shop.example/ok',
       'https://shop.example/cancel', 'cus_' || $3 || '_' || c, ${at} + interval '1 hour', ${at}, ${id('pay')},
       ${at}, ${at}
     FROM ${grid}`,
    p.slice(0, 5),
  );
  await pool.query(
    `INSERT INTO payments (id, "workspaceId", mode, status, amount, "amountRefunded", currency, method, adapter,
       "customerId", "checkoutSessionId", "capturedAt", "createdAt", "updatedAt")
     SELECT ${id('pay')}, $1, $2, CASE WHEN $6::int > 0 AND n % $6::int = 0 THEN 'partially_refunded' ELSE 'succeeded' END,
       10000 + n, CASE WHEN $6::int > 0 AND n % $6::int = 0 THEN 100 ELSE 0 END, 'IDR', 'card', 'managed',
       'cus_' || $3 || '_' || c, ${id('cs')}, ${at}, ${at}, ${at}
     FROM ${grid}`,
    p,
  );
  // Fresh statistics first: the foreign-key checks below are planned from them, and a table that
  // looks empty is scanned once per inserted row (quadratic at bench scale).
  await pool.query('ANALYZE customers, checkout_sessions, payments');
  await pool.query(
    `INSERT INTO receipts (id, "workspaceId", mode, number, "sourceType", "sourceId", "paymentId", "customerId",
       status, "paidAt", amount, currency, method, merchant, "lineItems", subtotal, total, template, "issuedAt",
       "createdAt")
     SELECT ${id('rcpt')}, $1, $2,
       'SVC-RCPT-2026-01-' || lpad((base.n0 + row_number() OVER ())::text, 7, '0'), 'checkout_session', ${id('cs')},
       ${id('pay')}, 'cus_' || $3 || '_' || c, 'paid', ${at}, 10000 + n, 'IDR', 'card', '{}', '[]', 10000 + n,
       10000 + n, '{}', ${at}, ${at}
     FROM ${grid}, (SELECT count(*) AS n0 FROM receipts WHERE "workspaceId" = $1 AND mode = $2) base`,
    p.slice(0, 5),
  );
  if (s.refundEvery)
    await pool.query(
      `INSERT INTO refunds (id, "workspaceId", mode, "paymentId", amount, currency, status, "createdAt", "updatedAt")
       SELECT ${id('rf')}, $1, $2, ${id('pay')}, 100, 'IDR', 'succeeded', ${at} + interval '1 minute',
         ${at} + interval '1 minute'
       FROM ${grid} WHERE n % $6::int = 0`,
      p,
    );
  if (s.ledger)
    await pool.query(
      `INSERT INTO ledger_entries (id, "workspaceId", mode, "txId", code, direction, amount, currency, "sourceType",
         "sourceId", "postedAt")
       SELECT ${id('le')} || '_' || d.direction, $1, $2, ${id('tx')}, d.code, d.direction, 10000 + n, 'IDR',
         'checkout_session', ${id('cs')}, ${at}
       FROM ${grid} CROSS JOIN (VALUES ('gateway:managed', 'debit'), ('payments', 'credit')) d(code, direction)`,
      p.slice(0, 5),
    );
}
