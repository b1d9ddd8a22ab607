import { randomUUID } from 'node:crypto';
import { db, type Workspace } from './server.ts';
import { planBody, postPlan } from './plans.ts';
import { newId } from '../../src/core/ids.ts';
import { periodOf, type Interval } from '../../src/core/periods.ts';

/** A plan (POST /v1/plans) and its first price id. */
export async function plan(ws: Workspace, extra: Record<string, unknown> = {}) {
  const res = await postPlan(ws, planBody(extra));
  if (res.status !== 201) throw new Error(`plan: ${res.status} ${JSON.stringify(res.json)}`);
  return { planId: res.json.data.id as string, priceId: res.json.data.prices[0].id as string };
}

export async function customer(ws: Workspace) {
  const res = await ws.client.post('/v1/customers', { name: 'Sari', email: 'sari@example.com' });
  return res.json.data.id as string;
}

export async function dunningPolicy(ws: Workspace, retryScheduleDays: number[], finalAction: string) {
  const res = await ws.client.post(
    '/v1/dunning-policies',
    { retryScheduleDays, finalAction },
    { 'idempotency-key': randomUUID() },
  );
  if (res.status !== 201) throw new Error(`policy: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json.data.id as string;
}

/**
 * A subscription written as the billing tick finds it (period `periodIndex` from `anchorAt`), by the
 * owner connection: renewals are tested apart from the create path (which charges its own first invoice).
 */
export async function seedSubscription(
  ws: Workspace,
  o: {
    customerId: string;
    planId: string;
    priceId: string;
    anchorAt: Date;
    interval?: Interval;
    status?: string;
    paymentMethod?: string | null;
    quantity?: number;
    trialEnd?: Date | null;
    cancelAtPeriodEnd?: boolean;
    currency?: string;
    testClockId?: string | null;
  },
) {
  const id = newId('subscription');
  const trial = o.trialEnd != null;
  const p = trial
    ? { start: new Date(o.anchorAt.getTime() - 14 * 86_400_000), end: o.trialEnd! }
    : periodOf(o.trialEnd ?? o.anchorAt, { interval: o.interval ?? 'month', intervalCount: 1 }, 0);
  await db().system.query(
    `INSERT INTO subscriptions (id, "workspaceId", mode, status, "customerId", "planId", "priceId", currency, quantity,
       "paymentMethod", "anchorAt", "periodIndex", "currentPeriodStart", "currentPeriodEnd", "trialEnd",
       "cancelAtPeriodEnd", "testClockId", "createdAt", "updatedAt")
     VALUES ($1, $2, 'test', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $12, $12)`,
    [
      id,
      ws.workspaceId,
      o.status ?? (trial ? 'trialing' : 'active'),
      o.customerId,
      o.planId,
      o.priceId,
      o.currency ?? 'IDR',
      o.quantity ?? 1,
      o.paymentMethod === undefined ? 'pm_test_success' : o.paymentMethod,
      trial ? o.trialEnd : o.anchorAt,
      trial ? -1 : 0,
      p.start,
      p.end,
      o.trialEnd ?? null,
      o.cancelAtPeriodEnd ?? false,
      o.testClockId ?? null,
    ],
  );
  return id;
}

export const scopeOf = (ws: Workspace) => ({ workspaceId: ws.workspaceId, mode: 'test' as const });

export async function subscriptionRow(id: string) {
  return (await db().system.query('SELECT * FROM subscriptions WHERE id = $1', [id])).rows[0];
}

export async function invoicesOf(subscriptionId: string) {
  return (
    await db().system.query(`SELECT * FROM invoices WHERE "subscriptionId" = $1 ORDER BY "periodStart", "createdAt"`, [
      subscriptionId,
    ])
  ).rows;
}

const at10 = (day: string) => new Date(`${day}T10:00:00.000Z`);

/**
 * A cycle invoice past due whose retry will pay: the renewal of 2026-02-10 (which charges in its own
 * transaction) is declined, then the stored method becomes one that pays; the retry is due 2026-02-11.
 */
export async function pastDueWithPayingRetry(
  ws: Workspace,
  o: { customerId: string; planId: string; priceId: string },
) {
  const { processDue } = await import('../../src/modules/subscriptions/renewals.ts');
  const sub = await seedSubscription(ws, { ...o, anchorAt: at10('2026-01-10'), paymentMethod: 'pm_test_decline' });
  await processDue({ scope: scopeOf(ws), at: at10('2026-02-10'), testClockId: null, limit: 1 });
  await db().system.query(`UPDATE subscriptions SET "paymentMethod" = 'pm_test_success' WHERE id = $1`, [sub]);
  const [inv] = await invoicesOf(sub);
  return { sub, inv };
}
