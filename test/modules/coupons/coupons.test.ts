import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useServer, createClient, type Workspace } from '../../helpers/server.ts';
import { mintKey } from '../../helpers/keys.ts';
import { inTenant } from '../../../src/core/db/client.ts';
import { DomainError } from '../../../src/core/errors.ts';
import { redeemCoupon } from '../../../src/modules/coupons/redeem.ts';

const server = useServer();

type Res = { status: number; json: any };
const key = () => ({ 'idempotency-key': randomUUID() });
function expectError(res: Res, status: number, code: string, field?: string) {
  expect({ status: res.status, code: res.json?.error?.code, field: res.json?.error?.field }).toEqual({
    status,
    code,
    field: field ?? res.json?.error?.field,
  });
  expect(res.json.data).toBeNull();
}
const create = (ws: Workspace, body: Record<string, unknown>, headers: Record<string, string> = key()) =>
  ws.client.post('/v1/coupons', body, headers);
const eventsOf = async (ws: Workspace, id: string) =>
  ((await ws.client.get(`/v1/events?objectId=${id}&order=asc`)).json.data as any[]).map((e) => ({
    type: e.type,
    data: e.data,
  }));
const scopeOf = (ws: Workspace) => ({ workspaceId: ws.workspaceId, modes: ['test'] as const, mode: 'test' as const });

