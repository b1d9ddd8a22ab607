/**
 * The hosted setup page in Chromium (docs/guides/setup-sessions.md, Hosted page): open it, save a card
 * with the sandbox's picker, land on successUrl with ?setup_session_id=; the method is attached.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { haveChromium, OUT, useBrowser } from '../helpers/browser.ts';
import { useServer } from '../helpers/server.ts';

const server = useServer();
const browsers = useBrowser('the hosted setup page browser test');

describe.skipIf(!haveChromium)('hosted setup page in Chromium', () => {
  it('pick the sandbox card, save it with a scenario, land on successUrl; the card is the default (390 px)', async ({
    annotate,
  }) => {
    const ws = await server.workspace();
    const cus = (await ws.client.post('/v1/customers', { name: 'Dewi' })).json.data.id;
    const created = await ws.client.post(
      '/v1/setup-sessions',
      {
        customerId: cus,
        types: ['card', 'ewallet'],
        successUrl: 'https://shop.example/saved',
        cancelUrl: 'https://shop.example/account',
      },
      { 'idempotency-key': randomUUID() },
    );
    expect(created.status, created.text).toBe(201);
    const id = created.json.data.id;
    const token = new URL(created.json.data.hostedUrl).pathname.split('/').pop()!;

    const context = await browsers.browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
    const page = await context.newPage();
    await page.route('https://shop.example/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Saved</h1>' }),
    );
    await page.goto(`${server.url}/s/${token}?lang=en`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Save a payment method');
    await expect(page.locator('#consent').textContent()).resolves.toContain('to charge it for future payments');
    expect(await page.locator('.type').count()).toBe(2);
    // Cards are never typed here: no card number field on the page.
    expect(await page.locator('input[autocomplete="cc-number"], input[name*="card" i]').count()).toBe(0);

    await page.click('button.save[data-type="card"]');
    await page.locator('button[data-scenario="success"]').waitFor();
    mkdirSync(OUT, { recursive: true });
    const shot = join(OUT, 'hosted-setup-390.png');
    await page.screenshot({ path: shot, fullPage: true });
    await annotate('hosted setup page at 390 px, sandbox picker', { path: shot });
    await Promise.all([page.waitForURL(/shop\.example\/saved/), page.click('button[data-scenario="success"]')]);
    expect(page.url()).toBe(`https://shop.example/saved?setup_session_id=${id}`);

    const ss = (await ws.client.get(`/v1/setup-sessions/${id}`)).json.data;
    expect(ss.status).toBe('completed');
    const pm = (await ws.client.get(`/v1/payment-methods/${ss.paymentMethodId}`)).json.data;
    expect(pm).toMatchObject({ type: 'card', status: 'active', isDefault: true, card: { last4: '4242' } });
    await context.close();
  });

  it('a declined scenario shows the error and the types again; an unknown link is a 404 screen', async () => {
    const ws = await server.workspace();
    const cus = (await ws.client.post('/v1/customers', { name: 'Eka' })).json.data.id;
    const created = await ws.client.post(
      '/v1/setup-sessions',
      { customerId: cus, successUrl: 'https://shop.example/saved', cancelUrl: 'https://shop.example/account' },
      { 'idempotency-key': randomUUID() },
    );
    const token = new URL(created.json.data.hostedUrl).pathname.split('/').pop()!;
    const context = await browsers.browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${server.url}/s/${token}?lang=id`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Simpan metode pembayaran');
    await page.click('button.save[data-type="card"]');
    await page.click('button[data-scenario="setup_declined"]');
    await page.locator('#choose:not([hidden])').waitFor();
    await expect(page.locator('#error').textContent()).resolves.toContain('tidak dapat disimpan');
    expect((await ws.client.get(`/v1/setup-sessions/${created.json.data.id}`)).json.data.status).toBe('open');
    const res = await page.goto(`${server.url}/s/${created.json.data.id}_${'0'.repeat(40)}`);
    expect(res?.status()).toBe(404);
    await context.close();
  });
});
