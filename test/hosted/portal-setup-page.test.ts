// The portal's live "update payment method" in Chromium (docs/guides/setup-sessions.md, Portal): a live
// customer opens the portal, adds a payment method, types the card on the provider's own form (provider_a's
// simulator), comes back to the portal through the setup session, and the subscription charges the new card.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../src/core/config.ts';
import { scenarios } from '../../src/modules/payment-methods/scenarios.ts';
import { haveChromium, OUT, useBrowser } from '../helpers/browser.ts';
import { mintLiveKey } from '../helpers/keys.ts';
import { planBody } from '../helpers/plans.ts';
import { createClient, useServer } from '../helpers/server.ts';
import { useSimulators } from '../helpers/simulators.ts';
import { ProviderASim } from '../simulators/provider_a.ts';

const server = useServer();
const browsers = useBrowser('the portal setup browser test');
const simulators = useSimulators(server);
const rand = (n: number) => randomBytes(n).toString('hex').slice(0, n);
const key = () => ({ 'idempotency-key': randomUUID() });
const creds = { secretKey: `xnd_production_${rand(20)}`, callbackToken: rand(24) };
const sim = simulators.track(new ProviderASim(creds));
const previousBase = config.hostedBaseUrl;
beforeAll(async () => {
  config.hostedBaseUrl = server.url;
  await sim.start();
  process.env.PROVIDER_A_BASE_URL = sim.url;
  sim.callbackUrl = `${server.url}/v1/callbacks/provider_a`;
});
afterAll(() => {
  config.hostedBaseUrl = previousBase;
});

describe.skipIf(!haveChromium)('portal live update payment method in Chromium', () => {
  it('add a card from the portal: provider form, back to the portal, the subscription charges it', async ({
    annotate,
  }) => {
    const ws = await server.workspace({ name: 'Toko Live' });
    const live = await mintLiveKey(ws.workspaceId);
    const client = createClient({ baseUrl: server.url, keyId: live.keyId, secret: live.secret });
    const put = await client.put('/v1/adapters/provider_a', creds, key());
    expect(put.status, put.text).toBe(200);
    const plan = await client.post('/v1/plans', planBody({ name: 'Pro' }), key());
    expect(plan.status, plan.text).toBe(201);
    const cus = (await client.post('/v1/customers', { name: 'Sari', email: 'sari@example.com' })).json.data.id;
    const sub = await client.post(
      '/v1/subscriptions',
      { customerId: cus, priceId: plan.json.data.prices[0].id, trialDays: 14 },
      key(),
    );
    expect(sub.status, sub.text).toBe(201);
    const subId = sub.json.data.id as string;
    const ps = await client.post('/v1/portal-sessions', { customerId: cus, returnUrl: 'https://shop.example/akun' });
    expect(ps.status, ps.text).toBe(201);

    const context = await browsers.browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(ps.json.data.url);
    const card = page.locator(`[data-sub="${subId}"]`);
    await card.waitFor();
    // Live: no test-mode badge.
    expect(await page.locator('#badge').isVisible()).toBe(false);
    await card.locator('[data-action="payment-method"]').click();
    await Promise.all([
      page.waitForURL(new RegExp(`${server.url}/s/ss_`)),
      card.locator('[data-action="add-payment-method"]').click(),
    ]);
    // The hosted setup page, then the provider's own form: the only place the number is typed.
    await page.click('button.save[data-type="card"]');
    await Promise.all([page.waitForURL(new RegExp(`^${sim.url}`)), page.click('#provider-link')]);
    await page.fill('input[name="number"]', scenarios.success.card);
    await Promise.all([
      page.waitForURL(new RegExp(`${server.url}/portal/`)),
      page.locator('form button, form input[type="submit"]').first().click(),
    ]);
    await card.waitFor();
    await expect.poll(() => card.textContent()).toContain('4242');
    mkdirSync(OUT, { recursive: true });
    const shot = join(OUT, 'portal-live-payment-method.png');
    await page.screenshot({ path: shot, fullPage: true });
    await annotate('portal after saving a live card', { path: shot });

    const pms = (await client.get(`/v1/payment-methods?customerId=${cus}`)).json.data;
    expect(pms).toHaveLength(1);
    expect(pms[0]).toMatchObject({ adapter: 'provider_a', card: { last4: '4242' }, consent: { source: 'portal' } });
    expect((await client.get(`/v1/subscriptions/${subId}`)).json.data.paymentMethod).toBe(pms[0].id);
    await context.close();
  });
});
