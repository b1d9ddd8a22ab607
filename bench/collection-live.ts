/**
 * `npm run bench:collection:live` (part of `npm run bench:collection`): live-mode off-session collection of
 * provider-held `pm_` methods through the three provider simulators (targets P1-P5 of the
 * collection brief; docs/performance.md, Benchmarks). The simulators run in this process on 127.0.0.1 with
 * BENCH_SIM_LATENCY_MS (5) of latency on every request; the real app runs in a child process (the provider
 * callbacks land there); workers are child processes on the same scratch database.
 *
 *  P1  BENCH_LIVE_SUBSCRIPTIONS (10,000) live subscriptions of one workspace due at one instant, methods held
 *      at provider_a (60 %, cards, IDR), provider_b (30 %, GoPay, IDR), provider_c (10 %, PayPal, USD), all
 *      `success`; two real `svc worker` processes drain them from the `billing-batch` jobs the minute's tick
 *      sends: seconds from the boundary until every invoice is paid (invoiced, charged at the provider,
 *      reconciled, receipted, posted, events committed), and the pg-boss job rows of every queue (<= N/50)
 *  P2  BENCH_LIVE_CRASH (1,500) the same mix drained by two `bench/billing-drain.ts` processes, one SIGKILLed
 *      (and started again) every 2 s, simulators dropping 5 % of charge answers after charging and sending
 *      10 % of callbacks twice, every callback BENCH_CALLBACK_DELAY_MS (500) late. After the drainers finish,
 *      the run is resumed as the product would 6 minutes later (business time: the attempt and payment
 *      leases are 5 min constants, no knob): `processDue` and the pending sweep at now + 6 min, faults still
 *      on, then once more with dropped answers off. Invoices with > 1 succeeded payment, provider-side
 *      charges beyond one per payment id, payments left pending, unbalanced txIds
 *  P3  RACE_ROUNDS (100) rounds of each race, one due subscription per round (provider_a card): hosted-page
 *      payment (QRIS at provider_a, paid by its callback) vs the off-session charge; two drainers on one due
 *      invoice; detach during the charge; credit note vs the charge in flight
 *  P4  BENCH_LIVE_ACTIONS (100) renewals answered `requires_action` (3184): the invoice event in the same
 *      commit as the payment's status (xmin), the `billing-email` job (kind action_required) written by the
 *      relay for each; then their actions made to expire BENCH_ACTION_EXPIRY_S (5) s ahead and the real
 *      worker's `billing-tick` left to expire them: seconds from `expiresAt` to the failure
 *  P5  BENCH_SETUP_SESSIONS (100) live setup sessions (provider_a OVO): the hosted page's p95, the provider's
 *      token callback to `completed` p95; the expiry sweep over BENCH_EXPIRY_METHODS (100,000) active methods
 *      (BENCH_EXPIRY_DUE, 100, due) and whether its claim is an index scan
 * BENCH_LIVE_SECTIONS=p1,p2,p3,p4,p5 picks some. Env: BENCH_ADMIN_URL and the above.
 */
import os from 'node:os';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fmt, num, printTargets, scratchDatabase, startApp, startWorkers as spawnWorkers, type Target } from './lib.ts';
import type { Context } from '../src/core/context.ts';
import { ProviderASim } from '../test/simulators/provider_a.ts';
import { ProviderBSim } from '../test/simulators/provider_b.ts';
import { ProviderCSim } from '../test/simulators/provider_c.ts';
import { scenarios, type Scenario } from '../test/simulators/saved.ts';

const N = num('BENCH_LIVE_SUBSCRIPTIONS', 10_000);
const CRASH = num('BENCH_LIVE_CRASH', 1500);
const ROUNDS = num('RACE_ROUNDS', 100);
const ACTIONS = num('BENCH_LIVE_ACTIONS', 100);
const LATENCY_MS = num('BENCH_SIM_LATENCY_MS', 5);
const CALLBACK_DELAY_MS = num('BENCH_CALLBACK_DELAY_MS', 500);
const EXPIRY_S = num('BENCH_ACTION_EXPIRY_S', 5);
const only = process.env.BENCH_LIVE_SECTIONS?.split(',').map((s) => s.trim());
// The in-process drains log provider calls at info; the figures are the output here.
process.env.LOG_LEVEL ??= 'error';

const { migrate } = await import('../src/core/db/migrate.ts');
const { openDatabase, closeDatabase, db } = await import('../src/core/db/client.ts');
const { bootstrapWorkspace } = await import('../src/modules/workspaces/service.ts');
const { connectProviderA, connectProviderB, connectProviderC } = await import('../src/modules/adapters/service.ts');
const { seal } = await import('../src/core/sealed.ts');
const { newId } = await import('../src/core/ids.ts');
const { providerTokenHash, detachPaymentMethod } = await import('../src/modules/payment-methods/service.ts');
const { createCreditNote } = await import('../src/modules/credit-notes/service.ts');
const { processDue } = await import('../src/modules/subscriptions/renewals.ts');
const { sweepPendingCharges } = await import('../src/modules/collection/waiting.ts');

const scratch = scratchDatabase();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rand = (n: number) => randomBytes(n).toString('hex').slice(0, n);
/** A race's second party starts 0-JITTER_MS later, so both orders and the overlap all occur. */
const JITTER_MS = num('BENCH_RACE_JITTER_MS', 80);
const jitter = () => sleep(Math.random() * JITTER_MS);

// ---- the simulators (this process) ----

const aCreds = { secretKey: `xnd_production_${rand(20)}`, callbackToken: rand(24) };
const bCreds = { serverKey: `Mid-server-${rand(12)}`, clientKey: `Mid-client-${rand(8)}`, merchantId: 'G1' };
const cCreds = { clientId: `cid-${rand(12)}`, secret: `sec-${rand(16)}`, webhookId: `WH-${rand(10)}` };
const simA = new ProviderASim(aCreds);
const simB = new ProviderBSim({ serverKey: bCreds.serverKey, merchantId: bCreds.merchantId });
const simC = new ProviderCSim(cCreds);
const sims = [simA, simB, simC];
type Kind = 'provider_a' | 'provider_b' | 'provider_c';
const simOf: Record<Kind, ProviderASim | ProviderBSim | ProviderCSim> = {
  provider_a: simA,
  provider_b: simB,
  provider_c: simC,
};

/** Every simulator request is answered LATENCY_MS later (the brief's "simulators with 5 ms latency"). */
const requestTimes = new Map<object, number>();
for (const s of sims)
  s.during = async () => {
    // The request being served was pushed just before this hook ran (common.ts handle()).
    const req = s.requests.at(-1);
    if (req) requestTimes.set(req, Date.now());
    if (LATENCY_MS) await sleep(LATENCY_MS);
    if (inCharge && s === simA && req?.method === 'POST' && req.path === '/payment_requests') {
      const run = inCharge;
      inCharge = null;
      await run();
    }
  };

/** A race party run while provider_a holds the next off-session charge (its pending payment committed, no answer yet). */
let inCharge: (() => Promise<void>) | null = null;

