import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { useServer, db, type Workspace } from '../../helpers/server.ts';
import { unbalancedTxIds } from '../../helpers/payments.ts';
import type { Context } from '../../../src/core/context.ts';
import { createBalanceTransaction } from '../../../src/modules/customer-balances/service.ts';
import { createInvoice, payInvoice, voidInvoice } from '../../../src/modules/invoices/service.ts';
import { createCreditNote, voidCreditNote } from '../../../src/modules/credit-notes/service.ts';
import { isDomainError } from '../../../src/core/errors.ts';

const server = useServer();

type Res = { status: number; json: any };
function expectError(res: Res, status: number, code: string, field?: string) {
  expect(
    { status: res.status, code: res.json?.error?.code, ...(field ? { field: res.json?.error?.field } : {}) },
    JSON.stringify(res.json),
  ).toEqual({ status, code, ...(field ? { field } : {}) });
}
const key = () => ({ 'idempotency-key': randomUUID() });

async function customer(ws: Workspace) {
  return (await ws.client.post('/v1/customers', { name: 'Sari' })).json.data.id as string;
}
const adjust = (ws: Workspace, cus: string, body: Record<string, unknown>) =>
  ws.client.post(`/v1/customers/${cus}/balance-transactions`, body, key());
const openInvoice = async (ws: Workspace, cus: string) => {
  const res = await ws.client.post('/v1/invoices', {
    customerId: cus,
    currency: 'IDR',
    lines: [{ description: 'Hosting', quantity: 1, unitAmount: 100000 }],
    tax: 11000,
    status: 'open',
  });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data;
};
const ledgerOf = async (where: string, arg: string) =>
  (
    await db().system.query(
      `SELECT code, direction, amount::int AS amount FROM ledger_entries WHERE ${where} = $1 ORDER BY "txId", code, direction`,
      [arg],
    )
  ).rows;

/** Σ balances and the ledger's customer_credit (credits − debits) of a workspace, per currency. */
async function drift(workspaceId: string) {
  const { rows } = await db().system.query(
    `SELECT currency, sum(b)::bigint AS b, sum(l)::bigint AS l FROM (
       SELECT currency, amount AS b, 0 AS l FROM customer_balances WHERE "workspaceId" = $1
       UNION ALL
       SELECT currency, 0, CASE direction WHEN 'credit' THEN amount ELSE -amount END FROM ledger_entries
        WHERE "workspaceId" = $1 AND code = 'customer_credit') x GROUP BY currency HAVING sum(b) <> sum(l)`,
    [workspaceId],
  );
  return rows;
}

