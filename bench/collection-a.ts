/**
 * `npm run bench:collection:a`: off-session collection of saved methods in test mode: sandbox
 * `pm_` methods charged in process by the renewal batch. Live provider-held methods through the simulators
 * (P1-P5 of the collection brief) are bench/collection-live.ts.
 *
 *  burst   BENCH_COLLECTION (10,000) subscriptions of one workspace due at one instant, each with its own
 *          sandbox method (90 % success, 4 % charge_declined, 3 % insufficient_funds, 2 % expired_card,
 *          1 % revoked), drained by BENCH_DRAINERS (2) concurrent `processDue` loops in this process:
 *          seconds until every invoice has its charge; double charges, payments left pending, unbalanced
 *          txIds, methods expired/revoked by their answer (each must equal its scenario count)
 *  detach  BENCH_ROUNDS (100) rounds of "detach vs charge": a due subscription's method is detached while a
 *          drainer charges it; a charge of a method created after its detach committed is a failure
 * Env: BENCH_ADMIN_URL, BENCH_COLLECTION, BENCH_DRAINERS, BENCH_ROUNDS.
 */
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { fmt, num, printTargets, scratchDatabase, type Target } from './lib.ts';
import type { Context } from '../src/core/context.ts';

const N = num('BENCH_COLLECTION', 10_000);
const DRAINERS = num('BENCH_DRAINERS', 2);
const ROUNDS = num('BENCH_ROUNDS', 100);

const { migrate } = await import('../src/core/db/migrate.ts');
const { openDatabase, closeDatabase, db } = await import('../src/core/db/client.ts');
const { bootstrapWorkspace } = await import('../src/modules/workspaces/service.ts');
const { seal } = await import('../src/core/sealed.ts');
const { newId } = await import('../src/core/ids.ts');
const { providerTokenHash, SANDBOX_ADAPTER, detachPaymentMethod } = await import(
  '../src/modules/payment-methods/service.ts'
);
const { scenarios } = await import('../src/modules/payment-methods/scenarios.ts');
const { processDue } = await import('../src/modules/subscriptions/renewals.ts');

const scratch = scratchDatabase();
const mix: [keyof typeof scenarios, number][] = [
  ['success', 0.9],
  ['charge_declined', 0.04],
  ['insufficient_funds', 0.03],
  ['expired_card', 0.02],
  ['revoked', 0.01],
];

/** `n` due subscriptions, each with its customer and sandbox method (sealed token), in a few statements. */
async function seedDue(workspaceId: string, n: number, due: Date) {
  const tag = randomBytes(4).toString('hex');
  const month = new Date(due);
  month.setUTCMonth(month.getUTCMonth() - 1);
  await db().system.query(
    `INSERT INTO plans (id, "workspaceId", mode, name, interval, "portalFeatures") VALUES ($1, $2, 'test', 'Bench', 'month', '{}')`,
    [`pln_bench${tag}`, workspaceId],
  );
  await db().system.query(
    `INSERT INTO prices (id, "workspaceId", mode, "planId", position, currency, model, "unitAmount")
     VALUES ($1, $2, 'test', $3, 0, 'IDR', 'flat', 150000)`,
    [`pr_bench${tag}`, workspaceId, `pln_bench${tag}`],
  );
  const counts: Record<string, number> = {};
  const rows: Record<string, unknown>[] = [];
  let i = 0;
  for (const [scenario, share] of mix) {
    const k = scenario === 'success' ? n - Math.round(n * (1 - share)) : Math.round(n * share);
    for (let j = 0; j < k && i < n; j++, i++) {
      const id = newId('paymentMethod');
      const token = `sbx_${scenarios[scenario].last4}_${randomBytes(16).toString('hex')}`;
      rows.push({
        id,
        customerId: `cus_bench${tag}${String(i).padStart(12, '0')}`,
        subId: `sub_bench${tag}${String(i).padStart(12, '0')}`,
        token: Buffer.from(seal('payment_methods', { id, workspaceId, mode: 'test' }, Buffer.from(token))).toString(
          'hex',
        ),
        hash: providerTokenHash(SANDBOX_ADAPTER, token),
      });
      counts[scenario] = (counts[scenario] ?? 0) + 1;
    }
  }
  for (let at = 0; at < rows.length; at += 2000) {
    const part = rows.slice(at, at + 2000);
    const col = (k: string) => part.map((r) => r[k]);
    await db().system.query(
      `WITH r AS (SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS r(id, cus, sub, token, hash)),
       c AS (INSERT INTO customers (id, "workspaceId", mode, name) SELECT cus, $1, 'test', 'Bench' FROM r),
       p AS (INSERT INTO payment_methods (id, "workspaceId", mode, "customerId", type, status, adapter, card, consent,
               "providerToken", "providerTokenHash")
             SELECT id, $1, 'test', cus, 'card', 'active', 'provider_a_platform',
               '{"brand":"visa","last4":"4242","expMonth":12,"expYear":2040,"funding":"credit"}',
               '{"source":"test","sourceId":null,"at":"2026-01-01T00:00:00.000Z"}', decode(token, 'hex'), hash FROM r)
       INSERT INTO subscriptions (id, "workspaceId", mode, status, "customerId", "planId", "priceId", currency, quantity,
         "paymentMethod", "anchorAt", "periodIndex", "currentPeriodStart", "currentPeriodEnd", "createdAt", "updatedAt")
       SELECT sub, $1, 'test', 'active', cus, $7, $8, 'IDR', 1, id, $9, 0, $9, $10, $9, $9 FROM r`,
      [
        workspaceId,
        col('id'),
        col('customerId'),
        col('subId'),
        col('token'),
        col('hash'),
        `pln_bench${tag}`,
        `pr_bench${tag}`,
        month,
        due,
      ],
    );
  }
  return counts;
}