/**
 * A race's second party: in even rounds it starts 0-JITTER_MS after the drain (both orders and the overlap
 * occur); in odd rounds it runs inside the provider call of the charge (the charge is in flight). A party
 * whose round charged nothing runs after the drain.
 */
async function race<T>(round: number, fn: () => Promise<T>): Promise<{ value: T; inFlight: boolean }> {
  if (round % 2 === 0) {
    const [, value] = await Promise.all([drain(new Date(), 1), jitter().then(fn)]);
    return { value, inFlight: false };
  }
  let inFlight = false;
  let out!: Promise<T>;
  const started = new Promise<void>((resolve) => {
    inCharge = async () => {
      inFlight = true;
      out = fn();
      resolve();
      await out.catch(() => undefined);
    };
  });
  await drain(new Date(), 1);
  if (inCharge) {
    const run = inCharge;
    inCharge = null;
    await run();
  }
  await started;
  return { value: await out, inFlight };
}

function faults(o: { drop?: number; duplicateRate?: number; callbackDelayMs?: number }) {
  for (const s of sims) {
    s.offSession.dropResponseAfterCharge = o.drop ?? 0;
    s.offSession.duplicateRate = o.duplicateRate ?? 0;
    s.offSession.callbackDelayMs = o.callbackDelayMs ?? 0;
  }
}

/** Provider-side charges beyond one per payment id (per idempotency key and per our reference), all simulators. */
function extraProviderCharges(): { extra: number; total: number } {
  let extra = 0;
  let total = 0;
  for (const s of sims) {
    total += s.charges.total;
    const refs = new Map<string, number>();
    for (const [k, n] of s.charges.byKey) refs.set(k, Math.max(refs.get(k) ?? 0, n));
    for (const [k, n] of s.charges.byReference) refs.set(k, Math.max(refs.get(k) ?? 0, n));
    for (const n of refs.values()) extra += Math.max(0, n - 1);
  }
  return { extra, total };
}

// ---- the live workspace and its methods ----

interface Live {
  workspaceId: string;
  accountId: string;
  apiKey: { id: string; keyId: string };
}

/** The workspace's live key acting in process (the bench calls services without an HTTP request). */
const ctxOf = (ws: Live) =>
  ({
    requestId: `req_bench${rand(12)}`,
    idempotencyKey: randomUUID(),
    auth: {
      apiKeyId: ws.apiKey.id,
      keyId: ws.apiKey.keyId,
      mode: 'live' as const,
      role: 'full_access' as const,
      scopes: [],
      memberId: null,
      memberRole: null,
      keyWorkspaceId: ws.workspaceId,
      isPlatformAdmin: false,
      workspaceId: ws.workspaceId,
      accountId: ws.accountId,
      tier: 'free',
      onBehalfOf: false,
    },
  }) as unknown as Context;

/** A live workspace (operator bootstrap) with the three adapters connected to the simulators. */
async function liveWorkspace(name: string): Promise<Live> {
  const ws = await bootstrapWorkspace({ name, environment: 'live' });
  await connectProviderA(ctxOf(ws), aCreds);
  await connectProviderB(ctxOf(ws), { ...bCreds, env: 'production' });
  await connectProviderC(ctxOf(ws), { clientId: cCreds.clientId, secret: cCreds.secret, mode: 'live' });
  return ws;
}

const MIX: [Kind, number][] = [
  ['provider_a', 0.6],
  ['provider_b', 0.3],
  ['provider_c', 0.1],
];
const typeOf: Record<Kind, string> = { provider_a: 'card', provider_b: 'ewallet', provider_c: 'paypal' };
const currencyOf: Record<Kind, 'IDR' | 'USD'> = { provider_a: 'IDR', provider_b: 'IDR', provider_c: 'USD' };

function tokenAt(kind: Kind, scenario: Scenario): string {
  const digits = scenarios[scenario].card;
  if (kind === 'provider_a') return simA.seedToken({ digits });
  if (kind === 'provider_b') return simB.seedToken({ digits });
  return simC.seedToken({ type: 'paypal', digits });
}

const display = (kind: Kind, last4: string) => ({
  card: kind === 'provider_a' ? { brand: 'visa', last4, expMonth: 12, expYear: 2040, funding: 'credit' } : null,
  ewallet: kind === 'provider_b' ? { provider: 'gopay', maskedAccount: `******${last4}` } : null,
  paypal: kind === 'provider_c' ? { maskedEmail: `s***${last4}@example.com` } : null,
});

interface Seeded {
  subId: string;
  customerId: string;
  pmId: string;
  kind: Kind;
  token: string;
}

/**
 * `n` live subscriptions of `ws` due at `due`, each with its customer and a method held at its provider
 * (the simulator's token, sealed to its row as setup would store it), split by `mix`, in a few statements.
 */
async function seedDue(ws: Live, n: number, due: Date, mix: [Kind, number][] = MIX, scenario: Scenario = 'success') {
  const tag = rand(8);
  const month = new Date(due);
  month.setUTCMonth(month.getUTCMonth() - 1);
  const w = ws.workspaceId;
  for (const cur of ['IDR', 'USD'] as const) {
    await db().system.query(
      `INSERT INTO plans (id, "workspaceId", mode, name, interval, "portalFeatures") VALUES ($1, $2, 'live', 'Bench', 'month', '{}')`,
      [`pln_bench${tag}${cur}`, w],
    );
    await db().system.query(
      `INSERT INTO prices (id, "workspaceId", mode, "planId", position, currency, model, "unitAmount")
       VALUES ($1, $2, 'live', $3, 0, $4, 'flat', $5)`,
      [`pr_bench${tag}${cur}`, w, `pln_bench${tag}${cur}`, cur, cur === 'IDR' ? 150_000 : 1_500],
    );
  }
  const seeded: Seeded[] = [];
  const rows: Record<string, unknown>[] = [];
  let i = 0;
  for (const [m, [kind, share]] of mix.entries()) {
    const k = m === mix.length - 1 ? n - i : Math.round(n * share);
    for (let j = 0; j < k && i < n; j++, i++) {
      const id = newId('paymentMethod');
      const token = tokenAt(kind, scenario);
      const s: Seeded = {
        pmId: id,
        customerId: `cus_bench${tag}${String(i).padStart(10, '0')}`,
        subId: `sub_bench${tag}${String(i).padStart(10, '0')}`,
        kind,
        token,
      };
      seeded.push(s);
      const d = display(kind, scenarios[scenario].last4);
      rows.push({
        ...s,
        type: typeOf[kind],
        cur: currencyOf[kind],
        card: d.card && JSON.stringify(d.card),
        ewallet: d.ewallet && JSON.stringify(d.ewallet),
        paypal: d.paypal && JSON.stringify(d.paypal),
        sealed: Buffer.from(seal('payment_methods', { id, workspaceId: w, mode: 'live' }, Buffer.from(token))).toString(
          'hex',
        ),
        hash: providerTokenHash(kind, token),
      });
    }
  }
  for (let at = 0; at < rows.length; at += 2000) {
    const part = rows.slice(at, at + 2000);
    const col = (k: string) => part.map((r) => r[k]);
    await db().system.query(
      `WITH r AS (SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
           $9::jsonb[], $10::jsonb[], $11::jsonb[]) AS r(id, cus, sub, kind, type, cur, token, card, ewallet, paypal)),
       h AS (SELECT * FROM unnest($2::text[], $12::text[]) AS h(id, hash)),
       c AS (INSERT INTO customers (id, "workspaceId", mode, name, email, phone)
             SELECT cus, $1, 'live', 'Bench', 'bench@example.com', '+6281200000000' FROM r),
       p AS (INSERT INTO payment_methods (id, "workspaceId", mode, "customerId", type, status, adapter, card, ewallet, paypal,
               consent, "providerToken", "providerTokenHash")
             SELECT r.id, $1, 'live', cus, type, 'active', kind, card, ewallet, paypal,
               '{"source":"setup_session","sourceId":null,"at":"2026-01-01T00:00:00.000Z"}', decode(token, 'hex'), h.hash
             FROM r JOIN h ON h.id = r.id)
       INSERT INTO subscriptions (id, "workspaceId", mode, status, "customerId", "planId", "priceId", currency, quantity,
         "paymentMethod", "anchorAt", "periodIndex", "currentPeriodStart", "currentPeriodEnd", "createdAt", "updatedAt")
       SELECT sub, $1, 'live', 'active', cus, $13 || cur, $14 || cur, cur, 1, id, $15, 0, $15, $16, $15, $15 FROM r`,
      [
        w,
        col('pmId'),
        col('customerId'),
        col('subId'),
        col('kind'),
        col('type'),
        col('cur'),
        col('sealed'),
        col('card'),
        col('ewallet'),
        col('paypal'),
        col('hash'),
        `pln_bench${tag}`,
        `pr_bench${tag}`,
        month,
        due,
      ],
    );
  }
  return seeded;
}

