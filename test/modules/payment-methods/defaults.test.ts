/**
 * A customer's default payment method (src/modules/payment-methods/defaults.ts) moved over real HTTP
 * many times, in random order and from two clients at once: the partial unique index allowing one
 * `isDefault` per customer never answers 500, and after every step exactly one method is flagged,
 * the one `customers.defaultPaymentMethodId` names.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { unthrottled } from '../../helpers/payments.ts';
import { createClient, db, useServer, type Workspace } from '../../helpers/server.ts';

const server = useServer();
type Res = { status: number; json: any; text: string };
const key = () => ({ 'idempotency-key': randomUUID() });

function ok(res: Res, status = 200) {
  expect(res.status, res.text).toBe(status);
  return res.json.data;
}
const pick = <T>(xs: readonly T[]) => xs[Math.floor(Math.random() * xs.length)];

async function customerWithMethods(ws: Workspace, n: number) {
  const cus = ok(await ws.client.post('/v1/customers', { name: 'Budi' }), 201).id as string;
  const ids: string[] = [];
  for (let i = 0; i < n; i++)
    ids.push(ok(await ws.client.post('/v1/payment-methods', { customerId: cus }, key()), 201).id);
  return { cus, ids };
}

/**
 * The flagged methods of a customer and the default its row names, read in one statement (one
 * snapshot: the other client may commit between two reads).
 */
async function defaultsOf(cus: string) {
  const { rows } = await db().system.query<{ flagged: string[]; named: string | null }>(
    `SELECT coalesce((SELECT array_agg(id ORDER BY id) FROM payment_methods WHERE "customerId" = c.id AND "isDefault"), '{}') AS flagged,
            c."defaultPaymentMethodId" AS named
       FROM customers c WHERE c.id = $1`,
    [cus],
  );
  return rows[0];
}

describe('moving the default payment method', () => {
  it('PATCH /v1/customers 100 times among three methods in random order: 200 each time, exactly one default', async () => {
    const ws = await server.workspace();
    const { cus, ids } = await customerWithMethods(ws, 3);
    await unthrottled(async () => {
      for (let step = 0; step < 100; step++) {
        const target = pick(ids);
        const c = ok(await ws.client.patch(`/v1/customers/${cus}`, { defaultPaymentMethodId: target }));
        expect(c.defaultPaymentMethodId).toBe(target);
        expect(await defaultsOf(cus)).toEqual({ flagged: [target], named: target });
      }
      // Every order of moving among them was walked, back to earlier methods too.
      for (const [from, to] of [
        [0, 1],
        [1, 0],
        [0, 2],
        [2, 0],
        [1, 2],
        [2, 1],
      ]) {
        ok(await ws.client.patch(`/v1/customers/${cus}`, { defaultPaymentMethodId: ids[from] }));
        ok(await ws.client.patch(`/v1/customers/${cus}`, { defaultPaymentMethodId: ids[to] }));
        expect(await defaultsOf(cus)).toEqual({ flagged: [ids[to]], named: ids[to] });
      }
    });
    const listed = ok(await ws.client.get(`/v1/payment-methods?customerId=${cus}`)) as any[];
    expect(listed.filter((m) => m.isDefault).map((m) => m.id)).toEqual([ids.at(1)]);
  });

  it('two clients moving it concurrently, 50 moves each: never a 500, exactly one default after each answer and at the end', async () => {
    const ws = await server.workspace();
    const { cus, ids } = await customerWithMethods(ws, 3);
    const second = createClient({ baseUrl: server.url, keyId: ws.keyId, secret: ws.secret });
    const statuses: number[] = [];
    const run = async (client: typeof second) => {
      for (let step = 0; step < 50; step++) {
        const res = await client.patch(`/v1/customers/${cus}`, { defaultPaymentMethodId: pick(ids) });
        statuses.push(res.status);
        expect(res.status, res.text).toBe(200);
        const { flagged, named } = await defaultsOf(cus);
        expect(flagged).toHaveLength(1);
        expect(ids).toContain(flagged[0]);
        expect(named).toBe(flagged[0]);
      }
    };
    await unthrottled(() => Promise.all([run(ws.client), run(second)]));
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const end = await defaultsOf(cus);
    expect(end.flagged).toHaveLength(1);
    expect(end.named).toBe(end.flagged[0]);
  });

  it('a new method saved with setDefault and a detach move it too, after the default went back to an older method', async () => {
    const ws = await server.workspace();
    const { cus, ids } = await customerWithMethods(ws, 3);
    for (const id of [ids[2], ids[0], ids[1], ids[0]])
      ok(await ws.client.patch(`/v1/customers/${cus}`, { defaultPaymentMethodId: id }));
    const fresh = ok(await ws.client.post('/v1/payment-methods', { customerId: cus, setDefault: true }, key()), 201);
    expect(fresh.isDefault).toBe(true);
    expect(await defaultsOf(cus)).toEqual({ flagged: [fresh.id], named: fresh.id });
    ok(await ws.client.patch(`/v1/customers/${cus}`, { defaultPaymentMethodId: ids[0] }));
    ok(await ws.client.post(`/v1/payment-methods/${ids[0]}/detach`, {}, key()));
    expect(await defaultsOf(cus)).toEqual({ flagged: [], named: null });
    ok(await ws.client.patch(`/v1/customers/${cus}`, { defaultPaymentMethodId: fresh.id }));
    expect(await defaultsOf(cus)).toEqual({ flagged: [fresh.id], named: fresh.id });
  });
});
