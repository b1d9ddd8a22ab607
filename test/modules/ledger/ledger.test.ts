import { describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useServer, db, createClient, type Workspace } from '../../helpers/server.ts';
import { sandboxPayment, unbalancedTxIds } from '../../helpers/payments.ts';
import { inTenant } from '../../../src/core/db/client.ts';
import { postLedger } from '../../../src/core/ledger.ts';

const server = useServer();
const key = () => ({ 'idempotency-key': randomUUID() });
type Res = { status: number; json: any; text: string };
function expectError(res: Res, status: number, code: string, field?: string) {
  expect(
    { status: res.status, code: res.json?.error?.code, ...(field ? { field: res.json?.error?.field } : {}) },
    res.text,
  ).toEqual({ status, code, ...(field ? { field } : {}) });
}
const DAY = 86_400_000;

/** Straight from the entries: what every read must agree with. */
async function direct(workspaceId: string, from = new Date(0), until = new Date(8.64e15)) {
  const { rows } = await db().system.query(
    `SELECT code, currency, sum(CASE direction WHEN 'debit' THEN amount ELSE 0 END)::int AS debits, sum(CASE direction WHEN 'credit' THEN amount ELSE 0 END)::int AS credits
       FROM ledger_entries WHERE "workspaceId" = $1 AND "postedAt" >= $2 AND "postedAt" < $3 GROUP BY code, currency ORDER BY code, currency`,
    [workspaceId, from, until],
  );
  return rows.map((r) => ({ ...r, balance: r.credits - r.debits })) as {
    code: string;
    currency: string;
    debits: number;
    credits: number;
    balance: number;
  }[];
}

/**
 * A workspace with a history over three days: taxed payments (template showTax), a refund, a paid
 * payout. Returns the instants between the days.
 */
async function history() {
  const partner = await server.workspace({ platformAdmin: true });
  const m = (await partner.client.post('/v1/workspaces', { name: 'Books', businessEmail: 'b@example.com' }, key())).json
    .data;
  const client = createClient({
    baseUrl: server.url,
    keyId: partner.keyId,
    secret: partner.secret,
    onBehalfOf: m.accountId,
  });
  const ws = { client, workspaceId: m.id, accountId: m.accountId } as unknown as Workspace;
  expect((await client.post('/v1/templates', { kind: 'receipt', name: 'Taxed', showTax: true })).status).toBe(201);
  const marks: Date[] = [];
  // Days pass for the client's signatures and the server's clock alike.
  const realNow = Date.now.bind(Date);
  let shift = 0;
  const spy = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + shift);
  const advanceDay = () => {
    shift += DAY;
  };
  const now = () => new Date(Date.now());
  try {
    marks.push(now());
    const p1 = await sandboxPayment(server, ws, { amount: 111000, method: 'card' });
    advanceDay();
    marks.push(now());
    await sandboxPayment(server, ws, { amount: 222000, method: 'qris' });
    await client.post('/v1/refunds', { chargeId: p1.id, amount: 11100 }, key());
    advanceDay();
    marks.push(now());
    await client.patch('/v1/payouts/bank-account', {
      bankName: 'BCA',
      bankAccountNumber: '123',
      bankAccountHolder: 'Books',
    });
    const po = (await client.post('/v1/payouts', { amount: 50000, currency: 'IDR' }, key())).json.data;
    await client.post(`/v1/payouts/${po.id}/mark-in-transit`, {});
    await client.post(`/v1/payouts/${po.id}/mark-paid`, {});
    marks.push(new Date(Date.now() + 1000));
  } finally {
    spy.mockRestore();
  }
  return { ws, marks };
}