const one = async (text: string, params: unknown[]) => (await db().system.query(text, params)).rows[0];

/** Money checks of a workspace: double charges, pending, unbalanced txIds, paid invoices, receipts, paid events. */
async function moneyOf(workspaceId: string) {
  const w = [workspaceId];
  const [double, pending, unbalanced, inv, receipts, paidEvents] = await Promise.all([
    one(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM payments WHERE "workspaceId" = $1 AND status = 'succeeded'
         AND "invoiceId" IS NOT NULL GROUP BY "invoiceId" HAVING count(*) > 1) d`,
      w,
    ),
    one(`SELECT count(*)::int AS n FROM payments WHERE "workspaceId" = $1 AND status = 'pending'`, w),
    one(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM ledger_entries WHERE "workspaceId" = $1
         GROUP BY "txId", currency HAVING sum(CASE direction WHEN 'debit' THEN amount ELSE -amount END) <> 0) d`,
      w,
    ),
    one(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'paid')::int AS paid FROM invoices WHERE "workspaceId" = $1`,
      w,
    ),
    one(`SELECT count(*)::int AS n FROM receipts WHERE "workspaceId" = $1`, w),
    one(`SELECT count(*)::int AS n FROM events WHERE "workspaceId" = $1 AND type = 'svc.invoice.paid.v1'`, w),
  ]);
  return {
    double: double.n as number,
    pending: pending.n as number,
    unbalanced: unbalanced.n as number,
    invoices: inv.n as number,
    paid: inv.paid as number,
    receipts: receipts.n as number,
    paidEvents: paidEvents.n as number,
  };
}

// ---- processes ----

let appBase = '';
let app: ChildProcess | undefined;
const procEnv = () => ({
  ...process.env,
  DATABASE_URL: scratch.url,
  LOG_LEVEL: 'warn',
  PROVIDER_A_BASE_URL: simA.url,
  PROVIDER_B_BASE_URL: simB.url,
  PROVIDER_C_BASE_URL: simC.url,
  PROVIDER_C_WEBHOOK_ID: cCreds.webhookId,
  SVC_CALLBACK_BASE_URL: appBase,
});

/** `n` real `svc worker` processes on the scratch database. */
const startWorkers = (n: number) => spawnWorkers(n, { ...procEnv(), SVC_DB_POOL: '10' });

async function jobRows(): Promise<number> {
  const r = await db()
    .system.query(`SELECT count(*)::int AS n FROM pgboss.job`)
    .catch(() => ({ rows: [{ n: 0 }] }));
  return r.rows[0].n;
}

/** In process, as a billing-batch job: everything due at `at` (two drainers unless told). */
async function drain(at: Date, drainers = 2) {
  const loop = async () => {
    for (;;) {
      const r = await processDue({ scope: null, at, testClockId: null, limit: 500 });
      if (!r.more && r.renewed + r.canceled + r.attempted === 0) return;
    }
  };
  await Promise.all(Array.from({ length: drainers }, loop));
}

/** Transactions committed in the scratch database so far (pg_stat_database; the stats lag by up to a second). */
async function commits(): Promise<number> {
  const r = await one(`SELECT xact_commit::bigint AS n FROM pg_stat_database WHERE datname = current_database()`, []);
  return Number(r.n);
}

/**
 * Where the database backends of the burst wait (a poor man's profile): pg_stat_activity sampled every
 * 200 ms until stopped; the share of samples per wait event (CPU: active without a wait event).
 */
function sampleWaits() {
  const counts = new Map<string, number>();
  let total = 0;
  let on = true;
  void (async () => {
    while (on) {
      const { rows } = await db().system.query(
        `SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') AS w, left(query, 60) AS q FROM pg_stat_activity
         WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()`,
      );
      for (const r of rows) {
        const k =
          r.w === 'Lock:transactionid' || r.w === 'Lock:tuple' || r.w === 'Lock:advisory'
            ? `${r.w} (${r.q.replace(/\s+/g, ' ')})`
            : r.w;
        counts.set(k, (counts.get(k) ?? 0) + 1);
        total++;
      }
      await sleep(200);
    }
  })();
  return () => {
    on = false;
    return [...counts]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 6)
      .map(([k, n]) => `${k} ${fmt((100 * n) / Math.max(1, total))} %`)
      .join(', ');
  };
}

/** How many callbacks each simulator has sent so far. */
const sentCounts = () => Object.fromEntries(Object.entries(simOf).map(([k, s]) => [k, s.sent.length]));

/** The app's answers to the callbacks sent since `before`, by provider and status (or why none came). */
function callbacksSince(before: Record<string, number>) {
  const answered = new Map<string, number>();
  for (const [kind, s] of Object.entries(simOf))
    for (const x of s.sent.slice(before[kind] ?? 0)) {
      const outcome = /"outcome":"(\w+)"/.exec(x.result.body ?? '')?.[1];
      const k = `${kind} ${x.result.status ?? (x.result.error ?? 'no answer').replace(/\s+/g, ' ').slice(0, 60)}${outcome ? ` ${outcome}` : ''}`;
      answered.set(k, (answered.get(k) ?? 0) + 1);
    }
  return [...answered].map(([k, v]) => `${k} x ${v}`).join(', ');
}

// ---- sections ----

const sections: Record<string, () => Promise<Target[]>> = {};
let workers: ChildProcess[] = [];

sections.p1 = async () => {
  const ws = await liveWorkspace('Bench live burst');
  // Seeded due in an hour, then moved due all at once: the workers' own minute tick must not start the burst
  // while it is still being seeded (it charged the first batch before t0 in earlier runs).
  const due = new Date(Date.now() + 3_600_000);
  const t0s = performance.now();
  await seedDue(ws, N, due);
  await db().system.query(
    `UPDATE subscriptions SET "anchorAt" = "anchorAt" - $2::interval, "currentPeriodStart" = "currentPeriodStart" - $2::interval,
       "currentPeriodEnd" = "currentPeriodEnd" - $2::interval, "createdAt" = "createdAt" - $2::interval,
       "updatedAt" = "updatedAt" - $2::interval WHERE "workspaceId" = $1`,
    [ws.workspaceId, `${Math.ceil((due.getTime() - Date.now()) / 1000) + 1} seconds`],
  );
  await db().system.query('ANALYZE');
  console.log(`  P1: seeded ${fmt(N)} live subscriptions in ${fmt((performance.now() - t0s) / 1000, 1)} s`);
  const { PgBoss } = await import('pg-boss');
  const boss = new PgBoss({ connectionString: scratch.url, schema: 'pgboss' });
  await boss.start();
  const { DRAINERS, batchQueue } = await import('../jobs/billing-tick.ts');
  const jobsBefore = await jobRows();
  const chargesBefore = extraProviderCharges().total;
  const commitsBefore = await commits();
  const stopSampling = sampleWaits();
  const sentBefore = sentCounts();
  const t0 = performance.now();
  // What the minute's tick does (jobs/billing-tick.ts): a few batch jobs, never one per subscription.
  for (let i = 0; i < DRAINERS; i++) await boss.send(batchQueue, {}, { singletonKey: `bench-live-${i}` });
  let paid = 0;
  let maxJobs = 0;
  let last = 0;
  const limitS = Math.max(300, (N / 10_000) * 600);
  // The app's own answer time while the burst's callbacks reach it (GET /healthz, once per poll).
  const health: number[] = [];
  for (;;) {
    const h0 = performance.now();
    await fetch(`${appBase}/healthz`, { signal: AbortSignal.timeout(20_000) }).then(
      (r) => r.arrayBuffer(),
      () => null,
    );
    health.push(performance.now() - h0);
    paid = (
      await one(
        `SELECT count(*)::int AS n FROM invoices WHERE "workspaceId" = $1 AND status = 'paid' AND "billingReason" = 'subscription_cycle'`,
        [ws.workspaceId],
      )
    ).n;
    maxJobs = Math.max(maxJobs, (await jobRows()) - jobsBefore);
    const secs = (performance.now() - t0) / 1000;
    if (secs - last >= 15) {
      last = secs;
      console.log(`    ${fmt(secs, 0)} s: ${fmt(paid)} paid`);
    }
    if (paid >= N || secs > limitS) break;
    await sleep(250);
  }
  const secs = (performance.now() - t0) / 1000;
  const waits = stopSampling();
  const perInvoice = ((await commits()) - commitsBefore) / Math.max(1, paid);
  await boss.stop({ graceful: false });
  console.log(
    `    transactions committed per paid invoice (all processes): ${fmt(perInvoice, 1)}; ` +
      `backends by wait (sampled every 200 ms): ${waits}`,
  );
  const byQueue = await db().system.query(
    `SELECT name, count(*)::int AS n FROM pgboss.job GROUP BY name ORDER BY n DESC LIMIT 8`,
  );
  console.log(`    job rows by queue now: ${byQueue.rows.map((r) => `${r.name} ${r.n}`).join(', ')}`);
  for (const s of sims) await s.flush();
  console.log(`    callbacks answered by the app: ${callbacksSince(sentBefore)}`);
  health.sort((a, b) => a - b);
  console.log(
    `    the app's GET /healthz during the burst: p50 ${fmt(health[Math.floor(health.length / 2)] ?? 0, 1)} ms, ` +
      `max ${fmt(health.at(-1) ?? 0, 1)} ms (${health.length} polls)`,
  );
  const m = await moneyOf(ws.workspaceId);
  const charges = extraProviderCharges();
  const perAdapter = await db().system.query(
    `SELECT adapter, count(*)::int AS n FROM payments WHERE "workspaceId" = $1 AND status = 'succeeded' GROUP BY adapter ORDER BY adapter`,
    [ws.workspaceId],
  );
  console.log(
    `  P1: ${fmt(paid)} of ${fmt(N)} live renewals paid in ${fmt(secs, 1)} s (${fmt(paid / secs)}/s; ` +
      `${perAdapter.rows.map((r) => `${r.adapter} ${fmt(r.n)}`).join(', ')}); receipts ${fmt(m.receipts)}, ` +
      `paid events ${fmt(m.paidEvents)}, provider charges ${fmt(charges.total - chargesBefore)}, double ${m.double}, ` +
      `pending ${m.pending}, unbalanced ${m.unbalanced}; pg-boss job rows (all queues) ${maxJobs}`,
  );
  return [
    [
      `P1 ${fmt(N)} live renewals paid off session within 60 s`,
      paid >= N && secs <= 60,
      `${fmt(secs, 1)} s, ${fmt(paid)}/${fmt(N)}`,
    ],
    [
      'P1 receipts, paid events, balanced, 0 double',
      m.receipts === N && m.paidEvents === N && m.unbalanced === 0 && m.double === 0,
      `${fmt(m.receipts)} receipts, ${fmt(m.paidEvents)} events, ${m.unbalanced} unbalanced, ${m.double} double`,
    ],
    [`P1 pg-boss job rows <= N/50 (${fmt(N / 50)})`, maxJobs <= N / 50, `${maxJobs} rows`],
  ];
};

