/**
 * `npm run bench:collection:b`: credit notes and customer balance, over real HTTP against
 * the app in a child process on a scratch database.
 *
 *  C1  credit note create p95 (credit to the balance; refund of a bookkeeping payment), credit-note.pdf p95
 *  C2  50 concurrent creates over 10 invoices of one workspace: numbers gapless (count = max), no duplicate
 *  C3  50 concurrent notes on one invoice: Σ total ≤ the invoice total, the rest 422
 *  and after everything: Σ customer balances = the ledger's `customer_credit`, every txId balanced.
 *  C5  100 concurrent subscription creates with a coupon of maxRedemptions 10: exactly 10 succeed
 *  C6  BENCH_C6_RENEWALS (10,000) renewals due at one instant in one workspace, half of them discounted (a
 *      20 % forever coupon), 30 % of the customers holding balance: drained by two in-process drainers
 *      (processDue, as the billing tick's batch jobs run it), < 30 s; every discount and balance applied
 *  C7  a test clock: BENCH_C7_SUBSCRIPTIONS (1,000) subscriptions x 12 monthly cycles with a 3-month repeating
 *      coupon applied at the first renewal: exactly cycles 1-3 discounted, `ready` < 60 s
 * Env: BENCH_ADMIN_URL, BENCH_REPS (100), BENCH_C6_RENEWALS, BENCH_C7_SUBSCRIPTIONS (scale down on a loaded
 * machine; the sizes run are printed).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { fmt, num, printTargets, scratchDatabase, startApp } from './lib.ts';

const REPS = num('BENCH_REPS', 100);
const C6_RENEWALS = num('BENCH_C6_RENEWALS', 10_000);
const C7_SUBSCRIPTIONS = num('BENCH_C7_SUBSCRIPTIONS', 1_000);

const { migrate } = await import('../src/core/db/migrate.ts');
const { openDatabase, closeDatabase, db } = await import('../src/core/db/client.ts');
const { bootstrapWorkspace } = await import('../src/modules/workspaces/service.ts');
const { signRequest } = await import('../src/core/auth/signing.ts');

const scratch = scratchDatabase();
let child: ChildProcess | undefined;

type Target = [string, boolean | null, string];

function client(base: string, keyId: string, secret: string) {
  return async (method: 'GET' | 'POST', target: string, body?: unknown) => {
    const text = body === undefined ? '' : JSON.stringify(body);
    const headers: Record<string, string> = {
      ...signRequest({ keyId, secret, method, target, body: text }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(method === 'POST' ? { 'idempotency-key': randomBytes(12).toString('hex') } : {}),
    };
    const s = performance.now();
    const res = await fetch(base + target, { method, headers, body: body === undefined ? undefined : text });
    const buf = Buffer.from(await res.arrayBuffer());
    const ms = performance.now() - s;
    let json: any = null;
    try {
      json = JSON.parse(buf.toString());
    } catch {
      /* a document */
    }
    return { ms, status: res.status, json, bytes: buf.length };
  };
}

type Req = ReturnType<typeof client>;
type Must = (p: ReturnType<Req>, status: number) => ReturnType<Req>;

/** C5: 100 concurrent subscription creates with one coupon limited to 10 redemptions (through redeemCoupon). */
async function c5(req: Req, must: Must): Promise<Target> {
  const cus = (await must(req('POST', '/v1/customers', { name: 'C5' }), 201)).json.data.id;
  const plan = (await must(req('POST', '/v1/plans', planBody('C5', 150000)), 201)).json.data;
  const coupon = (
    await must(req('POST', '/v1/coupons', { name: 'C5', percentOff: 10, duration: 'once', maxRedemptions: 10 }), 201)
  ).json.data;
  const s = performance.now();
  const res = await Promise.all(
    Array.from({ length: 100 }, () =>
      req('POST', '/v1/subscriptions', {
        customerId: cus,
        priceId: plan.prices[0].id,
        couponId: coupon.id,
        paymentMethod: 'pm_test_success',
      }),
    ),
  );
  const ms = performance.now() - s;
  const ok = res.filter((r) => r.status === 201).length;
  const refused = res.filter((r) => r.status === 400 && r.json?.error?.field === 'couponId').length;
  const after = (await must(req('GET', `/v1/coupons/${coupon.id}`), 200)).json.data;
  return [
    'C5 100 concurrent applications, max 10',
    ok === 10 && refused === 90 && after.timesRedeemed === 10,
    `${ok} created, ${refused} refused 400 couponId, timesRedeemed ${after.timesRedeemed} (${fmt(ms, 0)} ms)`,
  ];
}