describe('customer balance', () => {
  it('adjustments: 201, the balance, transactions with cursors, the ledger; refusals', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const credit = await adjust(ws, cus, { amount: 50000, currency: 'IDR', description: 'Goodwill' });
    expect(credit.status, JSON.stringify(credit.json)).toBe(201);
    expect(credit.json.data).toMatchObject({
      customerId: cus,
      currency: 'IDR',
      amount: 50000,
      endingBalance: 50000,
      type: 'adjustment',
      description: 'Goodwill',
    });
    expect(credit.json.data.id).toMatch(/^cbtxn_/);
    const debit = await adjust(ws, cus, { amount: -20000, currency: 'IDR' });
    expect(debit.status).toBe(201);
    expect(debit.json.data.endingBalance).toBe(30000);
    expectError(await adjust(ws, cus, { amount: -30001, currency: 'IDR' }), 409, 'insufficient_balance');
    expectError(await adjust(ws, cus, { amount: 0, currency: 'IDR' }), 400, 'validation_error', 'amount');
    expectError(await adjust(ws, cus, { amount: 10, currency: 'XXX' }), 400, 'UNSUPPORTED_CURRENCY', 'currency');
    expect((await ws.client.get(`/v1/customers/${cus}/balance`)).json.data).toEqual({
      customerId: cus,
      balances: [{ currency: 'IDR', amount: 30000 }],
    });
    const page = await ws.client.get(`/v1/customers/${cus}/balance-transactions?limit=1`);
    expect(page.json.data.map((t: any) => t.id)).toEqual([debit.json.data.id]);
    const next = await ws.client.get(
      `/v1/customers/${cus}/balance-transactions?limit=1&cursor=${encodeURIComponent(page.json.meta.page.nextCursor)}`,
    );
    expect(next.json.data.map((t: any) => t.id)).toEqual([credit.json.data.id]);
    const one = await ws.client.get(`/v1/customers/${cus}/balance-transactions/${credit.json.data.id}`);
    expect(one.json.data.id).toBe(credit.json.data.id);
    expect(await ledgerOf('"txId"', credit.json.data.id)).toEqual([
      { code: 'customer_credit', direction: 'credit', amount: 50000 },
      { code: 'revenue:adjustments', direction: 'debit', amount: 50000 },
    ]);
    const events = (await ws.client.get(`/v1/events?objectId=${credit.json.data.id}`)).json.data;
    expect(events.map((e: any) => e.type)).toEqual(['customer_balance_transaction.created']);
    // Another workspace's customer and transaction: 404.
    const other = await server.workspace();
    expectError(await adjust(other, cus, { amount: 10, currency: 'IDR' }), 404, 'not_found');
    expectError(await other.client.get(`/v1/customers/${cus}/balance`), 404, 'not_found');
    expectError(
      await other.client.get(`/v1/customers/${cus}/balance-transactions/${credit.json.data.id}`),
      404,
      'not_found',
    );
    expect(await drift(ws.workspaceId)).toEqual([]);
  });

  it('is applied at finalization and given back when the invoice is voided', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    await adjust(ws, cus, { amount: 30000, currency: 'IDR' });
    const inv = await openInvoice(ws, cus);
    expect(inv).toMatchObject({ status: 'open', total: 111000, balanceApplied: 30000, amountDue: 81000 });
    expect((await ws.client.get(`/v1/customers/${cus}/balance`)).json.data.balances).toEqual([
      { currency: 'IDR', amount: 0 },
    ]);
    const paid = await ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, key());
    expect(paid.json.data).toMatchObject({ status: 'paid', amountPaid: 81000, amountDue: 0 });
    expect(await ledgerOf('"sourceId"', inv.id)).toEqual(
      expect.arrayContaining([
        { code: 'customer_credit', direction: 'debit', amount: 30000 },
        { code: 'revenue:invoices', direction: 'credit', amount: 30000 },
        { code: 'cash:offline', direction: 'debit', amount: 81000 },
        { code: 'tax:ppn', direction: 'credit', amount: 11000 },
      ]),
    );
    // Credit covering everything: paid at finalization, no payment; its tax still posts.
    await adjust(ws, cus, { amount: 200000, currency: 'IDR' });
    const covered = await openInvoice(ws, cus);
    expect(covered).toMatchObject({ status: 'paid', balanceApplied: 111000, amountDue: 0, amountPaid: 0 });
    expect(await ledgerOf('"txId"', `inv:${covered.id}`)).toEqual([
      { code: 'revenue:invoices', direction: 'debit', amount: 11000 },
      { code: 'tax:ppn', direction: 'credit', amount: 11000 },
    ]);
    // applyCustomerBalance: false keeps the credit for later.
    await adjust(ws, cus, { amount: 1000, currency: 'IDR' });
    const kept = await ws.client.post('/v1/invoices', {
      customerId: cus,
      currency: 'IDR',
      lines: [{ description: 'Hosting', quantity: 1, unitAmount: 5000 }],
      status: 'open',
      applyCustomerBalance: false,
    });
    expect(kept.json.data).toMatchObject({ status: 'open', balanceApplied: 0, amountDue: 5000 });
    await adjust(ws, cus, { amount: -1000, currency: 'IDR' });
    // A void gives it back.
    await adjust(ws, cus, { amount: -89000 + 50000, currency: 'IDR' });
    const partial = await openInvoice(ws, cus);
    expect(partial.balanceApplied).toBe(50000);
    const voided = await ws.client.post(`/v1/invoices/${partial.id}/void`, {}, key());
    expect(voided.status, JSON.stringify(voided.json)).toBe(200);
    const txns = (await ws.client.get(`/v1/customers/${cus}/balance-transactions?type=unapplied_from_invoice`)).json
      .data;
    expect(txns).toMatchObject([{ amount: 50000, invoiceId: partial.id, endingBalance: 50000 }]);
    expect(await drift(ws.workspaceId)).toEqual([]);
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
  });

  it('equals the ledger customer_credit after any sequence of adjustments, notes, voids and finalizations (fast-check)', async () => {
    const ws = await server.workspace();
    const auth = {
      apiKeyId: ws.apiKeyId,
      keyId: ws.keyId,
      mode: 'test' as const,
      role: 'full_access' as const,
      scopes: [],
      memberId: null,
      memberRole: null,
      keyWorkspaceId: ws.workspaceId,
      isPlatformAdmin: false,
      workspaceId: ws.workspaceId,
      accountId: ws.accountId,
      tier: 'starter',
      onBehalfOf: false,
    };
    const ctx = (): Context => ({ requestId: `req_${randomUUID()}`, auth, idempotencyKey: randomUUID() });
    const cus = await customer(ws);
    const step = fc.oneof(
      fc.record({ kind: fc.constant('adjust' as const), amount: fc.integer({ min: -60000, max: 60000 }) }),
      fc.record({
        kind: fc.constant('finalize' as const),
        unit: fc.integer({ min: 1, max: 90000 }),
        pay: fc.boolean(),
      }),
      fc.record({ kind: fc.constant('note' as const), amount: fc.integer({ min: 1, max: 40000 }) }),
      fc.record({ kind: fc.constant('voidNote' as const) }),
      fc.record({ kind: fc.constant('voidInvoice' as const) }),
    );
    const invoices: { id: string; status: string }[] = [];
    const notes: string[] = [];
    const tolerate = async (fn: () => Promise<unknown>) => {
      try {
        return await fn();
      } catch (e) {
        if (!isDomainError(e) || e.status >= 500) throw e;
        return null;
      }
    };
    // Each run writes through the services (~45 ms): `npm test` runs a sample, PROPERTY_RUNS as many as asked.
    const numRuns = Number(process.env.PROPERTY_RUNS ?? 150);
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 4 }), async (steps) => {
        runs++;
        for (const s of steps) {
          if (s.kind === 'adjust' && s.amount !== 0)
            await tolerate(() => createBalanceTransaction(ctx(), cus, { amount: s.amount, currency: 'IDR' }));
          if (s.kind === 'finalize') {
            const inv = (await createInvoice(ctx(), {
              customerId: cus,
              currency: 'IDR',
              lines: [{ description: 'x', quantity: 1, unitAmount: s.unit }],
              tax: Math.floor(s.unit / 10),
              status: 'open',
            })) as { id: string; status: string };
            if (s.pay && inv.status !== 'paid') await payInvoice(ctx(), inv.id);
            invoices.push({ id: inv.id, status: s.pay ? 'paid' : inv.status });
          }
          if (s.kind === 'note') {
            const target = invoices.at(-1);
            if (target) {
              const n = (await tolerate(() => createCreditNote(ctx(), { invoiceId: target.id, amount: s.amount }))) as {
                id: string;
              } | null;
              if (n) notes.push(n.id);
            }
          }
          if (s.kind === 'voidNote' && notes.length) await tolerate(() => voidCreditNote(ctx(), notes.pop()!));
          if (s.kind === 'voidInvoice') {
            const open = invoices.filter((i) => i.status === 'open').pop();
            if (open) {
              await tolerate(() => voidInvoice(ctx(), open.id));
              open.status = 'void';
            }
          }
        }
        expect(await drift(ws.workspaceId)).toEqual([]);
      }),
      { numRuns, seed: Number(process.env.PROPERTY_SEED ?? Date.now()) },
    );
    expect(runs).toBe(numRuns);
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
    const { rows } = await db().system.query(
      `SELECT count(*)::int AS n FROM customer_balance_transactions WHERE "workspaceId" = $1`,
      [ws.workspaceId],
    );
    expect(rows[0].n).toBeGreaterThan(100);
  }, 300_000);
});