sections.p2 = async () => {
  const sentBefore = sentCounts();
  const ws = await liveWorkspace('Bench live crash');
  const at = new Date();
  const seeded = await seedDue(ws, CRASH, new Date(at.getTime() - 1000));
  await db().system.query('ANALYZE');
  faults({ drop: 0.05, duplicateRate: 0.1, callbackDelayMs: CALLBACK_DELAY_MS });
  const drainer = (billingAt: Date) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'billing-drain.ts')], {
      env: {
        ...procEnv(),
        LOG_LEVEL: 'silent',
        SVC_DB_POOL: '6',
        BILLING_AT: billingAt.toISOString(),
        SWEEP_PENDING: '1',
      },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    return { child, exited: new Promise<number | null>((r) => child.once('exit', (code) => r(code))) };
  };
  const t0 = performance.now();
  let kills = 0;
  let passes = 0;
  let lastAt = at;
  // Passes of two drainers, one of them SIGKILLed (and started again) every 2 s, until one finishes on
  // its own (nothing due at its instant). What a killed one held is due again once its 5-minute lease
  // passed, so each next pass runs 6 minutes later in business time, until every invoice is paid.
  const runLimit = performance.now() + num('BENCH_LIVE_CRASH_LIMIT_S', 480) * 1000;
  while (passes < 20 && performance.now() < runLimit) {
    const billingAt = new Date(at.getTime() + passes * 6 * 60_000);
    lastAt = billingAt;
    passes++;
    const pair: (ReturnType<typeof drainer> | null)[] = [drainer(billingAt), drainer(billingAt)];
    let turn = 0;
    // While both run, one is SIGKILLed (and started again) every 2 s; one that finished on its own is not
    // started again, and the other is then left to finish what it claimed.
    while (pair.some((d) => d) && performance.now() < runLimit) {
      const done = await Promise.race([
        sleep(2000).then(() => null),
        ...pair.flatMap((d, i) => (d ? [d.exited.then((code) => ({ i, code }))] : [])),
      ]);
      if (done) {
        pair[done.i] = done.code === 0 ? null : drainer(billingAt);
        continue;
      }
      if (!pair[0] || !pair[1]) continue;
      const victim = pair[turn]!;
      victim.child.kill('SIGKILL');
      await victim.exited;
      kills++;
      pair[turn] = drainer(billingAt);
      turn = 1 - turn;
    }
    for (const d of pair) d?.child.kill('SIGKILL');
    await Promise.all(pair.map((d) => d?.exited));
    const now = await moneyOf(ws.workspaceId);
    console.log(
      `    pass ${passes}: ${fmt(now.paid)}/${fmt(now.invoices)} paid, ${now.pending} pending, ${kills} SIGKILLs so far`,
    );
    if (now.invoices === CRASH && now.paid === CRASH && now.pending === 0) break;
  }
  const runS = (performance.now() - t0) / 1000;
  const atRun = await moneyOf(ws.workspaceId);
  // 6 minutes later (business time; the 5-minute leases passed): what the billing tick and the pending sweep do.
  const later = (min: number) => new Date(Math.max(Date.now(), lastAt.getTime()) + min * 60_000);
  await drain(later(6));
  while ((await sweepPendingCharges(500, later(6))) > 0);
  for (const s of sims) await s.flush();
  const afterFaults = await moneyOf(ws.workspaceId);
  faults({});
  await drain(later(12));
  while ((await sweepPendingCharges(500, later(12))) > 0);
  for (const s of sims) await s.flush();
  await sleep(1000);
  const m = await moneyOf(ws.workspaceId);
  const charges = extraProviderCharges();
  const dropped = await one(
    `SELECT count(*)::int AS n FROM payments WHERE "workspaceId" = $1 AND "paymentMethodId" = ANY($2::text[])
       AND status = 'succeeded'`,
    [ws.workspaceId, seeded.map((s) => s.pmId)],
  );
  const late = await one(`SELECT count(*)::int AS n FROM refunds WHERE "workspaceId" = $1 AND reason = 'duplicate'`, [
    ws.workspaceId,
  ]);
  const totalS = (performance.now() - t0) / 1000;
  console.log(`    callbacks answered by the app: ${callbacksSince(sentBefore)}`);
  console.log(
    `  P2: ${fmt(CRASH)} renewals, ${passes} passes, ${kills} SIGKILLs in ${fmt(runS, 1)} s: at the end of the run ${fmt(atRun.paid)} paid, ` +
      `${atRun.pending} pending; 6 min later (faults on) ${fmt(afterFaults.paid)} paid, ${afterFaults.pending} pending; ` +
      `then (drops off) ${fmt(m.paid)}/${fmt(m.invoices)} paid, ${m.pending} pending, ${fmt(dropped.n)} succeeded charges, ` +
      `${late.n} duplicate refunds; double ${m.double}, provider extra charges ${charges.extra}, unbalanced ${m.unbalanced} ` +
      `(${fmt(totalS, 1)} s in all)`,
  );
  return [
    [
      `P2 crash run ${fmt(CRASH)}: 0 invoices with > 1 succeeded payment`,
      m.double === 0,
      `${m.double} (${kills} SIGKILLs)`,
    ],
    ['P2 0 provider charges beyond 1 per payment id', charges.extra === 0, `${charges.extra} extra`],
    [
      'P2 0 pending 6 min after the run',
      m.pending === 0,
      `${afterFaults.pending} with faults on, ${m.pending} after; ${fmt(m.paid)}/${fmt(m.invoices)} paid`,
    ],
    ['P2 every txId balanced', m.unbalanced === 0, `${m.unbalanced} unbalanced`],
  ];
};

