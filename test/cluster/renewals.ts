// Renewals across the faults for test/cluster: subscriptions on a daily plan for customers on a test
// clock, charged off session from the stored test method (`pm_test_success`). A loop advances the clock
// one day at a time through an API node while the faults run; each advance renews every subscription
// (a request walks the clock when a walker is free, else the workers' job does; a walk cut by a fault
// is resumed by the workers' sweep). Afterwards: one invoice per subscription and period, at most one
// succeeded payment per invoice, and every subscription's current period contains the clock's time.
import { randomUUID } from 'node:crypto';
import type { Client } from '../../src/client/index.ts';
import { deadline, sleep } from './faults.ts';

const DAY = 86_400_000;
type Sys = (text: string, values: unknown[]) => Promise<any[]>;

/** POST under one Idempotency-Key until 2xx (a lost answer or a 5xx is retried with the same key). */
async function created(client: Client, path: string, body: unknown) {
  const k = randomUUID();
  for (let attempt = 0; attempt < 300; attempt++) {
    const r = await client.post(path, body, { 'idempotency-key': k }).catch(() => null);
    if (r && r.status >= 200 && r.status < 300) return r.json.data;
    if (r && r.status !== 503 && r.status !== 409) throw new Error(`${path} ${r.status}: ${r.text}`);
    await sleep(500);
  }
  throw new Error(`${path} never succeeded`);
}

export async function renewalLoad(client: Client, sys: Sys, count = 8) {
  const start = '2026-01-01T00:00:00.000Z';
  const clock = await created(client, '/v1/test-clocks', { frozenTime: start, name: 'cluster renewals' });
  const plan = await created(client, '/v1/plans', {
    name: 'Daily',
    interval: 'day',
    portalFeatures: {
      selfServeCancel: true,
      selfServePause: true,
      selfServeUpgrade: true,
      selfServeDowngrade: true,
      updatePaymentMethod: true,
    },
    prices: [{ currency: 'IDR', model: 'flat', unitAmount: 50000 }],
  });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const cus = await created(client, '/v1/customers', { name: `renewing ${i}`, testClockId: clock.id });
    const sub = await created(client, '/v1/subscriptions', {
      customerId: cus.id,
      priceId: plan.prices[0].id,
      paymentMethod: 'pm_test_success',
    });
    ids.push(sub.id);
  }
  const clockOf = async () =>
    (await client.get(`/v1/test-clocks/${clock.id}`)).json?.data as { frozenTime: string; status: string } | undefined;
  /** Advance start and end times (ms since the epoch on the wall) and the day each reached. */
  const advances: { t: number; done: number; day: number }[] = [];
  let target = Date.parse(start);
  let stop = false;
  let failures = 0;
  const done = (async () => {
    while (!stop) {
      target += DAY;
      const t = Date.now();
      // Posted until the clock is at the target (a lost answer may have moved it already); a clock left
      // advancing by a fault is finished by the workers' sweep.
      await deadline(
        async () => {
          const now = await clockOf().catch(() => undefined);
          if (!now || now.status === 'advancing') return false;
          const at = Date.parse(now.frozenTime);
          if (at >= target && now.status === 'ready') return true;
          // A walk cut by a fault leaves `internal_failure` at the time reached: advanced again, as a
          // user would (past the target when the walk had reached it: one day more).
          if (now.status === 'internal_failure') {
            failures++;
            if (at >= target) target = at + DAY;
          }
          await client
            .post(`/v1/test-clocks/${clock.id}/advance`, { frozenTime: new Date(target).toISOString() })
            .catch(() => null);
          return false;
        },
        'the test clock advanced',
        240_000,
      );
      advances.push({ t, done: Date.now(), day: (target - Date.parse(start)) / DAY });
      await sleep(1000);
    }
  })();
  return {
    advances,
    async stop() {
      stop = true;
      await done;
    },
    /** Figures and violations once the loop has stopped. */
    async check() {
      const invoices = await sys(
        `SELECT "subscriptionId" AS sub, "periodStart"::text AS period, count(*) AS n FROM invoices
          WHERE "subscriptionId" = ANY($1) GROUP BY 1, 2`,
        [ids],
      );
      const twice = invoices.filter((r: { n: string }) => Number(r.n) > 1);
      const charges = await sys(
        `SELECT "invoiceId" AS invoice, count(*) AS n FROM payments
          WHERE "invoiceId" IN (SELECT id FROM invoices WHERE "subscriptionId" = ANY($1)) AND status = 'succeeded'
          GROUP BY 1`,
        [ids],
      );
      const doubleCharged = charges.filter((r: { n: string }) => Number(r.n) > 1);
      const paid = await sys(`SELECT status, count(*) AS n FROM invoices WHERE "subscriptionId" = ANY($1) GROUP BY 1`, [
        ids,
      ]);
      const now = target;
      const subs = await sys(
        `SELECT id, "periodIndex", "currentPeriodStart" AS start, "currentPeriodEnd" AS end, status
           FROM subscriptions WHERE id = ANY($1)`,
        [ids],
      );
      const notCurrent = subs.filter(
        (s: { start: Date; end: Date }) => !(s.start.getTime() <= now && now < s.end.getTime()),
      );
      // Every period from the first to the current one has its invoice (none skipped).
      const perSub = new Map<string, number>();
      for (const r of invoices as { sub: string }[]) perSub.set(r.sub, (perSub.get(r.sub) ?? 0) + 1);
      const gaps = subs
        .filter((s: { id: string; periodIndex: number }) => perSub.get(s.id) !== s.periodIndex + 1)
        .map((s: { id: string }) => s.id);
      return {
        figures: {
          subscriptions: ids.length,
          days: (target - Date.parse(start)) / DAY,
          clockFailuresReadvanced: failures,
          invoices: invoices.length,
          invoicesByStatus: Object.fromEntries(paid.map((r: { status: string; n: string }) => [r.status, Number(r.n)])),
          succeededPayments: charges.length,
        },
        twice,
        doubleCharged,
        notCurrent,
        gaps,
      };
    },
  };
}
