// The hosted checkout page's consent box in Chromium (docs/guides/checkout-sessions.md, Saving the
// payment method): unticked at first; ticked, the sandbox payment saves a method for the customer.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/server.ts';
import { haveChromium, OUT, useBrowser } from '../helpers/browser.ts';

const server = useServer();
const browsers = useBrowser('the hosted checkout consent-box browser test');

describe.skipIf(!haveChromium)('hosted checkout page: save for future payments', () => {
  it('the box starts unticked; ticked, paying in the sandbox saves the card (Indonesian page)', async ({
    annotate,
  }) => {
    const ws = await server.workspace();
    const cus = (await ws.client.post('/v1/customers', { name: 'Budi' })).json.data.id;
    const created = await ws.client.post(
      '/v1/checkout-sessions',
      {
        amount: 99000,
        currency: 'IDR',
        methods: ['card', 'qris'],
        customerId: cus,
        savePaymentMethod: 'optional',
        successUrl: 'https://shop.example/thanks',
        cancelUrl: 'https://shop.example/cart',
      },
      { 'idempotency-key': randomUUID() },
    );
    expect(created.status, created.text).toBe(201);
    const id = created.json.data.id;
    const context = await browsers.browser.newContext({
      viewport: { width: 390, height: 844 },
      locale: 'id-ID',
      extraHTTPHeaders: { 'accept-language': 'id' },
    });
    const page = await context.newPage();
    await page.route('https://shop.example/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Terima kasih</h1>' }),
    );
    await page.goto(created.json.data.hostedUrl.replace(/^https?:\/\/[^/]+/, server.url));
    const box = page.getByLabel('Simpan metode pembayaran untuk pembayaran berikutnya');
    await expect(box.isChecked()).resolves.toBe(false);
    await box.check();
    mkdirSync(OUT, { recursive: true });
    const shot = join(OUT, 'hosted-checkout-consent-390.png');
    await page.screenshot({ path: shot, fullPage: true });
    await annotate('hosted checkout with the consent box ticked', { path: shot });
    await page.click('button[data-method="card"]');
    await page.locator('#simulate-success').waitFor();
    await Promise.all([page.waitForURL(/shop\.example\/thanks/), page.click('#simulate-success')]);
    const done = (await ws.client.get(`/v1/checkout-sessions/${id}`)).json.data;
    expect(done.status).toBe('completed');
    expect(done.savedPaymentMethodId).toMatch(/^pm_/);
    const pm = (await ws.client.get(`/v1/payment-methods/${done.savedPaymentMethodId}`)).json.data;
    expect(pm).toMatchObject({
      customerId: cus,
      status: 'active',
      consent: { source: 'checkout_session', sourceId: id },
    });
    await context.close();
  });
});