/** Payments that took money for an invoice (its own, or late money naming it), and their duplicate refunds. */
async function paidTwice(workspaceId: string, invoiceIds: string[]) {
  const { rows } = await db().system.query(
    `SELECT inv, count(*)::int AS took, count(r.id)::int AS refunded FROM (
       SELECT coalesce(p."invoiceId", p.metadata->>'invoiceId') AS inv, p.id FROM payments p
       WHERE p."workspaceId" = $1 AND p.status IN ('succeeded', 'refunded', 'partially_refunded')
         AND coalesce(p."invoiceId", p.metadata->>'invoiceId') = ANY($2::text[])) t
     LEFT JOIN refunds r ON r."workspaceId" = $1 AND r."paymentId" = t.id AND r.reason = 'duplicate'
     GROUP BY inv`,
    [workspaceId, invoiceIds],
  );
  let twice = 0;
  let unrefunded = 0;
  for (const r of rows) {
    if (r.took > 1) twice++;
    if (r.took - r.refunded > 1) unrefunded++;
  }
  return { twice, unrefunded };
}

const invoiceOf = async (subId: string) =>
  one(`SELECT id, "hostedSecret", total FROM invoices WHERE "subscriptionId" = $1 ORDER BY "createdAt" DESC LIMIT 1`, [
    subId,
  ]);

/**
 * The open renewal invoice of a just-seeded subscription, due for its first attempt but not charged yet:
 * renewed without its method (no attempt), then the method back and the attempt due, so the race's two
 * parties meet the charge itself rather than the renewal batch before it.
 */
async function dueWithoutCharge(s: Seeded) {
  await db().system.query(`UPDATE subscriptions SET "paymentMethod" = NULL WHERE id = $1`, [s.subId]);
  await drain(new Date(), 1);
  const inv = await invoiceOf(s.subId);
  await db().system.query(`UPDATE subscriptions SET "paymentMethod" = $2 WHERE id = $1`, [s.subId, s.pmId]);
  await db().system.query(`UPDATE invoices SET "nextAttemptAt" = now() - interval '1 second' WHERE id = $1`, [inv.id]);
  return inv;
}

