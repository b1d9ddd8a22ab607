import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useServer } from '../helpers/server.ts';
import { haveChromium, OUT, useBrowser } from '../helpers/browser.ts';
import { ROOT } from '../helpers/cli.ts';

const server = useServer();
const browsers = useBrowser('the hosted-page browser tests');

describe.skipIf(!haveChromium)('hosted checkout page in Chromium', () => {
  it('pick QRIS, see the QR code, simulate success, land on successUrl (390 px wide)', async ({ annotate }) => {
    const ws = await server.workspace();
    const created = await ws.client.post(
      '/v1/checkout-sessions',
      {
        amount: 275000,
        currency: 'IDR',
        methods: ['qris', 'va', 'ewallet'],
        successUrl: 'https://shop.example/thanks',
        cancelUrl: 'https://shop.example/cart',
        lineItems: [
          { name: 'Nasi goreng', quantity: 2, unitAmount: 100000 },
          { name: 'Es teh <b>manis</b>', quantity: 3, unitAmount: 25000 },
        ],
      },
      { 'idempotency-key': 'hosted-page-1' },
    );
    expect(created.status, created.text).toBe(201);
    const id = created.json.data.id;
    // The page's address is the session's hostedUrl (id plus secret), on this test server's origin.
    const token = new URL(created.json.data.hostedUrl).pathname.split('/').pop()!;
    expect(token).toMatch(new RegExp(`^${id}_[0-9a-f]{40}$`));

    const context = await browsers.browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
    const page = await context.newPage();
    // The merchant's site is outside this machine: answer it here and record the landing URL.
    await page.route('https://shop.example/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Thanks</h1>' }),
    );
    await page.goto(`${server.url}/c/${token}`);
    await expect(page.locator('[data-amount]').textContent()).resolves.toBe('Rp 275.000');
    // User text is shown as text, never as markup.
    await expect(page.locator('ul.items').textContent()).resolves.toContain('Es teh <b>manis</b>');
    expect(await page.locator('.method').count()).toBe(3);

    await page.click('button[data-method="qris"]');
    await page.locator('img.qr').waitFor();
    expect(await page.locator('img.qr').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
    mkdirSync(OUT, { recursive: true });
    const shot = join(OUT, 'hosted-checkout-390.png');
    await page.screenshot({ path: shot, fullPage: true });
    await annotate('hosted checkout at 390 px, QRIS instructions', { path: shot });

    // The buttons as README's quick start names them.
    const [success, failure] = [
      ...readFileSync(join(ROOT, 'README.md'), 'utf8').matchAll(/"(Simulate [a-z]+ payment)"/g),
    ].map((m) => m[1]);
    await expect(page.getByRole('button', { name: failure, exact: true }).count()).resolves.toBe(1);
    await Promise.all([
      page.waitForURL(/shop\.example\/thanks/),
      page.getByRole('button', { name: success, exact: true }).click(),
    ]);
    expect(page.url()).toBe(`https://shop.example/thanks?session_id=${id}`);
    expect((await ws.client.get(`/v1/checkout-sessions/${id}`)).json.data.status).toBe('completed');
    await context.close();
  });

  it('an expired or unknown link shows a screen, not a form', async () => {
    const context = await browsers.browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const res = await page.goto(`${server.url}/c/cs_01M82PP879NVMT2NEX4PQNAEX2`);
    expect(res?.status()).toBe(404);
    await expect(page.locator('h1').textContent()).resolves.toBe('This payment link does not exist');
    // A real session's id without its secret is the same screen (the id is not the capability).
    const ws = await server.workspace();
    const created = await ws.client.post(
      '/v1/checkout-sessions',
      {
        amount: 1000,
        currency: 'IDR',
        methods: ['qris'],
        successUrl: 'https://shop.example/t',
        cancelUrl: 'https://shop.example/c',
      },
      { 'idempotency-key': randomUUID() },
    );
    expect(created.status, created.text).toBe(201);
    const bare = await page.goto(`${server.url}/c/${created.json.data.id}`);
    expect(bare?.status()).toBe(404);
    await expect(page.locator('h1').textContent()).resolves.toBe('This payment link does not exist');
    await context.close();
  });
});