describe('GET /v1/ledger', () => {
  it('lists entries newest first with txId, code, sourceType and sourceId filters; keyset pages cover every entry once', async () => {
    const { ws } = await history();
    const all = (
      await db().system.query(
        `SELECT id, "txId" FROM ledger_entries WHERE "workspaceId" = $1 ORDER BY "postedAt" DESC, id DESC`,
        [ws.workspaceId],
      )
    ).rows;
    expect(all.length).toBeGreaterThan(8);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Res = await ws.client.get(`/v1/ledger?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status, page.text).toBe(200);
      seen.push(...page.json.data.map((e: any) => e.id));
      cursor = page.json.meta.page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.map((r) => r.id));
    const first = (await ws.client.get('/v1/ledger?limit=1')).json.data[0];
    expect(Object.keys(first).sort()).toEqual([
      'accountId',
      'amount',
      'code',
      'currency',
      'direction',
      'id',
      'memo',
      'postedAt',
      'sourceId',
      'sourceType',
      'txId',
    ]);
    expect(first.id).toMatch(/^le_/);

    const tx = (await ws.client.get(`/v1/ledger?txId=${first.txId}`)).json.data;
    expect(tx.length).toBeGreaterThanOrEqual(2);
    const net = tx.reduce((s: number, e: any) => s + (e.direction === 'debit' ? e.amount : -e.amount), 0);
    expect(net).toBe(0);
    expect((await ws.client.get('/v1/ledger?code=refunds')).json.data.map((e: any) => e.amount)).toEqual([11100]);
    const refunds = (await ws.client.get('/v1/ledger?sourceType=refund&order=asc')).json.data;
    expect(refunds.map((e: any) => e.code)).toEqual(
      expect.arrayContaining(['refunds', 'settlement:provider_a_platform']),
    );
    expect((await ws.client.get(`/v1/ledger?sourceId=${refunds[0].sourceId}`)).json.data).toHaveLength(2);
    expectError(await ws.client.get('/v1/ledger?sourceType=gift'), 400, 'validation_error', 'sourceType');
    expectError(await ws.client.get('/v1/ledger?cursor=cur_bad'), 400, 'invalid_cursor');
    expectError(await ws.client.get('/v1/ledger?limit=0'), 400, 'invalid_limit');
  });

  it('balances per code equal the entries; every txId balanced; the database refuses an unbalanced posting', async () => {
    const { ws } = await history();
    const res = await ws.client.get('/v1/ledger/balances');
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toEqual(await direct(ws.workspaceId));
    expect(res.json.data.map((r: any) => r.code)).toEqual([
      'payments',
      'payout',
      'refunds',
      'settlement:disbursed',
      'settlement:provider_a_platform',
      'tax:ppn',
    ]);
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
    const scope = { workspaceId: ws.workspaceId, mode: 'test' as const, modes: ['test' as const] };
    // postLedger checks first; the database is the last word (a raw insert of one leg).
    await expect(
      inTenant(scope, (tx) =>
        postLedger(tx, scope, {
          txId: 'x1',
          currency: 'IDR',
          sourceType: 'adjustment',
          sourceId: 'x1',
          postedAt: new Date(),
          legs: [
            { code: 'a', direction: 'debit', amount: 1 },
            { code: 'b', direction: 'credit', amount: 2 },
          ],
        }),
      ),
    ).rejects.toThrow(/does not balance/);
    await expect(
      inTenant(
        scope,
        (tx) =>
          tx.$executeRaw`INSERT INTO ledger_entries (id, "workspaceId", mode, "txId", code, direction, amount, currency, "sourceType", "sourceId", "postedAt") VALUES ('le_x', ${ws.workspaceId}, 'test', 'x2', 'a', 'debit', 5, 'IDR', 'adjustment', 'x2', now())`,
      ),
    ).rejects.toThrow(/does not balance/);
    expect((await ws.client.get('/v1/ledger/balances')).json.data).toEqual(res.json.data);
  });
});

describe('reports', () => {
  it('P&L over whole days and over instants inside days agrees with the entries', async () => {
    const { ws, marks } = await history();
    const pnlOf = (rows: Awaited<ReturnType<typeof direct>>) => {
      const get = (code: string) => rows.find((r) => r.code === code);
      const revenue = rows.filter((r) => r.code === 'payments').map((r) => ({ code: r.code, amount: r.balance }));
      const totalRevenue = revenue.reduce((s, r) => s + r.amount, 0);
      const refunds = -(get('refunds')?.balance ?? 0);
      return {
        revenue,
        totalRevenue,
        refunds,
        fees: 0,
        tax: get('tax:ppn')?.balance ?? 0,
        netIncome: totalRevenue - refunds,
      };
    };
    const day = (d: Date) => d.toISOString().slice(0, 10);
    const whole = await ws.client.get(`/v1/reports/pnl?from=${day(marks[0])}&to=${day(marks[3])}&currency=IDR`);
    expect(whole.status, whole.text).toBe(200);
    expect(whole.json.data).toMatchObject({ currency: 'IDR', ...pnlOf(await direct(ws.workspaceId)) });
    expect(whole.json.data.totalRevenue).toBe(333000 - whole.json.data.tax);
    expect(whole.json.data.tax).toBeGreaterThan(0);
    // An instant range cutting through days: from the second payment's moment to just before the payout.
    const from = marks[1].toISOString();
    const to = new Date(marks[2].getTime() - 1).toISOString();
    const part = await ws.client.get(`/v1/reports/pnl?from=${from}&to=${to}`);
    expect(part.json.data).toMatchObject({ from, to, ...pnlOf(await direct(ws.workspaceId, marks[1], marks[2])) });
    expect(part.json.data.refunds).toBe(11100);
    expectError(await ws.client.get('/v1/reports/pnl?to=2026-01-01'), 400, 'validation_error', 'from');
    expectError(await ws.client.get('/v1/reports/pnl?from=2026-02-01&to=2026-01-01'), 400, 'validation_error', 'to');
    expectError(await ws.client.get('/v1/reports/pnl?from=yesterday&to=2026-01-01'), 400, 'validation_error', 'from');
  });

  it('cash flow: opening + inflows - outflows = closing = the payout balance; one row per day', async () => {
    const { ws, marks } = await history();
    const day = (d: Date) => d.toISOString().slice(0, 10);
    const cf = (await ws.client.get(`/v1/reports/cash-flow?from=${day(marks[1])}&to=${day(marks[3])}`)).json.data;
    const settlement = (rows: Awaited<ReturnType<typeof direct>>) =>
      rows.filter((r) => r.code.startsWith('settlement:'));
    const before = settlement(await direct(ws.workspaceId, new Date(0), new Date(`${day(marks[1])}T00:00:00Z`)));
    expect(cf.openingBalance).toBe(before.reduce((s, r) => s - r.balance, 0));
    expect(cf.openingBalance).toBe(111000);
    expect(cf.closingBalance).toBe(cf.openingBalance + cf.inflows - cf.outflows);
    expect(cf.closingBalance).toBe((await ws.client.get('/v1/payouts/balance')).json.data.ledgerBalance);
    expect(cf.byDay.map((d: any) => d.date)).toEqual([day(marks[1]), day(marks[2])]);
    expect(cf.byDay[0]).toEqual({
      date: day(marks[1]),
      inflows: 222000,
      outflows: 11100,
      balance: 111000 + 222000 - 11100,
    });
    expect(cf.byDay[1]).toMatchObject({ inflows: 0, outflows: 50000, balance: cf.closingBalance });
  });

  it('scopes: svc:ledger:read for the ledger, svc:report:read for reports and the CSV', async () => {
    const ws = await server.workspace();
    const minted = (
      await ws.client.post('/v1/api-keys', { name: 'books', role: 'restricted', scopes: ['svc:ledger:read'] })
    ).json.data;
    const c = createClient({ baseUrl: server.url, keyId: minted.keyId, secret: minted.key });
    expect((await c.get('/v1/ledger')).status).toBe(200);
    expect((await c.get('/v1/ledger/balances')).status).toBe(200);
    expectError(await c.get('/v1/reports/pnl?from=2026-01-01&to=2026-01-31'), 403, 'insufficient_scope');
    expectError(await c.get('/v1/reports/cash-flow?from=2026-01-01&to=2026-01-31'), 403, 'insufficient_scope');
    expectError(await c.get('/v1/reports/ledger.csv?from=2026-01-01&to=2026-01-31'), 403, 'insufficient_scope');
    const unsigned = await fetch(`${server.url}/v1/reports/ledger.csv?from=2026-01-01&to=2026-01-31`);
    expect(unsigned.status).toBe(401);
    for (const path of ['/v1/ledger', '/v1/ledger/balances', '/v1/reports/pnl?from=2026-01-01&to=2026-01-31']) {
      const res = await fetch(`${server.url}${path}`);
      expect({ status: res.status, code: ((await res.json()) as any).error.code }).toEqual({
        status: 401,
        code: 'invalid_signature',
      });
    }
    const reporter = (
      await ws.client.post('/v1/api-keys', { name: 'reports', role: 'restricted', scopes: ['svc:report:read'] })
    ).json.data;
    const r = createClient({ baseUrl: server.url, keyId: reporter.keyId, secret: reporter.key });
    expectError(await r.get('/v1/ledger'), 403, 'insufficient_scope');
    expectError(await r.get('/v1/ledger/balances'), 403, 'insufficient_scope');
    expect((await r.get('/v1/reports/pnl?from=2026-01-01&to=2026-01-31')).status).toBe(200);
    expect((await r.get('/v1/reports/ledger.csv?from=2026-01-01&to=2026-01-31')).status).toBe(200);
  });
});

describe('GET /v1/reports/ledger.csv', () => {
  it('streams every entry of the period in the spec columns, oldest first, as an attachment', async () => {
    const { ws, marks } = await history();
    const day = (d: Date) => d.toISOString().slice(0, 10);
    const res = await ws.client.get(`/v1/reports/ledger.csv?from=${day(marks[0])}&to=${day(marks[3])}`);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="ledger-${day(marks[0])}-to-${day(marks[3])}.csv"`,
    );
    const lines = res.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('postedAt,txId,code,direction,amount,currency,sourceType,sourceId,memo');
    const entries = (
      await db().system.query(
        `SELECT "txId", code, direction, amount::int, "postedAt" FROM ledger_entries WHERE "workspaceId" = $1 ORDER BY "postedAt", id`,
        [ws.workspaceId],
      )
    ).rows;
    expect(lines.length - 1).toBe(entries.length);
    const cols = lines[1].split(',');
    expect(cols.slice(0, 5)).toEqual([
      entries[0].postedAt.toISOString(),
      entries[0].txId,
      entries[0].code,
      entries[0].direction,
      String(entries[0].amount),
    ]);
    // A range of one day holds that day's entries only; a currency without entries gives the header alone.
    const one = await ws.client.get(`/v1/reports/ledger.csv?from=${day(marks[1])}&to=${day(marks[1])}`);
    expect(
      one.text
        .trimEnd()
        .split('\r\n')
        .slice(1)
        .every((l) => l.startsWith(day(marks[1]))),
    ).toBe(true);
    expect(
      (await ws.client.get(`/v1/reports/ledger.csv?from=${day(marks[0])}&to=${day(marks[3])}&currency=USD`)).text,
    ).toBe('postedAt,txId,code,direction,amount,currency,sourceType,sourceId,memo\r\n');
    // Quoting: commas, quotes and line breaks are RFC 4180 quoted; a formula-like memo is defused.
    const scope = { workspaceId: ws.workspaceId, mode: 'test' as const, modes: ['test' as const] };
    const at = new Date(`${day(marks[0])}T12:00:00.000Z`);
    await inTenant(scope, (tx) =>
      postLedger(tx, scope, {
        txId: 'adj_1',
        currency: 'IDR',
        sourceType: 'adjustment',
        sourceId: 'a,b',
        postedAt: at,
        legs: [
          { code: 'payments', direction: 'debit', amount: 5, memo: 'say "hi",\nthen' },
          { code: 'refunds', direction: 'credit', amount: 5, memo: '=HYPERLINK(1)' },
        ],
      }),
    );
    const quoted = (await ws.client.get(`/v1/reports/ledger.csv?from=${at.toISOString()}&to=${at.toISOString()}`)).text;
    // Legs posted in one millisecond have ids in random order (ids are not increments), so their
    // rows may come in either order.
    const [header, ...quotedLines] = quoted.split('\r\n');
    expect(header).toBe('postedAt,txId,code,direction,amount,currency,sourceType,sourceId,memo');
    expect(quotedLines.sort()).toEqual([
      '',
      `${at.toISOString()},adj_1,payments,debit,5,IDR,adjustment,"a,b","say ""hi"",\nthen"`,
      `${at.toISOString()},adj_1,refunds,credit,5,IDR,adjustment,"a,b",'=HYPERLINK(1)`,
    ]);
    expectError(await ws.client.get('/v1/reports/ledger.csv?from=2026-01-01'), 400, 'validation_error', 'to');
    expectError(
      await ws.client.get('/v1/reports/ledger.csv?from=2026-01-02&to=2026-01-01'),
      400,
      'validation_error',
      'to',
    );
    expectError(
      await ws.client.get('/v1/reports/ledger.csv?from=2026-01-01&to=2026-01-02&currency=usd'),
      400,
      'validation_error',
      'currency',
    );
  });
});