async function drain(at: Date) {
  const one = async () => {
    for (;;) {
      const r = await processDue({ scope: null, at, testClockId: null, limit: 500 });
      if (!r.more && r.renewed + r.canceled + r.attempted === 0) return;
    }
  };
  await Promise.all(Array.from({ length: DRAINERS }, one));
}

const one = async (text: string, params: unknown[]) => (await db().system.query(text, params)).rows[0];

async function burst(): Promise<Target[]> {
  const ws = await bootstrapWorkspace({ name: 'Bench collection' });
  const due = new Date(Date.now() - 1000);
  const counts = await seedDue(ws.workspaceId, N, due);
  await db().system.query('ANALYZE');
  const t0 = performance.now();
  await drain(new Date());
  const secs = (performance.now() - t0) / 1000;
  const w = [ws.workspaceId];
  const charged = await one(
    `SELECT count(DISTINCT "invoiceId")::int AS n, count(*) FILTER (WHERE status = 'succeeded')::int AS ok
       FROM payments WHERE "workspaceId" = $1`,
    w,
  );
  const double = await one(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM payments WHERE "workspaceId" = $1 AND status = 'succeeded'
       GROUP BY "invoiceId" HAVING count(*) > 1) d`,
    w,
  );
  const pending = await one(
    `SELECT count(*)::int AS n FROM payments WHERE "workspaceId" = $1 AND status = 'pending'`,
    w,
  );
  const unbalanced = await one(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM ledger_entries WHERE "workspaceId" = $1
       GROUP BY "txId", currency HAVING sum(CASE direction WHEN 'debit' THEN amount ELSE -amount END) <> 0) d`,
    w,
  );
  const moved = await one(
    `SELECT count(*) FILTER (WHERE status = 'expired')::int AS expired, count(*) FILTER (WHERE status = 'revoked')::int AS revoked
       FROM payment_methods WHERE "workspaceId" = $1`,
    w,
  );
  console.log(
    `  burst: ${fmt(charged.n)} of ${fmt(N)} invoices charged (${fmt(charged.ok)} succeeded) in ${fmt(secs, 1)} s ` +
      `(${fmt(charged.n / secs)}/s, ${DRAINERS} drainers); double ${double.n}, pending ${pending.n}, unbalanced ${unbalanced.n}, ` +
      `expired ${moved.expired}/${counts.expired_card ?? 0}, revoked ${moved.revoked}/${counts.revoked ?? 0}`,
  );
  return [
    [
      `${fmt(N)} sandbox renewals charged within 60 s`,
      charged.n === N && secs <= 60,
      `${fmt(secs, 1)} s, ${fmt(charged.n)}/${fmt(N)}`,
    ],
    [
      '0 double charges, 0 pending, balanced',
      double.n + pending.n + unbalanced.n === 0,
      `${double.n}/${pending.n}/${unbalanced.n}`,
    ],
    ['success share succeeded', charged.ok === (counts.success ?? 0), `${fmt(charged.ok)}/${fmt(counts.success ?? 0)}`],
    [
      'methods moved by their answer',
      moved.expired === (counts.expired_card ?? 0) && moved.revoked === (counts.revoked ?? 0),
      `${moved.expired} expired, ${moved.revoked} revoked`,
    ],
  ];
}

async function detachRace(): Promise<Target[]> {
  const ws = await bootstrapWorkspace({ name: 'Bench detach' });
  const auth = {
    apiKeyId: ws.apiKey.id,
    keyId: ws.apiKey.keyId,
    mode: 'test' as const,
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
  };
  let late = 0;
  let charged = 0;
  let detachedFirst = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const due = new Date(Date.now() - 1000);
    await seedDue(ws.workspaceId, 1, due);
    const { id } = await one(
      `SELECT id FROM payment_methods WHERE "workspaceId" = $1 AND status = 'active' ORDER BY "createdAt" DESC, id DESC LIMIT 1`,
      [ws.workspaceId],
    );
    await Promise.all([
      drain(new Date()),
      // The bench acts as the workspace's key, without an HTTP request.
      detachPaymentMethod({ requestId: `req_bench${r}`, auth } as unknown as Context, id),
    ]);
    const row = await one(
      `SELECT m."detachedAt", p."createdAt" AS charged FROM payment_methods m
         LEFT JOIN payments p ON p."workspaceId" = m."workspaceId" AND p."paymentMethodId" = m.id WHERE m.id = $1`,
      [id],
    );
    if (row.charged) charged++;
    else detachedFirst++;
    if (row.charged && row.charged > row.detachedAt) late++;
  }
  console.log(
    `  detach vs charge: ${ROUNDS} rounds, ${charged} charged first, ${detachedFirst} detached first, ${late} late`,
  );
  return [[`detach vs charge, ${ROUNDS} rounds: 0 late charges`, late === 0, `${late} late, ${charged} charged first`]];
}

let failed = false;
try {
  const cpus = os.cpus();
  console.log(`node ${process.version}, ${cpus[0]?.model} x ${cpus.length}; ${fmt(N)} subscriptions`);
  await scratch.create();
  await migrate(scratch.url);
  openDatabase(scratch.url);
  const targets = [...(await burst()), ...(await detachRace())];
  printTargets('collection-a', targets);
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  await closeDatabase().catch(() => {});
  await scratch.drop();
}
process.exit(failed ? 1 : 0);