sections.p3 = async () => {
  const ws = await liveWorkspace('Bench live races');
  const A: [Kind, number][] = [['provider_a', 1]];
  const out: Target[] = [];
  const roundInvoices: string[] = [];

  // Two drainers on one due invoice.
  {
    const invs: string[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const [s] = await seedDue(ws, 1, new Date(Date.now() - 1000), A);
      await drain(new Date(), 2);
      invs.push((await invoiceOf(s.subId)).id);
    }
    const p = await paidTwice(ws.workspaceId, invs);
    roundInvoices.push(...invs);
    console.log(`  P3 two drainers: ${ROUNDS} rounds, ${p.twice} invoices paid twice, ${p.unrefunded} without refund`);
    out.push([`P3 two drainers, ${ROUNDS} rounds: 0 paid twice unrefunded`, p.unrefunded === 0, `${p.twice} twice`]);
  }

  // Hosted-page payment (QRIS at provider_a, paid by its callback) vs the off-session charge.
  {
    const invs: string[] = [];
    let hostedFirst = 0;
    let conflicts = 0;
    for (let r = 0; r < ROUNDS; r++) {
      // An open invoice with its hosted QRIS charge shown: the renewal without the charge, then the page.
      const [s] = await seedDue(ws, 1, new Date(Date.now() - 1000), A);
      await db().system.query(`UPDATE subscriptions SET "paymentMethod" = NULL WHERE id = $1`, [s.subId]);
      await drain(new Date(), 1);
      const inv = await invoiceOf(s.subId);
      invs.push(inv.id);
      const token = `${inv.id}_${inv.hostedSecret}`;
      const pay = await fetch(`${appBase}/i/${token}/pay`, { method: 'POST', redirect: 'manual' });
      const location = pay.headers.get('location') ?? '';
      const csId = /\/c\/(cs_[0-9A-Z]+)_/.exec(location)?.[1];
      if (!csId) throw new Error(`hosted pay: ${pay.status} ${await pay.text()}`);
      const attempt = await fetch(`${appBase}${location.slice(location.indexOf('/c/'))}/attempt`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ method: 'qris' }),
      });
      if (attempt.status !== 200) throw new Error(`hosted attempt: ${attempt.status} ${await attempt.text()}`);
      const { providerReference } = await one(
        `SELECT "providerReference" FROM checkout_attempts WHERE "checkoutSessionId" = $1 ORDER BY number DESC LIMIT 1`,
        [csId],
      );
      // The method comes back and the invoice is due for its attempt: the charge and the QR payment race.
      await db().system.query(`UPDATE subscriptions SET "paymentMethod" = $2 WHERE id = $1`, [s.subId, s.pmId]);
      await db().system.query(`UPDATE invoices SET "nextAttemptAt" = now() - interval '1 second' WHERE id = $1`, [
        inv.id,
      ]);
      const [, deliveries] = await Promise.all([
        drain(new Date(), 1),
        jitter().then(() => simA.pay(providerReference)),
      ]);
      if (deliveries.some((d) => d.status === 409)) conflicts++;
      const won = await one(
        `SELECT "paymentMethodId" FROM payments WHERE "invoiceId" = $1 AND status = 'succeeded' LIMIT 1`,
        [inv.id],
      );
      if (won && won.paymentMethodId === null) hostedFirst++;
    }
    await simA.flush();
    await sleep(500);
    const p = await paidTwice(ws.workspaceId, invs);
    roundInvoices.push(...invs);
    console.log(
      `  P3 hosted page vs off-session: ${ROUNDS} rounds, hosted first ${hostedFirst}, ${p.twice} invoices took money twice, ` +
        `${p.unrefunded} without a duplicate refund (callbacks answered 409: ${conflicts})`,
    );
    out.push([
      `P3 hosted vs off-session, ${ROUNDS} rounds: 0 paid twice unrefunded`,
      p.unrefunded === 0,
      `${p.twice} twice, ${p.unrefunded} unrefunded`,
    ]);
  }

  // Detach during the charge.
  {
    let lateCharges = 0;
    let charged = 0;
    let detachedInFlight = 0;
    const invs: string[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const [s] = await seedDue(ws, 1, new Date(Date.now() - 1000), A);
      const inv = await dueWithoutCharge(s);
      const { value: detachedAt, inFlight } = await race(r, () =>
        detachPaymentMethod(ctxOf(ws), s.pmId).then(() => Date.now()),
      );
      if (inFlight) detachedInFlight++;
      invs.push(inv.id);
      const calls = simA.requests.filter(
        (q) => q.method === 'POST' && q.path === '/payment_requests' && q.body.includes(s.token),
      );
      if (calls.length) charged++;
      // Started strictly after the detach had committed (its call had returned).
      for (const c of calls) if ((requestTimes.get(c) ?? 0) > detachedAt) lateCharges++;
    }
    const p = await paidTwice(ws.workspaceId, invs);
    roundInvoices.push(...invs);
    console.log(
      `  P3 detach vs charge: ${ROUNDS} rounds (${detachedInFlight} detached while the charge was at the provider), ` +
        `${charged} charged, ${ROUNDS - charged} detached first, ${lateCharges} charges started after the detach committed`,
    );
    out.push([
      `P3 detach vs charge, ${ROUNDS} rounds: 0 charges after detach`,
      lateCharges === 0 && p.unrefunded === 0,
      `${lateCharges} late, ${charged} charged first`,
    ]);
  }

  // Credit note vs the charge in flight.
  {
    let notes = 0;
    let refused = 0;
    let createdInFlight = 0;
    let refusedInFlight = 0;
    let overCredited = 0;
    const invs: string[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const [s] = await seedDue(ws, 1, new Date(Date.now() - 1000), A);
      const inv = await dueWithoutCharge(s);
      invs.push(inv.id);
      const { value: note, inFlight } = await race(r, () =>
        createCreditNote(ctxOf(ws), {
          invoiceId: inv.id,
          amount: Number(inv.total),
          reason: 'order_change',
        } as never).then(
          () => 'created',
          (e: { code?: string; status?: number }) => e.code ?? String(e.status),
        ),
      );
      if (inFlight) note === 'created' ? createdInFlight++ : refusedInFlight++;
      if (note === 'created') notes++;
      else refused++;
      const over = await one(
        `SELECT coalesce(sum(total), 0)::bigint > $2::bigint AS over FROM credit_notes WHERE "invoiceId" = $1 AND status <> 'void'`,
        [inv.id, inv.total],
      );
      if (over.over) overCredited++;
    }
    const p = await paidTwice(ws.workspaceId, invs);
    roundInvoices.push(...invs);
    // How each round ended: invoice status / its charge's status (invoice cleared: late money) / refund.
    const ends = await db().system.query(
      `SELECT i.status || ' / ' || coalesce(p.status, 'no charge') || CASE WHEN p."invoiceId" IS NULL AND p.id IS NOT NULL
           THEN ' (late)' ELSE '' END || ' / ' || coalesce(r.reason || ' ' || r.status, 'no refund') AS k, count(*)::int AS n
       FROM invoices i
       LEFT JOIN payments p ON p."workspaceId" = i."workspaceId" AND p."paymentMethodId" IS NOT NULL
         AND coalesce(p."invoiceId", p.metadata->>'invoiceId') = i.id
       LEFT JOIN refunds r ON r."workspaceId" = p."workspaceId" AND r."paymentId" = p.id
       WHERE i."workspaceId" = $1 AND i.id = ANY($2::text[]) GROUP BY 1 ORDER BY 2 DESC`,
      [ws.workspaceId, invs],
    );
    console.log(`    credit note rounds ended: ${ends.rows.map((x) => `${x.k} x ${x.n}`).join('; ')}`);
    console.log(
      `  P3 credit note vs charge: ${ROUNDS} rounds, ${notes} notes created, ${refused} refused ` +
        `(while the charge was at the provider: ${createdInFlight} created, ${refusedInFlight} refused), ${p.twice} invoices took money twice, ` +
        `${p.unrefunded} without refund, ${overCredited} over-credited`,
    );
    out.push([
      `P3 credit note vs charge, ${ROUNDS} rounds: 0 paid twice unrefunded`,
      p.unrefunded === 0 && overCredited === 0,
      `${notes} notes, ${refused} refused (${refusedInFlight} in flight), ${p.unrefunded} unrefunded`,
    ]);
    // The race table of off-session collection: a credit note on an invoice whose charge is in flight is refused (409 conflict).
    out.push([
      'P3 credit note while the charge is at the provider: 409',
      createdInFlight === 0 && refusedInFlight > 0,
      `${refusedInFlight} refused, ${createdInFlight} created`,
    ]);
  }
  const m = await moneyOf(ws.workspaceId);
  out.push(['P3 all races: ledger balanced', m.unbalanced === 0, `${m.unbalanced} unbalanced, ${m.double} double`]);
  return out;
};

