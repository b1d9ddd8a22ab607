// The money-path tables' own guarantees, checked in PostgreSQL (not through services): double
// entry at commit, gapless receipt numbers, frozen receipts, same-tenant references, dedupe keys.
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { useServer, db } from '../../helpers/server.ts';
import { inTenant, type Mode } from '../../../src/core/db/client.ts';
import { postLedger } from '../../../src/core/ledger.ts';
import { nextCounter, receiptNumber, invoiceNumber } from '../../../src/core/counters.ts';
import { newId } from '../../../src/core/ids.ts';

const server = useServer();
const scopeOf = (workspaceId: string, mode: Mode = 'test') => ({ workspaceId, modes: [mode] as Mode[], mode });

/** A raw connection as the app role with a tenant scope, for statements the services never send. */
async function asApp<T>(workspaceId: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: server.dbUrl });
  await c.connect();
  try {
    await c.query('SET ROLE svc_app');
    await c.query(`SELECT set_config('app.workspace_id', $1, false), set_config('app.modes', 'test', false)`, [
      workspaceId,
    ]);
    return await fn(c);
  } finally {
    await c.end();
  }
}

const leg = (code: string, direction: 'debit' | 'credit', amount: number) => ({ code, direction, amount });

describe('ledger: every txId balances at commit', () => {
  it('a balanced posting commits; its entries are positive amounts with a direction', async () => {
    const ws = await server.workspace();
    const txId = `cs_${Date.now()}`;
    await inTenant(scopeOf(ws.workspaceId), (tx) =>
      postLedger(
        tx,
        { workspaceId: ws.workspaceId, mode: 'test' },
        {
          txId,
          currency: 'IDR',
          sourceType: 'checkout_session',
          sourceId: txId,
          postedAt: new Date(),
          legs: [
            leg('payments', 'debit', 150_000),
            leg('revenue:checkout', 'credit', 136_500),
            leg('tax:ppn', 'credit', 13_500),
          ],
        },
      ),
    );
    const { rows } = await db().system.query(
      `SELECT code, direction, amount::text FROM ledger_entries WHERE "txId" = $1 ORDER BY code`,
      [txId],
    );
    expect(rows).toEqual([
      { code: 'payments', direction: 'debit', amount: '150000' },
      { code: 'revenue:checkout', direction: 'credit', amount: '136500' },
      { code: 'tax:ppn', direction: 'credit', amount: '13500' },
    ]);
  });

  it('amounts beyond 2^53 are stored exactly (BigInt)', async () => {
    const ws = await server.workspace();
    const big = 2n ** 62n;
    await inTenant(scopeOf(ws.workspaceId), (tx) =>
      postLedger(
        tx,
        { workspaceId: ws.workspaceId, mode: 'test' },
        {
          txId: 'adj:big',
          currency: 'IDR',
          sourceType: 'adjustment',
          sourceId: 'adj:big',
          postedAt: new Date(),
          legs: [
            { code: 'a', direction: 'debit', amount: big },
            { code: 'b', direction: 'credit', amount: big },
          ],
        },
      ),
    );
    const { rows } = await db().system.query(
      `SELECT sum(amount)::text AS s FROM ledger_entries WHERE "workspaceId" = $1`,
      [ws.workspaceId],
    );
    expect(rows[0].s).toBe((big * 2n).toString());
  });

  it('an unbalanced transaction is refused at COMMIT, even when each statement looks fine', async () => {
    const ws = await server.workspace();
    await asApp(ws.workspaceId, async (c) => {
      const insert = (txId: string, direction: string, amount: number, currency = 'IDR') =>
        c.query(
          `INSERT INTO ledger_entries (id, "workspaceId", mode, "txId", code, direction, amount, currency, "sourceType", "sourceId", "postedAt")
           VALUES ($1, $2, 'test', $3, 'payments', $4, $5, $6, 'adjustment', $3, now())`,
          [newId('ledgerEntry'), ws.workspaceId, txId, direction, amount, currency],
        );
      // legs in separate statements: the check is deferred to commit
      await c.query('BEGIN');
      await insert('t1', 'debit', 100);
      await insert('t1', 'credit', 100);
      await c.query('COMMIT');

      await c.query('BEGIN');
      await insert('t2', 'debit', 100);
      await insert('t2', 'credit', 99);
      await expect(c.query('COMMIT')).rejects.toThrow(
        /ledger transaction t2 does not balance in IDR: debits - credits = 1/,
      );

      // balanced in sum but not per currency
      await c.query('BEGIN');
      await insert('t3', 'debit', 100, 'IDR');
      await insert('t3', 'credit', 100, 'USD');
      await expect(c.query('COMMIT')).rejects.toThrow(/does not balance/);

      // a later transaction cannot unbalance a committed txId
      await c.query('BEGIN');
      await insert('t1', 'debit', 5);
      await expect(c.query('COMMIT')).rejects.toThrow(/ledger transaction t1 does not balance/);

      // zero, negative and unknown directions never get in
      await expect(insert('t4', 'debit', 0)).rejects.toThrow(/ledger_entries_amount_check/);
      await expect(insert('t4', 'debit', -5)).rejects.toThrow(/ledger_entries_amount_check/);
      await expect(insert('t4', 'sideways', 5)).rejects.toThrow(/ledger_entries_direction_check/);
    });
    const { rows } = await db().system.query(
      `SELECT "txId", count(*)::int AS n FROM ledger_entries WHERE "workspaceId" = $1 GROUP BY 1`,
      [ws.workspaceId],
    );
    expect(rows).toEqual([{ txId: 't1', n: 2 }]);
  });

  it('the check sees every leg even when the transaction ends in another tenant scope', async () => {
    const a = await server.workspace();
    const b = await server.workspace();
    await asApp(a.workspaceId, async (c) => {
      await c.query('BEGIN');
      await c.query(
        `INSERT INTO ledger_entries (id, "workspaceId", mode, "txId", code, direction, amount, currency, "sourceType", "sourceId", "postedAt")
         VALUES ($1, $2, 'test', 'x1', 'payments', 'debit', 10, 'IDR', 'adjustment', 'x1', now())`,
        [newId('ledgerEntry'), a.workspaceId],
      );
      await c.query(`SELECT set_config('app.workspace_id', $1, true)`, [b.workspaceId]);
      await expect(c.query('COMMIT')).rejects.toThrow(/x1 does not balance/);
    });
  });

  it('postLedger refuses an unbalanced posting before the database does', async () => {
    const ws = await server.workspace();
    await expect(
      inTenant(scopeOf(ws.workspaceId), (tx) =>
        postLedger(
          tx,
          { workspaceId: ws.workspaceId, mode: 'test' },
          {
            txId: 'bad',
            currency: 'IDR',
            sourceType: 'adjustment',
            sourceId: 'bad',
            postedAt: new Date(),
            legs: [leg('a', 'debit', 10), leg('b', 'credit', 9)],
          },
        ),
      ),
    ).rejects.toThrow(/does not balance/);
  });

  it('the app role can neither update nor delete ledger entries', async () => {
    const ws = await server.workspace();
    await inTenant(scopeOf(ws.workspaceId), (tx) =>
      postLedger(
        tx,
        { workspaceId: ws.workspaceId, mode: 'test' },
        {
          txId: 'ro',
          currency: 'IDR',
          sourceType: 'adjustment',
          sourceId: 'ro',
          postedAt: new Date(),
          legs: [leg('a', 'debit', 10), leg('b', 'credit', 10)],
        },
      ),
    );
    await asApp(ws.workspaceId, async (c) => {
      await expect(c.query(`UPDATE ledger_entries SET amount = 1`)).rejects.toThrow(/permission denied/);
      await expect(c.query(`DELETE FROM ledger_entries`)).rejects.toThrow(/permission denied/);
    });
  });
});