const planBody = (name: string, unitAmount: number) => ({
  name,
  interval: 'month',
  portalFeatures: Object.fromEntries(
    ['selfServeCancel', 'selfServePause', 'selfServeUpgrade', 'selfServeDowngrade', 'updatePaymentMethod'].map((k) => [
      k,
      true,
    ]),
  ),
  prices: [{ currency: 'IDR', model: 'flat', unitAmount }],
});

/**
 * `n` subscriptions of `n` customers in one workspace, due at `due` (a month-old anchor), written as
 * rows by one statement: even ones carry an active discount of a 20 % forever coupon (its row and the
 * subscription's `discount` wire object), every tenth customer's first three hold 50,000 IDR of credit
 * (balance row, adjustment transaction, its ledger pair, so balances still equal `customer_credit`).
 */
async function seedDiscountedDue(
  workspaceId: string,
  n: number,
  due: Date,
  opts: { testClockId?: string; discountStart?: Date; months?: number; plain?: boolean } = {},
) {
  const tag = randomBytes(4).toString('hex');
  const start = opts.discountStart ?? new Date(due.getTime() - 31 * 86_400_000);
  const end = opts.months
    ? new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + opts.months, start.getUTCDate()))
    : null;
  await db().system.query(
    `WITH p AS (INSERT INTO plans (id, "workspaceId", mode, name, interval, "portalFeatures")
        VALUES ($2 || 'p', $1, 'test', 'Bench', 'month', '{}'::jsonb) RETURNING id),
      pr AS (INSERT INTO prices (id, "workspaceId", mode, "planId", position, currency, model, "unitAmount")
        SELECT $2 || 'r', $1, 'test', p.id, 0, 'IDR', 'flat', 150000 FROM p RETURNING id, "planId"),
      cp AS (INSERT INTO coupons (id, "workspaceId", mode, name, "percentOffHundredths", duration, "durationInMonths", "timesRedeemed")
        VALUES ('cpn_' || $2, $1, 'test', 'Bench 20%', 2000, $7::text, $8::int, $4::int / 2) RETURNING id),
      c AS (INSERT INTO customers (id, "workspaceId", mode, name, "testClockId")
        SELECT 'cus_' || $2 || lpad(g::text, 8, '0'), $1, 'test', 'Bench', $5::text FROM generate_series(1, $4::int) g
        RETURNING id)
      INSERT INTO subscriptions (id, "workspaceId", mode, status, "customerId", "planId", "priceId", currency,
        quantity, "paymentMethod", "anchorAt", "periodIndex", "currentPeriodStart", "currentPeriodEnd",
        "testClockId", discount, "createdAt", "updatedAt")
      SELECT 'sub_' || $2 || lpad(g::text, 8, '0'), $1, 'test', 'active', 'cus_' || $2 || lpad(g::text, 8, '0'),
        pr."planId", pr.id, 'IDR', 1, 'pm_test_success', $3::timestamptz - interval '1 month', 0,
        $3::timestamptz - interval '1 month', $3::timestamptz, $5::text,
        CASE WHEN g % 2 = 0 AND NOT $10::boolean THEN jsonb_build_object('id', 'di_' || $2 || lpad(g::text, 8, '0'), 'couponId', 'cpn_' || $2,
          'coupon', jsonb_build_object('name', 'Bench 20%', 'percentOff', 20, 'amountOff', NULL, 'duration', $7::text,
            'durationInMonths', $8::int),
          'customerId', 'cus_' || $2 || lpad(g::text, 8, '0'), 'subscriptionId', 'sub_' || $2 || lpad(g::text, 8, '0'),
          'invoiceId', NULL, 'start', to_char($6::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'end', to_char($9::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'status', 'active') END,
        $3::timestamptz - interval '1 month', $3::timestamptz - interval '1 month'
      FROM pr, generate_series(1, $4::int) g WHERE (SELECT count(*) FROM c) > 0 AND (SELECT count(*) FROM cp) > 0`,
    [
      workspaceId,
      `bench${tag}`,
      due,
      n,
      opts.testClockId ?? null,
      start,
      opts.months ? 'repeating' : 'forever',
      opts.months ?? null,
      end,
      opts.plain ?? false,
    ],
  );
  await db().system.query(
    `INSERT INTO discounts (id, "workspaceId", mode, "couponId", "customerId", "subscriptionId", start, "end", status)
     SELECT s.discount ->> 'id', s."workspaceId", s.mode, s.discount ->> 'couponId', s."customerId", s.id, $3::timestamptz,
       $4::timestamptz, 'active'
       FROM subscriptions s WHERE s."workspaceId" = $1 AND s.id LIKE $2 AND s.discount IS NOT NULL`,
    [workspaceId, `sub_bench${tag}%`, start, end],
  );
  if (opts.plain) return tag;
  // 30 % of the customers hold credit, posted as adjustments (D revenue:adjustments / C customer_credit).
  await db().system.query(
    `WITH held AS (SELECT id AS "customerId", 'cbtxn_' || substr(id, 5) AS txn FROM customers
        WHERE "workspaceId" = $1 AND id LIKE $2 AND right(id, 1)::int < 3),
      b AS (INSERT INTO customer_balances ("workspaceId", mode, "customerId", currency, amount)
        SELECT $1, 'test', "customerId", 'IDR', 50000 FROM held RETURNING 1),
      t AS (INSERT INTO customer_balance_transactions (id, "workspaceId", mode, "customerId", currency, amount,
          "endingBalance", type, description, "ledgerTxId")
        SELECT txn, $1, 'test', "customerId", 'IDR', 50000, 50000, 'adjustment', 'bench credit', txn FROM held RETURNING 1)
      INSERT INTO ledger_entries (id, "workspaceId", mode, "txId", code, direction, amount, currency, "sourceType",
        "sourceId", "postedAt")
      SELECT 'le_' || txn || d.dir, $1, 'test', txn, d.code, d.dir, 50000, 'IDR', 'adjustment', txn, now()
        FROM held, (VALUES ('revenue:adjustments', 'debit'), ('customer_credit', 'credit')) d(code, dir)
        WHERE (SELECT count(*) FROM b) >= 0 AND (SELECT count(*) FROM t) >= 0`,
    [workspaceId, `cus_bench${tag}%`],
  );
  return tag;
}

