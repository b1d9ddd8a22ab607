/**
 * A paused subscription is not renewed, but `cancelAtPeriodEnd` still cancels it at its period end
 * (src/modules/subscriptions/states.ts `periodEndDue`), whether the flag was set by a cancel request
 * or by a workspace archive; nothing is invoiced for the paused period.
 */
import { describe, expect, it } from 'vitest';
import { processDue } from '../../../src/modules/subscriptions/renewals.ts';
import { customer, invoicesOf, plan, scopeOf, seedSubscription, subscriptionRow } from '../../helpers/renewals.ts';
import { db, useServer } from '../../helpers/server.ts';

const server = useServer();
const utc = (s: string) => new Date(`${s}T10:00:00.000Z`);
const eventTypes = async (objectId: string) =>
  (
    await db().system.query(`SELECT type FROM events WHERE "objectId" = $1 ORDER BY "createdAt", sequence`, [objectId])
  ).rows.map((r) => r.type as string);

describe('a paused subscription with cancelAtPeriodEnd', () => {
  it('is canceled at its period end by the billing tick, with no invoice; one without the flag stays paused', async () => {
    const ws = await server.workspace();
    const licensed = await plan(ws);
    const usage = await plan(ws, {
      name: 'Metered',
      usageAggregate: 'sum',
      prices: [{ currency: 'IDR', model: 'usage', unitAmount: 1000 }],
    });
    const cus = await customer(ws);
    const seed = (p: { planId: string; priceId: string }, cancelAtPeriodEnd: boolean) =>
      seedSubscription(ws, { customerId: cus, ...p, anchorAt: utc('2026-01-10'), status: 'paused', cancelAtPeriodEnd });
    const flagged = await seed(licensed, true);
    const metered = await seed(usage, true);
    const kept = await seed(licensed, false);
    // Not yet at the period end: nothing happens.
    await processDue({ scope: null, at: utc('2026-02-09'), testClockId: null });
    expect((await subscriptionRow(flagged)).status).toBe('paused');
    // The real-time tick (every tenant): both flagged ones cancel at their period end.
    const out = await processDue({ scope: null, at: utc('2026-02-10'), testClockId: null });
    expect(out).toMatchObject({ renewed: 0, canceled: 2 });
    for (const id of [flagged, metered]) {
      const row = await subscriptionRow(id);
      expect(row).toMatchObject({ status: 'canceled' });
      expect(row.canceledAt.toISOString()).toBe(utc('2026-02-10').toISOString());
      expect(await invoicesOf(id)).toEqual([]);
      expect((await eventTypes(id)).at(-1)).toBe('subscription.cancelled');
    }
    expect((await subscriptionRow(kept)).status).toBe('paused');
    expect(await invoicesOf(kept)).toEqual([]);
  });

  it('flagged by a workspace archive, is canceled at its period end', async () => {
    const ws = await server.workspace();
    const licensed = await plan(ws);
    const sub = await seedSubscription(ws, {
      customerId: await customer(ws),
      ...licensed,
      anchorAt: utc('2026-01-10'),
      status: 'paused',
    });
    expect((await ws.client.delete(`/v1/workspaces/${ws.workspaceId}`)).status).toBe(204);
    expect(await subscriptionRow(sub)).toMatchObject({ status: 'paused', cancelAtPeriodEnd: true });
    await processDue({ scope: scopeOf(ws), at: utc('2026-02-10'), testClockId: null });
    expect((await subscriptionRow(sub)).status).toBe('canceled');
    expect(await invoicesOf(sub)).toEqual([]);
  });
});