describe('receipt numbers', () => {
  it('are gapless and unique under concurrency; a rolled-back issue gives its number back', async () => {
    const ws = await server.workspace();
    const scope = { workspaceId: ws.workspaceId, mode: 'test' as const };
    const taken = await Promise.all(
      Array.from({ length: 20 }, () => inTenant(scopeOf(ws.workspaceId), (tx) => nextCounter(tx, scope, 'receipt'))),
    );
    expect([...taken].sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    await expect(
      inTenant(scopeOf(ws.workspaceId), async (tx) => {
        expect(await nextCounter(tx, scope, 'receipt')).toBe(21);
        throw new Error('issue failed');
      }),
    ).rejects.toThrow('issue failed');
    expect(await inTenant(scopeOf(ws.workspaceId), (tx) => nextCounter(tx, scope, 'receipt'))).toBe(21);
    // per workspace and mode: live numbering and other workspaces start at 1
    expect(
      await inTenant(scopeOf(ws.workspaceId, 'live'), (tx) => nextCounter(tx, { ...scope, mode: 'live' }, 'receipt')),
    ).toBe(1);
    const other = await server.workspace();
    expect(
      await inTenant(scopeOf(other.workspaceId), (tx) =>
        nextCounter(tx, { workspaceId: other.workspaceId, mode: 'test' }, 'receipt'),
      ),
    ).toBe(1);
  });

  it('are formatted SVC-RCPT-YYYY-MM-NNNN in UTC, growing past 9999', () => {
    expect(receiptNumber(new Date('2026-01-31T23:30:00+07:00'), 7)).toBe('SVC-RCPT-2026-01-0007');
    expect(receiptNumber(new Date('2026-12-31T23:59:59.999Z'), 12345)).toBe('SVC-RCPT-2026-12-12345');
    expect(invoiceNumber(new Date('2026-03-01T00:00:00Z'), 42)).toBe('SVC-2026-03-0042');
  });
});

describe('receipts, payments, sessions: database invariants', () => {
  /** A customer, a completed session, its payment and receipt, written as the owner (no service yet). */
  async function chain(workspaceId: string) {
    const q = (sql: string, params: unknown[]) => db().system.query(sql, params);
    const customerId = newId('customer');
    const sessionId = newId('checkoutSession');
    const paymentId = newId('payment');
    const receiptId = newId('receipt');
    await q(`INSERT INTO customers (id, "workspaceId", mode, name) VALUES ($1, $2, 'test', 'Budi')`, [
      customerId,
      workspaceId,
    ]);
    await q(
      `INSERT INTO checkout_sessions (id, "workspaceId", mode, status, amount, currency, methods, "successUrl", "cancelUrl", "customerId", "expiresAt", "paymentId", "completedAt")
       VALUES ($1, $2, 'test', 'completed', 150000, 'IDR', '{qris}', 'https://s.example', 'https://c.example', $3, now() + interval '1 day', $4, now())`,
      [sessionId, workspaceId, customerId, paymentId],
    );
    await q(
      `INSERT INTO payments (id, "workspaceId", mode, status, amount, currency, method, adapter, "customerId", "checkoutSessionId", "providerReference", "capturedAt")
       VALUES ($1, $2, 'test', 'succeeded', 150000, 'IDR', 'qris', 'provider_a_platform', $3, $4, $5, now())`,
      [paymentId, workspaceId, customerId, sessionId, `qr_${paymentId}`],
    );
    await q(
      `INSERT INTO receipts (id, "workspaceId", mode, number, "sourceType", "sourceId", "paymentId", "customerId", status, amount, currency, merchant, "lineItems", subtotal, "taxAmount", total, template, "issuedAt")
       VALUES ($1, $2, 'test', 'SVC-RCPT-2026-11-0001', 'checkout_session', $3, $4, $5, 'completed', 150000, 'IDR', '{"name":"Acme"}', '[]', 135135, 14865, 150000, '{}', now())`,
      [receiptId, workspaceId, sessionId, paymentId, customerId],
    );
    return { customerId, sessionId, paymentId, receiptId };
  }

  it('a receipt is frozen at issue: only emailedAt and emailedTo change; the app cannot delete it', async () => {
    const ws = await server.workspace();
    const { receiptId } = await chain(ws.workspaceId);
    await db().system.query(`UPDATE receipts SET "emailedAt" = now(), "emailedTo" = 'a@example.com' WHERE id = $1`, [
      receiptId,
    ]);
    await expect(
      db().system.query(`UPDATE receipts SET amount = 1, subtotal = 1, "taxAmount" = 0, total = 1 WHERE id = $1`, [
        receiptId,
      ]),
    ).rejects.toThrow(/frozen at issue/);
    await expect(
      db().system.query(`UPDATE receipts SET template = '{"footerText":"x"}' WHERE id = $1`, [receiptId]),
    ).rejects.toThrow(/frozen at issue/);
    await asApp(ws.workspaceId, async (c) => {
      await expect(c.query(`DELETE FROM receipts WHERE id = $1`, [receiptId])).rejects.toThrow(/permission denied/);
    });
  });

  it('one receipt per source, one number per workspace and mode, totals that add up', async () => {
    const ws = await server.workspace();
    const { sessionId } = await chain(ws.workspaceId);
    const insert = (number: string, sourceId: string, subtotal = 100, tax = 0, total = 100) =>
      db().system.query(
        `INSERT INTO receipts (id, "workspaceId", mode, number, "sourceType", "sourceId", status, amount, currency, merchant, "lineItems", subtotal, "taxAmount", total, template, "issuedAt")
         VALUES ($1, $2, 'test', $3, 'checkout_session', $4, 'completed', $7, 'IDR', '{}', '[]', $5, $6, $7, '{}', now())`,
        [newId('receipt'), ws.workspaceId, number, sourceId, subtotal, tax, total],
      );
    await expect(insert('SVC-RCPT-2026-11-0002', sessionId)).rejects.toThrow(
      /receipts_workspaceId_sourceType_sourceId_key/,
    );
    await expect(insert('SVC-RCPT-2026-11-0001', newId('checkoutSession'))).rejects.toThrow(
      /receipts_workspaceId_mode_number_key/,
    );
    await expect(insert('RCPT-1', newId('checkoutSession'))).rejects.toThrow(/receipts_number_check/);
    await expect(insert('SVC-RCPT-2026-11-0003', newId('checkoutSession'), 100, 10, 100)).rejects.toThrow(
      /receipts_totals_check/,
    );
  });

  it("references stay inside the workspace: another tenant's customer cannot be attached", async () => {
    const a = await server.workspace();
    const b = await server.workspace();
    const { customerId } = await chain(a.workspaceId);
    await expect(
      db().system.query(
        `INSERT INTO checkout_sessions (id, "workspaceId", mode, amount, currency, methods, "successUrl", "cancelUrl", "customerId", "expiresAt")
         VALUES ($1, $2, 'test', 1000, 'IDR', '{qris}', 'https://s.example', 'https://c.example', $3, now())`,
        [newId('checkoutSession'), b.workspaceId, customerId],
      ),
    ).rejects.toThrow(/checkout_sessions_customer_fkey/);
    // nor a live session the test-mode customer
    await expect(
      db().system.query(
        `INSERT INTO checkout_sessions (id, "workspaceId", mode, amount, currency, methods, "successUrl", "cancelUrl", "customerId", "expiresAt")
         VALUES ($1, $2, 'live', 1000, 'IDR', '{qris}', 'https://s.example', 'https://c.example', $3, now())`,
        [newId('checkoutSession'), a.workspaceId, customerId],
      ),
    ).rejects.toThrow(/checkout_sessions_customer_fkey/);
  });

  it('a session has at most one payment, a provider payment at most one row, refunds never exceed the amount', async () => {
    const ws = await server.workspace();
    const { sessionId, paymentId } = await chain(ws.workspaceId);
    const pay = (session: string | null, reference: string | null) =>
      db().system.query(
        `INSERT INTO payments (id, "workspaceId", mode, status, amount, currency, adapter, "checkoutSessionId", "providerReference") VALUES ($1, $2, 'test', 'succeeded', 10, 'IDR', 'provider_a_platform', $3, $4)`,
        [newId('payment'), ws.workspaceId, session, reference],
      );
    await expect(pay(sessionId, null)).rejects.toThrow(/payments_checkoutSessionId_key/);
    await expect(pay(null, `qr_${paymentId}`)).rejects.toThrow(/payments_adapter_providerReference_key/);
    await expect(
      db().system.query(`UPDATE payments SET "amountRefunded" = amount + 1 WHERE id = $1`, [paymentId]),
    ).rejects.toThrow(/payments_amount_check/);
    await expect(
      db().system.query(`UPDATE checkout_sessions SET status = 'completed', "paymentId" = NULL WHERE id = $1`, [
        sessionId,
      ]),
    ).rejects.toThrow(/checkout_sessions_completed_check/);
  });

  it('provider events dedupe on (provider, providerEventId)', async () => {
    const ws = await server.workspace();
    const record = () =>
      db().system.query(
        `INSERT INTO provider_events (id, "workspaceId", mode, provider, "providerEventId", type, outcome, payload, "receivedAt", "processedAt")
         VALUES ($1, $2, 'test', 'provider_a', 'evt-123', 'payment.succeeded', 'applied', '{}', now(), now())
         ON CONFLICT (provider, "providerEventId") DO NOTHING RETURNING id`,
        [newId('providerEvent'), ws.workspaceId],
      );
    expect((await record()).rowCount).toBe(1);
    expect((await record()).rowCount).toBe(0);
  });

  it('one default template per kind', async () => {
    const ws = await server.workspace();
    const tpl = (kind: string, isDefault: boolean) =>
      db().system.query(
        `INSERT INTO templates (id, "workspaceId", mode, kind, name, "isDefault") VALUES ($1, $2, 'test', $3, 'T', $4)`,
        [newId('template'), ws.workspaceId, kind, isDefault],
      );
    await tpl('receipt', true);
    await tpl('invoice', true);
    await tpl('receipt', false);
    await expect(tpl('receipt', true)).rejects.toThrow(/templates_one_default_idx/);
    await expect(tpl('letter', false)).rejects.toThrow(/templates_kind_check/);
  });
});

describe('row-level security on the money-path tables', () => {
  const tables = [
    'customers',
    'templates',
    'adapters',
    'managed_accounts',
    'checkout_sessions',
    'payments',
    'receipts',
    'ledger_entries',
    'provider_events',
    'provider_calls',
  ];

  it("the app role scoped to A sees none of B's rows and none of A's live rows, and cannot write into B", async () => {
    const a = await server.workspace();
    const b = await server.workspace();
    for (const ws of [a, b]) {
      await chainFor(ws.workspaceId);
      await inTenant(scopeOf(ws.workspaceId), (tx) =>
        postLedger(
          tx,
          { workspaceId: ws.workspaceId, mode: 'test' },
          {
            txId: `t-${ws.workspaceId}`,
            currency: 'IDR',
            sourceType: 'adjustment',
            sourceId: 'x',
            postedAt: new Date(),
            legs: [leg('a', 'debit', 1), leg('b', 'credit', 1)],
          },
        ),
      );
      const q = (sql: string, params: unknown[]) => db().system.query(sql, params);
      await q(`INSERT INTO templates (id, "workspaceId", mode, kind, name) VALUES ($1, $2, 'test', 'receipt', 'T')`, [
        newId('template'),
        ws.workspaceId,
      ]);
      await q(
        `INSERT INTO adapters ("workspaceId", mode, kind, "publicConfig", "configuredAt") VALUES ($1, 'test', 'manual', '{}', now()), ($1, 'live', 'manual', '{}', now())`,
        [ws.workspaceId],
      );
      await q(`INSERT INTO managed_accounts ("workspaceId", mode) VALUES ($1, 'test')`, [ws.workspaceId]);
      await q(
        `INSERT INTO provider_events (id, "workspaceId", mode, provider, "providerEventId", type, outcome, payload, "receivedAt", "processedAt") VALUES ($1, $2, 'test', 'provider_b', $1, 't', 'applied', '{}', now(), now())`,
        [newId('providerEvent'), ws.workspaceId],
      );
      await q(
        `INSERT INTO provider_calls (id, "workspaceId", mode, provider, direction, method, url) VALUES ($1, $2, 'test', 'provider_b', 'outbound', 'GET', 'https://p.example')`,
        [newId('providerCall'), ws.workspaceId],
      );
    }
    // an unroutable callback: no workspace, invisible to every tenant
    await db().system.query(
      `INSERT INTO provider_calls (id, provider, direction, method, url) VALUES ($1, 'provider_a', 'inbound', 'POST', '/v1/callbacks/provider_a')`,
      [newId('providerCall')],
    );

    await asApp(a.workspaceId, async (c) => {
      for (const t of tables) {
        const { rows } = await c.query(`SELECT "workspaceId", mode FROM ${t}`);
        expect(rows.length, t).toBeGreaterThan(0);
        expect(
          rows.every((r) => r.workspaceId === a.workspaceId && r.mode === 'test'),
          t,
        ).toBe(true);
      }
      await expect(
        c.query(`INSERT INTO customers (id, "workspaceId", mode) VALUES ($1, $2, 'test')`, [
          newId('customer'),
          b.workspaceId,
        ]),
      ).rejects.toThrow(/row-level security/);
      await expect(
        c.query(`INSERT INTO customers (id, "workspaceId", mode) VALUES ($1, $2, 'live')`, [
          newId('customer'),
          a.workspaceId,
        ]),
      ).rejects.toThrow(/row-level security/);
      expect(
        (await c.query(`UPDATE adapters SET status = 'disabled' WHERE "workspaceId" = $1`, [b.workspaceId])).rowCount,
      ).toBe(0);
    });
  });

  async function chainFor(workspaceId: string) {
    const customerId = newId('customer');
    await db().system.query(`INSERT INTO customers (id, "workspaceId", mode, name) VALUES ($1, $2, 'test', 'X')`, [
      customerId,
      workspaceId,
    ]);
    const sessionId = newId('checkoutSession');
    const paymentId = newId('payment');
    await db().system.query(
      `INSERT INTO checkout_sessions (id, "workspaceId", mode, amount, currency, methods, "successUrl", "cancelUrl", "customerId", "expiresAt") VALUES ($1, $2, 'test', 100, 'IDR', '{va}', 'https://s', 'https://c', $3, now())`,
      [sessionId, workspaceId, customerId],
    );
    await db().system.query(
      `INSERT INTO payments (id, "workspaceId", mode, status, amount, currency, "checkoutSessionId") VALUES ($1, $2, 'test', 'succeeded', 100, 'IDR', $3)`,
      [paymentId, workspaceId, sessionId],
    );
    await db().system.query(
      `INSERT INTO receipts (id, "workspaceId", mode, number, "sourceType", "sourceId", "paymentId", status, amount, currency, merchant, "lineItems", subtotal, total, template, "issuedAt")
       VALUES ($1, $2, 'test', 'SVC-RCPT-2026-11-0001', 'checkout_session', $3, $4, 'completed', 100, 'IDR', '{}', '[]', 100, 100, '{}', now())`,
      [newId('receipt'), workspaceId, sessionId, paymentId],
    );
  }
});