/** C6: the B1 burst with discounts and balances (docs/coupons.md, Computation and durations). */
async function c6(): Promise<Target[]> {
  const { processDue } = await import('../src/modules/subscriptions/renewals.ts');
  // Two drainers, as the billing tick's batch jobs: they share the due rows through SKIP LOCKED.
  const drain = async () => {
    const s = performance.now();
    await Promise.all([0, 1].map(() => processDue({ scope: null, at: new Date(), testClockId: null })));
    return (performance.now() - s) / 1000;
  };
  // The same burst without discounts or balances first, on the same machine: what they add is the difference.
  const plain = await bootstrapWorkspace({ name: 'Bench C6 plain' });
  await seedDiscountedDue(plain.workspaceId, C6_RENEWALS, new Date(Date.now() - 1000), { plain: true });
  const base = await drain();
  const w = await bootstrapWorkspace({ name: 'Bench C6' });
  const due = new Date(Date.now() - 1000);
  await seedDiscountedDue(w.workspaceId, C6_RENEWALS, due);
  const secs = await drain();
  const { rows } = await db().system.query(
    `SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'paid')::int AS paid,
        count(*) FILTER (WHERE discount > 0)::int AS discounted,
        count(*) FILTER (WHERE discount = 30000 AND (discounts -> 0 ->> 'amount')::int = 30000)::int AS right,
        count(*) FILTER (WHERE "balanceApplied" > 0)::int AS credited
       FROM invoices WHERE "workspaceId" = $1 AND "billingReason" = 'subscription_cycle'`,
    [w.workspaceId],
  );
  const r = rows[0];
  const credit = Math.floor(C6_RENEWALS / 10) * 3;
  console.log(
    `  C6: ${fmt(C6_RENEWALS)} renewals: ${fmt(r.paid)} paid in ${fmt(secs, 1)} s (${fmt(r.paid / secs)}/s); ` +
      `${fmt(r.discounted)} discounted, ${fmt(r.credited)} paid partly by balance; ` +
      `the same burst without them: ${fmt(base, 1)} s`,
  );
  return [
    [
      `C6 ${fmt(C6_RENEWALS)} renewals, discounts + balances < 30 s`,
      r.paid === C6_RENEWALS && secs < 30,
      `${fmt(secs, 1)} s, ${fmt(r.paid)}/${fmt(C6_RENEWALS)} paid`,
    ],
    [
      'C6 every discount and balance applied',
      r.discounted === C6_RENEWALS / 2 && r.right === r.discounted && Math.abs(r.credited - credit) <= 3,
      `${fmt(r.discounted)} discounted (30,000 each: ${fmt(r.right)}), ${fmt(r.credited)} with balance applied`,
    ],
    [
      'C6 overhead vs the plain burst (same machine)',
      secs <= base * 1.25,
      `${fmt(secs, 1)} s vs ${fmt(base, 1)} s without discounts and balances (${fmt((secs / base - 1) * 100, 0)} %)`,
    ],
  ];
}

