import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { newId } from '../../src/core/ids.ts';
import { planBody, postPlan } from './plans.ts';
import { db, untilPublished, type Workspace } from './server.ts';

/** Commits an event row directly (the outbox's row, without the API): the relay publishes it like any other. */
export async function insertEvent(
  workspaceId: string,
  e: { type: string; at: number; mode?: 'test' | 'live'; objectId?: string | null; sequence?: number },
) {
  const id = newId('event');
  const data = e.objectId ? { id: e.objectId, object: { id: e.objectId } } : {};
  await db().system.query(
    `INSERT INTO events (id, "workspaceId", mode, type, "objectId", sequence, "occurredAt", "createdAt", data, metadata)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8, $9)`,
    [
      id,
      workspaceId,
      e.mode ?? 'test',
      e.type,
      e.objectId ?? null,
      e.sequence ?? 1,
      new Date(e.at).toISOString(),
      JSON.stringify(data),
      JSON.stringify({ source: 'test' }),
    ],
  );
  return id;
}

/**
 * An event in a test clock's simulated future: a subscription of a customer on a clock frozen in
 * 2027 (its `subscription.created` occurs in business time, docs/decisions.md, Test clocks).
 * Returns that event once published.
 */
export async function futureClockEvent(ws: Workspace, frozenTime = '2027-06-01T00:00:00.000Z') {
  const key = () => ({ 'idempotency-key': randomUUID() });
  const clock = await ws.client.post('/v1/test-clocks', { frozenTime }, key());
  expect(clock.status, clock.text).toBe(201);
  const customer = await ws.client.post('/v1/customers', { name: 'In 2027', testClockId: clock.json.data.id }, key());
  expect(customer.status, customer.text).toBe(201);
  const plan = await postPlan(ws, planBody());
  expect(plan.status, plan.text).toBe(201);
  const sub = await ws.client.post(
    '/v1/subscriptions',
    { customerId: customer.json.data.id, priceId: plan.json.data.prices[0].id, paymentMethod: 'pm_test_success' },
    key(),
  );
  expect(sub.status, sub.text).toBe(201);
  await untilPublished();
  const list = await ws.client.get(`/v1/events?type=subscription.created&objectId=${sub.json.data.id}`);
  expect(list.json.data, list.text).toHaveLength(1);
  const event = list.json.data[0] as { id: string; type: string; occurredAt: string };
  expect(event.occurredAt.slice(0, 4)).toBe(frozenTime.slice(0, 4));
  return event;
}