describe('POST /v1/coupons', () => {
  it('creates a percent coupon (201) with the guide fields and coupon.created', async () => {
    const ws = await server.workspace();
    const res = await create(ws, {
      name: 'Launch',
      percentOff: 12.5,
      duration: 'repeating',
      durationInMonths: 3,
      maxRedemptions: 10,
      metadata: { campaign: 'launch' },
    });
    expect(res.status).toBe(201);
    const c = res.json.data;
    expect(Object.keys(c)).toEqual([
      'id',
      'arn',
      'name',
      'percentOff',
      'amountOff',
      'duration',
      'durationInMonths',
      'maxRedemptions',
      'timesRedeemed',
      'redeemBy',
      'appliesTo',
      'valid',
      'archivedAt',
      'metadata',
      'createdAt',
      'updatedAt',
    ]);
    expect(c.id).toMatch(/^cpn_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(c.arn).toBe(`arn:svc:${ws.accountId}:coupon/${c.id}`);
    expect(c).toMatchObject({
      name: 'Launch',
      percentOff: 12.5,
      amountOff: null,
      duration: 'repeating',
      durationInMonths: 3,
      maxRedemptions: 10,
      timesRedeemed: 0,
      redeemBy: null,
      appliesTo: null,
      valid: true,
      archivedAt: null,
      metadata: { campaign: 'launch' },
    });
    const events = await eventsOf(ws, c.id);
    expect(events.map((e) => [e.type, e.data.object])).toEqual([['coupon.created', c]]);
    expect((await ws.client.get(`/v1/coupons/${c.id}`)).json.data).toEqual(c);
  });

  it('creates an amount coupon per currency, limited to plans of the workspace', async () => {
    const ws = await server.workspace();
    const plan = await ws.client.post(
      '/v1/plans',
      {
        name: 'Pro',
        interval: 'month',
        portalFeatures: {
          selfServeCancel: true,
          selfServePause: true,
          selfServeUpgrade: true,
          selfServeDowngrade: true,
          updatePaymentMethod: true,
        },
        prices: [{ currency: 'IDR', model: 'flat', unitAmount: 150000 }],
      },
      key(),
    );
    const res = await create(ws, {
      name: 'Rp 50.000 off',
      amountOff: { IDR: 50000 },
      duration: 'once',
      appliesTo: { planIds: [plan.json.data.id] },
    });
    expect(res.status).toBe(201);
    expect(res.json.data).toMatchObject({
      percentOff: null,
      amountOff: { IDR: 50000 },
      duration: 'once',
      durationInMonths: null,
      appliesTo: { planIds: [plan.json.data.id] },
    });
    // Another workspace's plan is unknown here.
    const other = await server.workspace();
    expectError(
      await create(other, {
        name: 'x',
        amountOff: { IDR: 1 },
        duration: 'once',
        appliesTo: { planIds: [plan.json.data.id] },
      }),
      400,
      'VALIDATION_ERROR',
      'appliesTo.planIds[0]',
    );
  });

  it('refuses bad input with the plans spelling', async () => {
    const ws = await server.workspace();
    const base = { name: 'x', duration: 'forever' };
    for (const percentOff of [0, -1, 100.01, 150, 12.345])
      expectError(await create(ws, { ...base, percentOff }), 400, 'VALIDATION_ERROR', 'percentOff');
    expect((await create(ws, { ...base, percentOff: 100 })).status).toBe(201);
    expect((await create(ws, { ...base, percentOff: 0.01 })).status).toBe(201);
    expectError(await create(ws, base), 400, 'VALIDATION_ERROR', 'percentOff');
    expectError(await create(ws, { ...base, percentOff: 10, amountOff: { IDR: 5 } }), 400, 'VALIDATION_ERROR');
    expectError(await create(ws, { ...base, amountOff: { IDR: 0 } }), 400, 'VALIDATION_ERROR', 'amountOff.IDR');
    expectError(await create(ws, { ...base, amountOff: { IDR: 1.5 } }), 400, 'VALIDATION_ERROR', 'amountOff.IDR');
    expectError(await create(ws, { ...base, amountOff: {} }), 400, 'VALIDATION_ERROR', 'amountOff');
    expectError(await create(ws, { ...base, amountOff: { idr: 5 } }), 400, 'VALIDATION_ERROR', 'amountOff.idr');
    expectError(await create(ws, { ...base, amountOff: { XYZ: 5 } }), 400, 'UNSUPPORTED_CURRENCY', 'amountOff.XYZ');
    expectError(
      await create(ws, { name: 'x', percentOff: 5, duration: 'repeating' }),
      400,
      'VALIDATION_ERROR',
      'durationInMonths',
    );
    expectError(
      await create(ws, { name: 'x', percentOff: 5, duration: 'repeating', durationInMonths: 37 }),
      400,
      'VALIDATION_ERROR',
      'durationInMonths',
    );
    expectError(
      await create(ws, { name: 'x', percentOff: 5, duration: 'once', durationInMonths: 2 }),
      400,
      'VALIDATION_ERROR',
      'durationInMonths',
    );
    expectError(
      await create(ws, { name: 'x', percentOff: 5, duration: 'weekly' }),
      400,
      'VALIDATION_ERROR',
      'duration',
    );
    expectError(
      await create(ws, { ...base, percentOff: 5, maxRedemptions: 0 }),
      400,
      'VALIDATION_ERROR',
      'maxRedemptions',
    );
    expectError(await create(ws, { ...base, name: '', percentOff: 5 }), 400, 'VALIDATION_ERROR', 'name');
    expectError(await ws.client.post('/v1/coupons', { ...base, percentOff: 5 }), 400, 'idempotency_required');
    const k = key();
    expect((await create(ws, { ...base, percentOff: 5 }, k)).status).toBe(201);
    expectError(await create(ws, { ...base, percentOff: 6 }, k), 409, 'IDEMPOTENCY_MISMATCH');
  });
});

describe('PATCH, archive, get and list', () => {
  it('changes only name and metadata (coupon.updated with previousAttributes); other fields are 400', async () => {
    const ws = await server.workspace();
    const c = (await create(ws, { name: 'Old', percentOff: 10, duration: 'forever' })).json.data;
    const res = await ws.client.patch(`/v1/coupons/${c.id}`, { name: 'New', metadata: { a: 'b' } }, key());
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ name: 'New', metadata: { a: 'b' }, percentOff: 10 });
    const same = await ws.client.patch(`/v1/coupons/${c.id}`, { name: 'New' }, key());
    expect(same.json.data.updatedAt).toBe(res.json.data.updatedAt);
    for (const body of [{ percentOff: 20 }, { duration: 'once' }, { maxRedemptions: 5 }])
      expectError(await ws.client.patch(`/v1/coupons/${c.id}`, body, key()), 400, 'VALIDATION_ERROR');
    const events = await eventsOf(ws, c.id);
    expect(events.map((e) => e.type)).toEqual(['coupon.created', 'coupon.updated']);
    expect(events[1]!.data.previousAttributes).toEqual({ name: 'Old', metadata: null });
  });

  it('archive: 200, valid false, again 200 with no event; lists split archived and live', async () => {
    const ws = await server.workspace();
    const a = (await create(ws, { name: 'A', percentOff: 10, duration: 'forever' })).json.data;
    const b = (await create(ws, { name: 'B', percentOff: 10, duration: 'forever' })).json.data;
    const res = await ws.client.post(`/v1/coupons/${a.id}/archive`, {}, key());
    expect(res.status).toBe(200);
    expect(res.json.data.valid).toBe(false);
    expect(res.json.data.archivedAt).not.toBeNull();
    const again = await ws.client.post(`/v1/coupons/${a.id}/archive`, {}, key());
    expect(again.status).toBe(200);
    expect(again.json.data.archivedAt).toBe(res.json.data.archivedAt);
    expect((await eventsOf(ws, a.id)).map((e) => e.type)).toEqual(['coupon.created', 'coupon.archived']);
    const live = await ws.client.get('/v1/coupons');
    expect(live.json.data.map((c: any) => c.id)).toEqual([b.id]);
    const archived = await ws.client.get('/v1/coupons?archived=true');
    expect(archived.json.data.map((c: any) => c.id)).toEqual([a.id]);
  });

  it("another workspace's coupon is 404 NOT_FOUND on every route", async () => {
    const ws = await server.workspace();
    const other = await server.workspace();
    const c = (await create(ws, { name: 'Mine', percentOff: 10, duration: 'forever' })).json.data;
    expectError(await other.client.get(`/v1/coupons/${c.id}`), 404, 'NOT_FOUND');
    expectError(await other.client.patch(`/v1/coupons/${c.id}`, { name: 'x' }, key()), 404, 'NOT_FOUND');
    expectError(await other.client.post(`/v1/coupons/${c.id}/archive`, {}, key()), 404, 'NOT_FOUND');
    expect((await other.client.get('/v1/coupons')).json.data).toEqual([]);
  });
  it('reads need svc:coupon:read and writes svc:coupon:write', async () => {
    const ws = await server.workspace();
    const c = (await create(ws, { name: 'Scoped', percentOff: 10, duration: 'forever' })).json.data;
    const k = await mintKey(ws.workspaceId, 'test', { role: 'restricted', scopes: ['svc:coupon:read'] });
    const reader = { ...ws, client: createClient({ baseUrl: server.url, keyId: k.keyId, secret: k.secret }) };
    expect((await reader.client.get(`/v1/coupons/${c.id}`)).status).toBe(200);
    expectError(await create(reader, { name: 'x', percentOff: 5, duration: 'once' }), 403, 'insufficient_scope');
    expectError(await reader.client.patch(`/v1/coupons/${c.id}`, { name: 'y' }, key()), 403, 'insufficient_scope');
    expectError(await reader.client.post(`/v1/coupons/${c.id}/archive`, {}, key()), 403, 'insufficient_scope');
  });
});