/** C7: a clock's 12 monthly cycles with a 3-month repeating coupon (docs/coupons.md, Computation and durations). */
async function c7(req: Req, must: Must): Promise<Target[]> {
  const { startWorker } = await import('../jobs/worker.ts');
  const worker = await startWorker(scratch.url);
  try {
    const anchor = '2025-01-31T00:00:00.000Z';
    const ws = await bootstrapWorkspace({ name: 'Bench C7' });
    const r7 = client(base, ws.apiKey.keyId, ws.apiKey.key);
    const clock = (await must(r7('POST', '/v1/test-clocks', { frozenTime: anchor, name: 'C7' }), 201)).json.data;
    // Subscriptions paid for period 0 (rows); the coupon applied at the first renewal's instant (end of period 0).
    const first = new Date('2025-02-28T00:00:00.000Z');
    await seedDiscountedDue(ws.workspaceId, C7_SUBSCRIPTIONS * 2, first, {
      testClockId: clock.id,
      discountStart: first,
      months: 3,
    });
    // Only the even half carries the discount: drop the odd half so every subscription is discounted.
    await db().system.query(`DELETE FROM subscriptions WHERE "workspaceId" = $1 AND discount IS NULL`, [
      ws.workspaceId,
    ]);
    const target = new Date(Date.UTC(2026, 0, 31)).toISOString();
    const s = performance.now();
    await must(r7('POST', `/v1/test-clocks/${clock.id}/advance`, { frozenTime: target }), 200);
    let status = 'advancing';
    while (status === 'advancing') {
      await new Promise((r) => setTimeout(r, 100));
      status = (await r7('GET', `/v1/test-clocks/${clock.id}`)).json.data.status;
    }
    const secs = (performance.now() - s) / 1000;
    const { rows } = await db().system.query(
      `SELECT count(*)::int AS n, count(DISTINCT "subscriptionId")::int AS subs,
          count(*) FILTER (WHERE discount > 0)::int AS discounted,
          count(*) FILTER (WHERE discount > 0 AND "periodStart" >= $2::timestamptz
            AND "periodStart" < $2::timestamptz + interval '3 months')::int AS early
         FROM invoices WHERE "workspaceId" = $1`,
      [ws.workspaceId, first],
    );
    const r = rows[0];
    console.log(
      `  C7: ${fmt(C7_SUBSCRIPTIONS)} subscriptions x 12 cycles: ${status} in ${fmt(secs, 1)} s; ${fmt(r.n)} invoices, ` +
        `${fmt(r.discounted)} discounted`,
    );
    void req;
    return [
      [
        `C7 clock ${fmt(C7_SUBSCRIPTIONS)} x 12, 3-month coupon`,
        status === 'ready' &&
          r.n === C7_SUBSCRIPTIONS * 12 &&
          r.discounted === C7_SUBSCRIPTIONS * 3 &&
          r.early === r.discounted,
        `${fmt(r.discounted)} discounted of ${fmt(r.n)} (exactly cycles 1-3: ${r.early === r.discounted ? 'yes' : 'no'})`,
      ],
      [`C7 ready < 60 s`, status === 'ready' && secs < 60, `${fmt(secs, 1)} s`],
    ];
  } finally {
    await worker.stop();
  }
}