sections.p4 = async () => {
  const ws = await liveWorkspace('Bench live actions');
  const A: [Kind, number][] = [['provider_a', 1]];
  await seedDue(ws, ACTIONS, new Date(Date.now() - 1000), A, 'requires_action');
  await drain(new Date(), 2);
  const w = [ws.workspaceId];
  const same = await one(
    `SELECT count(*)::int AS n, count(e.id)::int AS evented,
       count(*) FILTER (WHERE e.xmin::text = p.xmin::text)::int AS same FROM payments p
     LEFT JOIN events e ON e."workspaceId" = p."workspaceId" AND e.type = 'svc.invoice.payment_action_required.v1'
       AND e.data->'metadata'->>'paymentId' = p.id
     WHERE p."workspaceId" = $1 AND p.status = 'requires_action'`,
    w,
  );
  // The relay (a worker) publishes the events and writes their billing-email jobs in its transaction.
  const started = workers.length ? [] : await startWorkers(1);
  let mailed = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < 60_000) {
    mailed = (
      await one(
        `SELECT count(DISTINCT i)::int AS n FROM pgboss.job j, jsonb_array_elements_text(j.data->'invoiceIds') i
         WHERE j.name = 'billing-email' AND j.data->>'kind' = 'action_required' AND j.data->>'workspaceId' = $1`,
        w,
      ).catch(() => ({ n: 0 }))
    ).n;
    if (mailed >= same.n) break;
    await sleep(250);
  }
  // Expiry on the real clock: the actions run out EXPIRY_S from now; the worker's billing tick expires them.
  await db().system.query(
    `UPDATE payments SET "nextAction" = jsonb_set("nextAction", '{expiresAt}', to_jsonb(to_char((now() + make_interval(secs => $2)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
     WHERE "workspaceId" = $1 AND status = 'requires_action'`,
    [ws.workspaceId, EXPIRY_S],
  );
  const t1 = performance.now();
  const expiresAt = new Map<string, number>(
    (
      await db().system.query(
        `SELECT id, ("nextAction"->>'expiresAt')::timestamptz AS at FROM payments WHERE "workspaceId" = $1 AND status = 'requires_action'`,
        w,
      )
    ).rows.map((r) => [r.id as string, (r.at as Date).getTime()]),
  );
  // Seen failed within this poll's 500 ms: the lag is an upper bound by that much.
  const seen = new Map<string, number>();
  while (seen.size < expiresAt.size && performance.now() - t1 < 180_000) {
    await sleep(500);
    const { rows } = await db().system.query(
      `SELECT id FROM payments WHERE "workspaceId" = $1 AND status = 'failed' AND "failureCode" = 'authentication_required'`,
      w,
    );
    for (const r of rows) if (!seen.has(r.id)) seen.set(r.id, Date.now());
  }
  for (const s of started) s.kill('SIGTERM');
  const lags = [...seen].map(([id, t]) => (t - (expiresAt.get(id) ?? t)) / 1000);
  const lag = { n: lags.length, max: lags.length ? Math.max(...lags) : 0 };
  const left = expiresAt.size - seen.size;
  const inTime = same.n > 0 && same.same === same.n;
  console.log(
    `  P4: ${ACTIONS} renewals, ${same.n} requires_action, ${same.evented} with their event, ${same.same} in the same commit, ` +
      `${mailed} billing-email (action_required) invoices; expired ${lag.n} (left ${left}), max lag ${fmt(lag.max, 1)} s after expiresAt`,
  );
  return [
    [
      'P4 event in the same commit as requires_action (100 %)',
      inTime && same.n === ACTIONS,
      `${same.same}/${same.n} (${ACTIONS} renewals)`,
    ],
    ['P4 billing-email job for each (100 %)', mailed === same.n && same.n > 0, `${mailed}/${same.n}`],
    [
      'P4 expiry <= 60 s after expiresAt',
      left === 0 && lag.n === same.n && lag.max <= 60,
      `max ${fmt(lag.max, 1)} s, ${left} left`,
    ],
  ];
};

const P5_SESSIONS = num('BENCH_SETUP_SESSIONS', 100);
const P5_METHODS = num('BENCH_EXPIRY_METHODS', 100_000);
/** Of those, due now (the rest expire within a year). */
const P5_DUE = num('BENCH_EXPIRY_DUE', 100);
const quantile = (xs: number[], q: number) => {
  const t = [...xs].sort((a, b) => a - b);
  return t[Math.min(t.length - 1, Math.floor(q * t.length))] ?? 0;
};

