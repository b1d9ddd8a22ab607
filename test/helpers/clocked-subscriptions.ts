import { db } from '../../src/core/db/client.ts';
import { newId } from '../../src/core/ids.ts';
import { periodOf } from '../../src/core/periods.ts';
import type { Workspace } from './server.ts';
import { planBody, postPlan } from './plans.ts';

/**
 * Subscriptions on a test clock written as rows (house rules: time is moved by the clock or by
 * writing rows as of a time): active and paid for period 0 from `anchor`, or trialing until
 * `trialEnd` (docs/billing.md, Trials: the trial is period -1, `[anchor, trialEnd)`). What is under test
 * is what the clock does with them afterwards.
 */
export async function clockedSubscriptions(
  ws: Workspace,
  o: {
    testClockId: string;
    anchor: string;
    count?: number;
    trialEnd?: string;
    paymentMethod?: string;
    unitAmount?: number;
    customerId?: string;
    dunningPolicyId?: string;
  },
) {
  const plan = (
    await postPlan(
      ws,
      planBody({
        prices: [{ currency: 'IDR', model: 'flat', unitAmount: o.unitAmount ?? 150000 }],
        ...(o.dunningPolicyId ? { dunningPolicyId: o.dunningPolicyId } : {}),
      }),
    )
  ).json.data;
  const customerId =
    o.customerId ??
    (await ws.client.post('/v1/customers', { name: 'On a clock', testClockId: o.testClockId })).json.data.id;
  const anchor = new Date(o.anchor);
  const trialEnd = o.trialEnd ? new Date(o.trialEnd) : null;
  const firstEnd = periodOf(anchor, { interval: 'month', intervalCount: 1 }, 0).end;
  const rows = Array.from({ length: o.count ?? 1 }, () => ({
    id: newId('subscription'),
    workspaceId: ws.workspaceId,
    mode: 'test',
    status: trialEnd ? 'trialing' : 'active',
    customerId,
    planId: plan.id,
    priceId: plan.prices[0].id,
    currency: 'IDR',
    quantity: 1,
    paymentMethod: o.paymentMethod ?? 'pm_test_success',
    anchorAt: trialEnd ?? anchor,
    periodIndex: trialEnd ? -1 : 0,
    currentPeriodStart: anchor,
    currentPeriodEnd: trialEnd ?? firstEnd,
    trialEnd,
    cancelAtPeriodEnd: false,
    testClockId: o.testClockId,
    createdAt: anchor,
    updatedAt: anchor,
  }));
  await db().system.query(
    `INSERT INTO subscriptions SELECT * FROM jsonb_populate_recordset(NULL::subscriptions, $1::jsonb)`,
    [JSON.stringify(rows)],
  );
  return { plan, customerId, ids: rows.map((r) => r.id) };
}