describe('redemptions', () => {
  it('100 concurrent redemptions of a coupon limited to 10 redeem exactly 10', async () => {
    const ws = await server.workspace();
    const c = (await create(ws, { name: 'Ten', percentOff: 50, duration: 'once', maxRedemptions: 10 })).json.data;
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, () =>
        inTenant(scopeOf(ws), (tx) => redeemCoupon(tx, scopeOf(ws), c.id, new Date(), 'subscription')),
      ),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected');
    expect(ok.length).toBe(10);
    expect(refused.every((r) => r.reason instanceof DomainError && r.reason.field === 'couponId')).toBe(true);
    expect(ok.map((r) => r.value.timesRedeemed).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const after = (await ws.client.get(`/v1/coupons/${c.id}`)).json.data;
    expect(after).toMatchObject({ timesRedeemed: 10, valid: false });
  });

  it('refuses archived coupons, coupons past redeemBy and coupons of another workspace', async () => {
    const ws = await server.workspace();
    const other = await server.workspace();
    const redeem = (w: Workspace, id: string, at = new Date()) =>
      inTenant(scopeOf(w), (tx) => redeemCoupon(tx, scopeOf(w), id, at, 'invoice'));
    const soon = new Date(Date.now() + 60_000);
    const c = (await create(ws, { name: 'Soon', percentOff: 5, duration: 'forever', redeemBy: soon.toISOString() }))
      .json.data;
    expect((await redeem(ws, c.id)).timesRedeemed).toBe(1);
    await expect(redeem(ws, c.id, soon)).rejects.toMatchObject({ field: 'couponId' });
    await expect(redeem(other, c.id)).rejects.toMatchObject({ field: 'couponId' });
    await ws.client.post(`/v1/coupons/${c.id}/archive`, {}, key());
    await expect(redeem(ws, c.id)).rejects.toMatchObject({ field: 'couponId' });
    expect((await ws.client.get(`/v1/coupons/${c.id}`)).json.data.timesRedeemed).toBe(1);
  });
});