sections.p5 = async () => {
  const { createSetupSession } = await import('../src/modules/setup-sessions/service.ts');
  const { expireDueMethods } = await import('../src/modules/payment-methods/expiry.ts');
  const ws = await liveWorkspace('Bench setup sessions');
  const cus = `cus_bench${rand(10)}`;
  await db().system.query(
    `INSERT INTO customers (id, "workspaceId", mode, name, email, phone) VALUES ($1, $2, 'live', 'Bench', 'b@example.com', '+6281234560000')`,
    [cus, ws.workspaceId],
  );
  const page: number[] = [];
  const completed: number[] = [];
  let done = 0;
  for (let i = 0; i < P5_SESSIONS; i++) {
    const ss = await createSetupSession(ctxOf(ws), {
      customerId: cus,
      types: ['ewallet'],
      currency: 'IDR',
      successUrl: 'https://shop.example/saved',
      cancelUrl: 'https://shop.example/account',
    });
    // The row's hosted secret, as the merchant has it inside `hostedUrl`.
    const token = `${ss.id}_${ss.hostedSecret}`;
    // The hosted page (public), as the customer's browser asks for it.
    for (let k = 0; k < 3; k++) {
      const t0 = performance.now();
      const res = await fetch(`${appBase}/s/${token}`);
      await res.text();
      page.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`GET /s/<token>: ${res.status}`);
    }
    const a = await fetch(`${appBase}/s/${token}/attempt`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'ewallet', channel: 'ovo', phone: '+62 812-3456-0000' }),
    });
    const next = ((await a.json()) as { data?: { next?: { redirectUrl?: string } } }).data?.next?.redirectUrl;
    if (a.status !== 200 || !next) throw new Error(`setup attempt: ${a.status}`);
    // The customer links the wallet on the provider's page; the provider's token callback alone completes the
    // session (the customer never comes back): from the link to `completed` in the database.
    const t1 = performance.now();
    await fetch(next, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ phone: '+62 812-3456-0000' }).toString(),
      redirect: 'manual',
    });
    for (let k = 0; k < 500; k++) {
      const r = await one(`SELECT status FROM setup_sessions WHERE id = $1`, [ss.id]);
      if (r.status === 'completed') {
        completed.push(performance.now() - t1);
        done++;
        break;
      }
      await sleep(5);
    }
  }
  // The expiry sweep with P5_METHODS active methods of one workspace, P5_DUE of them due.
  const exp = await liveWorkspace('Bench expiry');
  await db().system.query(
    `INSERT INTO customers (id, "workspaceId", mode, name) SELECT 'cus_benchx' || g, $1, 'live', 'Bench' FROM generate_series(1, $2) g`,
    [exp.workspaceId, Math.ceil(P5_METHODS / 100)],
  );
  await db().system.query(
    `INSERT INTO payment_methods (id, "workspaceId", mode, "customerId", type, status, adapter, card, consent,
       "providerToken", "providerTokenHash", "expiresAt")
     SELECT 'pm_benchx' || lpad(g::text, 10, '0'), $1, 'live', 'cus_benchx' || (1 + g % $3), 'card', 'active', 'provider_a',
       '{"brand":"visa","last4":"4242","expMonth":12,"expYear":2030,"funding":"credit"}',
       '{"source":"setup_session","sourceId":null,"at":"2026-01-01T00:00:00.000Z"}', decode(md5(g::text || 'token'), 'hex'),
       md5(g::text || $1), CASE WHEN g % $4 = 0 THEN now() - interval '1 minute' ELSE now() + interval '1 year' + g * interval '1 second' END
     FROM generate_series(1, $2) g`,
    [exp.workspaceId, P5_METHODS, Math.ceil(P5_METHODS / 100), Math.max(1, Math.floor(P5_METHODS / P5_DUE))],
  );
  await db().system.query('ANALYZE payment_methods');
  const plan = (
    await db().system.query(
      `EXPLAIN SELECT p.id FROM payment_methods p JOIN workspaces w ON w.id = p."workspaceId"
       WHERE p.status = 'active' AND p."expiresAt" IS NOT NULL AND p."expiresAt" <= now() AND p."testClockId" IS NULL
       ORDER BY p."expiresAt" LIMIT 500`,
    )
  ).rows
    .map((r) => r['QUERY PLAN'] as string)
    .join(' ');
  const indexScan = /Index (Only )?Scan using payment_methods_expiry/.test(plan);
  const t2 = performance.now();
  let expired = 0;
  for (;;) {
    const n = await expireDueMethods();
    expired += n;
    if (n === 0) break;
  }
  const sweepS = (performance.now() - t2) / 1000;
  const p95page = quantile(page, 0.95);
  const p95done = quantile(completed, 0.95);
  console.log(
    `  P5: ${P5_SESSIONS} live setup sessions (provider_a OVO): GET /s/<token> x ${page.length} p50 ${fmt(quantile(page, 0.5), 1)} ms ` +
      `p95 ${fmt(p95page, 1)} ms; link -> completed by the token callback ${done}/${P5_SESSIONS}, p50 ` +
      `${fmt(quantile(completed, 0.5), 1)} ms p95 ${fmt(p95done, 1)} ms; expiry sweep over ${fmt(P5_METHODS)} active methods: ` +
      `${fmt(expired)} expired in ${fmt(sweepS, 2)} s, ${indexScan ? 'index scan' : `plan: ${plan.slice(0, 160)}`}`,
  );
  return [
    ['P5 setup hosted page p95 < 100 ms', p95page < 100, `${fmt(p95page, 1)} ms`],
    [
      'P5 token callback -> completed p95 < 200 ms',
      done === P5_SESSIONS && p95done < 200,
      `${fmt(p95done, 1)} ms, ${done}/${P5_SESSIONS} completed`,
    ],
    [
      `P5 expiry sweep over ${fmt(P5_METHODS)} methods < 1 s (index scan)`,
      sweepS < 1 && indexScan,
      `${fmt(sweepS, 2)} s for ${fmt(expired)} due, ${indexScan ? 'index scan' : 'no index scan'}`,
    ],
  ];
};

let failed = false;
try {
  const cpus = os.cpus();
  console.log(
    `node ${process.version}, ${cpus[0]?.model} x ${cpus.length}, ${fmt(os.totalmem() / 2 ** 30, 1)} GiB; ` +
      `P1 ${fmt(N)}, P2 ${fmt(CRASH)}, P3 ${ROUNDS} rounds, P4 ${ACTIONS}; simulators +${LATENCY_MS} ms`,
  );
  await scratch.create();
  await migrate(scratch.url);
  openDatabase(scratch.url);
  for (const s of sims) await s.start();
  process.env.PROVIDER_A_BASE_URL = simA.url;
  process.env.PROVIDER_B_BASE_URL = simB.url;
  process.env.PROVIDER_C_BASE_URL = simC.url;
  process.env.PROVIDER_C_WEBHOOK_ID = cCreds.webhookId;
  const started = await startApp(scratch.url, {
    env: {
      PROVIDER_A_BASE_URL: simA.url,
      PROVIDER_B_BASE_URL: simB.url,
      PROVIDER_C_BASE_URL: simC.url,
      PROVIDER_C_WEBHOOK_ID: cCreds.webhookId,
    },
  });
  app = started.child;
  appBase = started.base;
  process.env.SVC_CALLBACK_BASE_URL = appBase;
  simA.callbackUrl = `${appBase}/v1/callbacks/provider_a`;
  simB.notificationUrl = `${appBase}/v1/callbacks/provider_b`;
  simC.webhookUrl = `${appBase}/v1/callbacks/provider_c`;
  const targets: Target[] = [];
  const want = (s: string) => !only || only.includes(s);
  // P4 first: its same-commit check reads the events before any relay (a worker) marks them published.
  if (want('p4')) targets.push(...(await sections.p4()));
  if (want('p1')) workers = await startWorkers(2);
  if (want('p1')) targets.push(...(await sections.p1()));
  for (const w of workers) w.kill('SIGTERM');
  workers = [];
  if (want('p2')) targets.push(...(await sections.p2()));
  if (want('p3')) targets.push(...(await sections.p3()));
  if (want('p5')) targets.push(...(await sections.p5()));
  printTargets('collection-live', targets);
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  for (const w of workers) w.kill('SIGTERM');
  app?.kill('SIGTERM');
  await Promise.all(sims.map((s) => s.close().catch(() => {})));
  await closeDatabase().catch(() => {});
  await scratch.drop();
}
process.exit(failed ? 1 : 0);