let base = '';

const pct = (t: number[], p: number) => {
  const s = [...t].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};

let failed = false;
try {
  await scratch.create();
  await migrate(scratch.url);
  openDatabase(scratch.url);
  const ws = await bootstrapWorkspace({ name: 'Bench collection B' });
  const app = await startApp(scratch.url);
  child = app.child;
  base = app.base;
  const req = client(app.base, ws.apiKey.keyId, ws.apiKey.key);
  const must = async (p: ReturnType<typeof req>, status: number) => {
    const r = await p;
    if (r.status !== status) throw new Error(`${r.status} ${JSON.stringify(r.json)}`);
    return r;
  };
  const cus = (await must(req('POST', '/v1/customers', { name: 'Bench' }), 201)).json.data.id;
  const invoice = async (unitAmount: number, paid: boolean) => {
    const inv = (
      await must(
        req('POST', '/v1/invoices', {
          customerId: cus,
          currency: 'IDR',
          status: 'open',
          tax: Math.round(unitAmount * 0.11),
          lines: [{ description: 'Bench', quantity: 1, unitAmount }],
        }),
        201,
      )
    ).json.data;
    if (paid) await must(req('POST', `/v1/invoices/${inv.id}/pay`, {}), 201);
    return inv;
  };
  const targets: Target[] = [];

  // C1: create to the balance, create with money given back by hand (a mark-paid invoice refunds
  // nothing through a provider: outOfBandAmount records it), PDF.
  const big = await invoice(1_000_000_000, true);
  const toBalance: number[] = [];
  const withRefund: number[] = [];
  const pdf: number[] = [];
  let noteId = '';
  for (let i = 0; i < REPS + 3; i++) {
    const a = await must(req('POST', '/v1/credit-notes', { invoiceId: big.id, amount: 1110 }), 201);
    const b = await must(
      req('POST', '/v1/credit-notes', { invoiceId: big.id, amount: 1110, outOfBandAmount: 1110 }),
      201,
    );
    noteId = a.json.data.id;
    const c = await must(req('GET', `/v1/credit-notes/${noteId}/credit-note.pdf`), 200);
    if (i >= 3) toBalance.push(a.ms), withRefund.push(b.ms), pdf.push(c.ms);
  }
  const row = (name: string, t: number[], target: number): Target => [
    name,
    pct(t, 0.95) < target,
    `p50 ${fmt(pct(t, 0.5), 1)} ms, p95 ${fmt(pct(t, 0.95), 1)} ms (target p95 < ${target} ms)`,
  ];
  targets.push(row('C1 credit note create (to balance)', toBalance, 50));
  targets.push(row('C1 credit note create (out of band, bookkeeping)', withRefund, 150));
  targets.push(row('C1 credit-note.pdf', pdf, 50));

  // C2: 50 concurrent creates over 10 invoices.
  const ten = await Promise.all(Array.from({ length: 10 }, () => invoice(1_000_000, true)));
  const c2 = await Promise.all(
    Array.from({ length: 50 }, (_, i) => req('POST', '/v1/credit-notes', { invoiceId: ten[i % 10].id, amount: 1000 })),
  );
  const numbers = c2
    .filter((r) => r.status === 201)
    .map((r) => Number(r.json.data.number.slice(-6).replace(/\D/g, '')));
  const { rows: cn } = await db().system.query(
    `SELECT count(*)::int AS n, count(DISTINCT number)::int AS d,
            max(substring(number from '[0-9]+$')::int) AS m FROM credit_notes WHERE "workspaceId" = $1`,
    [ws.workspaceId],
  );
  targets.push([
    'C2 50 concurrent creates, 10 invoices',
    numbers.length === 50 && cn[0].n === cn[0].m && cn[0].n === cn[0].d,
    `${numbers.length}/50 created; ${cn[0].n} notes, max number ${cn[0].m}, ${cn[0].d} distinct`,
  ]);

  // C3: 50 concurrent notes on one invoice (111,000 total; 5,000 each: 22 fit).
  const one = await invoice(100_000, false);
  const c3 = await Promise.all(
    Array.from({ length: 50 }, () => req('POST', '/v1/credit-notes', { invoiceId: one.id, amount: 5000 })),
  );
  const ok = c3.filter((r) => r.status === 201);
  const refused = c3.filter((r) => r.status === 422);
  const after = (await must(req('GET', `/v1/invoices/${one.id}`), 200)).json.data;
  targets.push([
    'C3 50 concurrent notes, one invoice',
    after.creditedAmount <= after.total && ok.length + refused.length === 50,
    `${ok.length} issued, ${refused.length} refused 422; credited ${fmt(after.creditedAmount)} of ${fmt(after.total)}`,
  ]);

  targets.push(await c5(req, must));
  targets.push(...(await c6()));
  targets.push(...(await c7(req, must)));
  // Invariants after the run, over every workspace (C6 and C7 seeded credit and applied it).
  const { rows: drift } = await db().system.query(
    `SELECT (SELECT coalesce(sum(amount), 0) FROM customer_balances)::bigint AS b,
            (SELECT coalesce(sum(CASE direction WHEN 'credit' THEN amount ELSE -amount END), 0) FROM ledger_entries
              WHERE code = 'customer_credit')::bigint AS l,
            (SELECT count(*) FROM (SELECT "txId" FROM ledger_entries GROUP BY "workspaceId", "txId", currency
              HAVING sum(CASE direction WHEN 'debit' THEN amount ELSE -amount END) <> 0) x)::int AS u`,
  );
  targets.push([
    'balances = ledger customer_credit (all)',
    drift[0].b === drift[0].l && drift[0].u === 0,
    `Σ balances ${fmt(Number(drift[0].b))}, customer_credit ${fmt(Number(drift[0].l))}, unbalanced txIds ${drift[0].u}`,
  ]);

  printTargets('collection-b', targets);
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  child?.kill('SIGTERM');
  await closeDatabase().catch(() => {});
  await scratch.drop();
}
process.exit(failed ? 1 : 0);
