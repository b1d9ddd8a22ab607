/**
 * Live off-session callbacks routed by our payment id (docs/providers.md, Saved methods): provider_b
 * (GoPay) echoes our `pay_` id in `custom_field1`. When the charge's answer is lost (or the callback
 * outruns it) no provider reference is stored yet; the callback must still reach the payment's
 * workspace and settle it at once, without waiting for the pending sweep's lease, and charge once.
 * Found by `npm run bench:collection:live` (P2: most provider_b callbacks were refused 401).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/core/ids.ts';
import { seal } from '../../../src/core/sealed.ts';
import { providerTokenHash } from '../../../src/modules/payment-methods/service.ts';
import { mintLiveKey } from '../../helpers/keys.ts';
import { plan } from '../../helpers/renewals.ts';
import { until } from '../../helpers/receiver.ts';
import { createClient, db, useServer } from '../../helpers/server.ts';
import { useSimulators } from '../../helpers/simulators.ts';
import { ProviderBSim } from '../../simulators/provider_b.ts';

const server = useServer();
const simulators = useSimulators(server);
const key = () => ({ 'idempotency-key': randomUUID() });
const creds = {
  serverKey: `Mid-server-${randomBytes(6).toString('hex')}`,
  clientKey: `Mid-client-${randomBytes(4).toString('hex')}`,
  merchantId: 'G123456789',
};
const sim = simulators.track(new ProviderBSim({ serverKey: creds.serverKey, merchantId: creds.merchantId }));

beforeAll(async () => {
  await sim.start();
  process.env.PROVIDER_B_BASE_URL = sim.url;
  sim.notificationUrl = `${server.url}/v1/callbacks/provider_b`;
});

describe('live off-session callbacks at provider_b', () => {
  it('a charge whose answer was lost is settled by its callback, routed by our payment id', async () => {
    const ws = await server.workspace();
    const live = await mintLiveKey(ws.workspaceId);
    const client = createClient({ baseUrl: server.url, keyId: live.keyId, secret: live.secret });
    const put = await client.put('/v1/adapters/provider_b', creds, key());
    expect(put.status, put.text).toBe(200);
    const { priceId } = await plan(
      { ...ws, client },
      { prices: [{ currency: 'IDR', model: 'flat', unitAmount: 99_000 }] },
    );
    const cus = (await client.post('/v1/customers', { name: 'Sari' })).json.data.id;
    // A linked GoPay account (the simulator's token), sealed to its row.
    const token = sim.seedToken({ digits: '081200000000' });
    const pm = newId('paymentMethod');
    await db().system.query(
      `INSERT INTO payment_methods (id, "workspaceId", mode, "customerId", type, status, adapter, ewallet, consent,
         "providerToken", "providerTokenHash", "createdAt", "updatedAt")
       VALUES ($1, $2, 'live', $3, 'ewallet', 'active', 'provider_b', $4, $5, $6, $7, now(), now())`,
      [
        pm,
        ws.workspaceId,
        cus,
        { provider: 'gopay', maskedAccount: '****' },
        { source: 'test', sourceId: null, at: new Date().toISOString() },
        seal('payment_methods', { id: pm, workspaceId: ws.workspaceId, mode: 'live' }, Buffer.from(token)),
        providerTokenHash('provider_b', token),
      ],
    );
    // The provider charges and notifies, but its answer to the charge call never arrives.
    sim.offSession.dropResponseAfterCharge = true;
    let sub: { id: string };
    try {
      const res = await client.post('/v1/subscriptions', { customerId: cus, priceId, paymentMethod: pm }, key());
      expect(res.status, res.text).toBe(201);
      sub = res.json.data;
    } finally {
      sim.offSession.dropResponseAfterCharge = false;
    }
    const payment = async () =>
      (
        await db().system.query(
          `SELECT p.* FROM payments p JOIN invoices i ON i.id = p."invoiceId" WHERE i."subscriptionId" = $1`,
          [sub.id],
        )
      ).rows[0];
    // No sweep runs here (its lease is 5 minutes): only the callback can settle it this soon.
    await until(async () => (await payment())?.status === 'succeeded', 'the callback to settle the charge');
    const p = await payment();
    expect(p.paymentMethodId).toBe(pm);
    expect(sim.charges.byReference.get(p.id)).toBe(1);
    await until(
      async () =>
        (await db().system.query(`SELECT status FROM subscriptions WHERE id = $1`, [sub.id])).rows[0].status ===
        'active',
      'the subscription to be active',
    );
  }, 60_000);
});
