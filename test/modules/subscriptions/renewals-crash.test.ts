// Crash safety of renewals: two worker processes drain one renewal burst at once
// and one of them is SIGKILLed in the middle. Afterwards: no subscription has two cycle invoices for a
// period, no invoice was charged twice, invoice and receipt numbers have no gaps, every ledger txId
// balances, and what the killed worker held is finished by the next pass (its attempt leases expire).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useServer, db } from '../../helpers/server.ts';
import { childEnv, ROOT } from '../../helpers/cli.ts';
import { unbalancedTxIds } from '../../helpers/payments.ts';
import { customer, plan } from '../../helpers/renewals.ts';
import { processDue } from '../../../src/modules/subscriptions/renewals.ts';
import { ATTEMPT_LEASE_MS } from '../../../src/modules/collection/dunning.ts';

const server = useServer({ background: 'none' });
const N = Number(process.env.CRASH_SUBSCRIPTIONS ?? 1500);
const AT = new Date('2026-02-01T00:00:00.000Z');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

function drain(dbUrl: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/billing-drain.ts')], {
    cwd: ROOT,
    env: childEnv(dbUrl, { BILLING_AT: AT.toISOString() }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  children.push(child);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, exited, stderr: () => stderr };
}

/** Seeds `n` active monthly subscriptions of one workspace, all due at AT, by one statement. */
async function seedDue(workspaceId: string, n: number, planId: string, priceId: string, customerId: string) {
  await db().system.query(
    `INSERT INTO subscriptions (id, "workspaceId", mode, status, "customerId", "planId", "priceId", currency, quantity,
       "paymentMethod", "anchorAt", "periodIndex", "currentPeriodStart", "currentPeriodEnd", "createdAt", "updatedAt")
     SELECT 'sub_crash' || lpad(g::text, 21, '0'), $1, 'test', 'active', $2, $3, $4, 'IDR', 1, 'pm_test_success',
       $5::timestamptz - interval '1 month', 0, $5::timestamptz - interval '1 month', $5::timestamptz,
       $5::timestamptz - interval '1 month', $5::timestamptz - interval '1 month'
     FROM generate_series(1, $6) g`,
    [workspaceId, customerId, planId, priceId, AT, n],
  );
}

const one = async (text: string, params: unknown[]) => (await db().system.query(text, params)).rows[0];

describe('renewal burst across a crash', () => {
  it(`two workers, one SIGKILLed mid-burst: ${N} renewals, 0 duplicates, 0 double charges, 0 gaps, balanced`, async () => {
    const ws = await server.workspace();
    const { planId, priceId } = await plan(ws);
    await seedDue(ws.workspaceId, N, planId, priceId, await customer(ws));
    const a = drain(server.dbUrl);
    const b = drain(server.dbUrl);
    // Kill one worker once the burst is under way (some invoices committed, many left).
    const deadline = Date.now() + 90_000;
    for (;;) {
      const { n } = await one(`SELECT count(*)::int AS n FROM invoices WHERE "workspaceId" = $1`, [ws.workspaceId]);
      if (n >= N / 5) break;
      if (Date.now() > deadline || a.child.exitCode !== null)
        throw new Error(`the burst did not start: ${n} invoices\n${a.stderr()}`);
      await new Promise((r) => setImmediate(r));
    }
    a.child.kill('SIGKILL');
    await a.exited;
    expect(await b.exited, b.stderr()).toBe(0);
    // What the killed worker held: its renewal batch rolled back (renewed now), its claimed attempts
    // wait for their lease, after which the next pass takes them.
    await processDue({ scope: null, at: AT, testClockId: null });
    await processDue({ scope: null, at: new Date(AT.getTime() + ATTEMPT_LEASE_MS), testClockId: null });

    const w = [ws.workspaceId];
    const dup = await one(
      `SELECT count(*)::int AS n FROM (SELECT "subscriptionId" FROM invoices WHERE "workspaceId" = $1
         GROUP BY "subscriptionId", "periodStart" HAVING count(*) > 1) d`,
      w,
    );
    expect(dup.n, 'duplicate cycle invoices').toBe(0);
    const renewed = await one(
      `SELECT count(*)::int AS n FROM subscriptions WHERE "workspaceId" = $1 AND "currentPeriodEnd" > $2`,
      [ws.workspaceId, AT],
    );
    expect(renewed.n, 'every subscription renewed').toBe(N);
    const double = await one(
      `SELECT count(*)::int AS n FROM (SELECT "invoiceId" FROM payments WHERE "workspaceId" = $1 AND status = 'succeeded'
         GROUP BY "invoiceId" HAVING count(*) > 1) d`,
      w,
    );
    expect(double.n, 'double charges').toBe(0);
    const inv = await one(
      `SELECT count(*)::int AS n, max(split_part(number, '-', 4)::int) AS max,
         count(*) FILTER (WHERE status = 'paid')::int AS paid FROM invoices WHERE "workspaceId" = $1`,
      w,
    );
    expect(inv.n).toBe(N);
    expect(inv.max, 'invoice numbering gaps').toBe(inv.n);
    const rc = await one(
      `SELECT count(*)::int AS n, max(split_part(number, '-', 5)::int) AS max FROM receipts WHERE "workspaceId" = $1`,
      w,
    );
    expect(rc.max ?? 0, 'receipt numbering gaps').toBe(rc.n);
    expect(rc.n).toBe(inv.paid);
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
    // A charge cut between its pending write and its reconcile was asked again and reconciled once.
    const pending = await one(
      `SELECT count(*)::int AS n FROM payments WHERE "workspaceId" = $1 AND status = 'pending'`,
      w,
    );
    expect(pending.n, 'charges left pending').toBe(0);
    expect(inv.paid).toBe(N);
  }, 240_000);
});
