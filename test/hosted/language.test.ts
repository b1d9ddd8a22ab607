// One language per customer (docs/decisions.md, Customer language) in Chromium: the checkout
// page, the hosted invoice page, the receipt page and the portal opened by an Indonesian and by an
// English browser (Accept-Language from the context's locale) show that language's texts, `<html lang>`,
// Content-Language and Vary, the workspace's zone by name (WIB) and the methods' display names. Then
// the switch: reached by keyboard, it changes the language and the choice persists across pages and
// reloads over the browser's own language. Last, a browser in a language we do not have gets the
// workspace's (rupiah: Indonesian).
import { randomUUID } from 'node:crypto';
import type { BrowserContext, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../src/core/config.ts';
import { allPortalFeatures, planBody, postPlan } from '../helpers/plans.ts';
import { useServer, type Workspace } from '../helpers/server.ts';
import { haveChromium, useBrowser } from '../helpers/browser.ts';

const server = useServer();
const browsers = useBrowser('the customer language browser test');
const previousBase = config.hostedBaseUrl;
beforeAll(() => {
  config.hostedBaseUrl = server.url;
});
afterAll(() => {
  config.hostedBaseUrl = previousBase;
});

/** The texts each page shows in each language (from the catalog's values, written out: the test is the reader). */
const expected = {
  id: {
    choose: 'Pilih cara bayar',
    payBefore: 'Bayar sebelum',
    va: 'Transfer bank (virtual account)',
    ewallet: 'Dompet digital',
    scan: 'Pindai untuk membayar',
    simulate: 'Simulasikan pembayaran berhasil',
    invoice: 'Faktur',
    due: 'Jatuh tempo',
    pay: 'Bayar online',
    receipt: 'Struk',
    method: 'Pembayaran',
    portalTitle: 'Tagihan',
    active: 'Aktif',
    expires: 'Halaman ini berlaku sampai',
    received: 'Pembayaran diterima',
  },
  en: {
    choose: 'Choose how to pay',
    payBefore: 'Pay before',
    va: 'Bank transfer (virtual account)',
    ewallet: 'E-wallet',
    scan: 'Scan to pay',
    simulate: 'Simulate successful payment',
    invoice: 'Invoice',
    due: 'Due',
    pay: 'Pay online',
    receipt: 'Receipt',
    method: 'Payment',
    portalTitle: 'Billing',
    active: 'Active',
    expires: 'This page works until',
    received: 'Payment received',
  },
} as const;
type Lang = keyof typeof expected;

async function fixtures(ws: Workspace) {
  const cus = (await ws.client.post('/v1/customers', { name: 'Sari', email: 'sari@example.com' })).json.data.id;
  const session = async () => {
    const res = await ws.client.post(
      '/v1/checkout-sessions',
      {
        amount: 150_000,
        currency: 'IDR',
        methods: ['qris', 'va', 'ewallet'],
        customerId: cus,
        successUrl: 'https://shop.example/done',
        cancelUrl: 'https://shop.example/cart',
        lineItems: [{ name: 'Kopi susu', quantity: 3, unitAmount: 50_000 }],
      },
      { 'idempotency-key': randomUUID() },
    );
    expect(res.status, res.text).toBe(201);
    return res.json.data.hostedUrl as string;
  };
  const invoice = await ws.client.post('/v1/invoices', {
    customerId: cus,
    currency: 'IDR',
    status: 'open',
    dueAt: '2030-01-15T03:00:00Z',
    lines: [{ description: 'Sewa tenda', quantity: 1, unitAmount: 200_000 }],
  });
  expect(invoice.status, invoice.text).toBe(201);
  const price = await postPlan(
    ws,
    planBody({
      name: 'Pro',
      portalFeatures: allPortalFeatures,
      prices: [{ currency: 'IDR', model: 'flat', unitAmount: 100_000 }],
    }),
  );
  expect(price.status, JSON.stringify(price.json)).toBe(201);
  const sub = await ws.client.post(
    '/v1/subscriptions',
    { customerId: cus, priceId: price.json.data.prices[0].id, paymentMethod: 'pm_test_success' },
    { 'idempotency-key': randomUUID() },
  );
  expect(sub.status, JSON.stringify(sub.json)).toBe(201);
  const portal = async () => {
    const ps = await ws.client.post('/v1/portal-sessions', { customerId: cus, returnUrl: 'https://shop.example/' });
    expect(ps.status).toBe(201);
    return ps.json.data.url as string;
  };
  return { session, invoiceUrl: invoice.json.data.hostedInvoiceUrl as string, portal };
}

/** A paid session's checkout URL (its page now offers the receipt), paid through the page in `page`. */
async function paySession(page: Page, url: string) {
  await page.goto(url);
  await page.click('button[data-method="qris"]');
  await page.locator('img.qr').waitFor();
  await Promise.all([page.waitForURL(/\/done\?session_id=/), page.click('#simulate-success')]);
}

function assertLanguageHeaders(res: Response | null, lang: Lang) {
  expect(res?.status()).toBe(200);
  expect(res?.headers()['content-language']).toBe(lang);
  expect(res?.headers().vary).toMatch(/Accept-Language/);
}

const htmlLang = (page: Page) => page.getAttribute('html', 'lang');

describe.skipIf(!haveChromium)('one language per customer, in Chromium', () => {
  for (const lang of ['id', 'en'] as const) {
    it(`Accept-Language ${lang}: checkout, invoice page, receipt and portal in ${lang}, zone named`, async () => {
      const t = expected[lang];
      const ws = await server.workspace({ name: 'Toko Sari' });
      const f = await fixtures(ws);
      const context = await browsers.browser.newContext({ locale: lang === 'id' ? 'id-ID' : 'en-US' });
      // The merchant's site is outside this machine: answered here.
      await context.route('https://shop.example/**', (r) => r.fulfill({ status: 200, body: 'done' }));
      const page = await context.newPage();

      // Checkout.
      const checkoutUrl = await f.session();
      assertLanguageHeaders(await page.goto(checkoutUrl), lang);
      expect(await htmlLang(page)).toBe(lang);
      expect(await page.locator('#choose h2').textContent()).toBe(t.choose);
      const expires = await page.locator('.expires').textContent();
      expect(expires).toContain(t.payBefore);
      expect(expires).toMatch(/ WIB$/);
      expect(expires).not.toMatch(/GMT|UTC/);
      expect(await page.locator('button[data-method="va"] strong').textContent()).toBe(t.va);
      expect(await page.locator('button[data-method="ewallet"] strong').textContent()).toBe(t.ewallet);
      expect(await page.locator('body').textContent()).not.toMatch(/provider_|managed/);
      // The attempt's instructions and the script's buttons too.
      await page.click('button[data-method="qris"]');
      await page.locator('img.qr').waitFor();
      expect(await page.locator('#instructions h2').textContent()).toBe(t.scan);
      expect(await page.locator('#simulate-success').textContent()).toBe(t.simulate);

      // The hosted invoice page.
      assertLanguageHeaders(await page.goto(f.invoiceUrl), lang);
      expect(await htmlLang(page)).toBe(lang);
      expect(await page.locator('.doc .kind').textContent()).toBe(t.invoice);
      expect(await page.locator('#pay').textContent()).toMatch(new RegExp(`^${t.pay} Rp`));
      const dl = await page.locator('.meta dl').textContent();
      expect(dl).toContain(t.due);
      // 03:00 UTC is 10:00 in Jakarta.
      expect(dl).toMatch(/10[.:]00 WIB/);
      // Paying opens a checkout session whose line is worded in the page's language.
      await Promise.all([page.waitForURL(/\/c\/cs_/), page.click('#pay')]);
      expect(await page.locator('ul.items li span').first().textContent()).toMatch(
        new RegExp(`^${t.invoice} SVC-\\d{4}-\\d{2}-\\d{4}$`),
      );

      // The receipt, from the paid checkout page.
      const paidUrl = await f.session();
      await paySession(page, paidUrl);
      assertLanguageHeaders(await page.goto(paidUrl), lang);
      expect(await page.locator('[data-state="completed"] h2').textContent()).toBe(t.received);
      const receiptRes = await Promise.all([page.waitForNavigation(), page.click('#receipt')]).then(([r]) => r);
      assertLanguageHeaders(receiptRes, lang);
      expect(await htmlLang(page)).toBe(lang);
      expect(await page.locator('.doc .kind').textContent()).toBe(t.receipt);
      const meta = await page.locator('.meta dl').textContent();
      expect(meta).toContain(`${t.method}QRIS`);
      expect(meta).toMatch(/ WIB/);

      // The portal.
      const portalUrl = await f.portal();
      assertLanguageHeaders(await page.goto(portalUrl), lang);
      await page.locator('[data-sub]').waitFor();
      expect(await htmlLang(page)).toBe(lang);
      expect(await page.locator('#title').textContent()).toBe(t.portalTitle);
      expect(await page.locator('[data-sub] .badge').textContent()).toBe(t.active);
      const until = await page.locator('footer p').textContent();
      expect(until).toContain(t.expires);
      expect(until).toMatch(/ WIB$/);
      await context.close();
    });
  }

  it('the switch, by keyboard, changes the language, and the choice persists over the browser’s', async () => {
    const ws = await server.workspace({ name: 'Toko Sari' });
    const f = await fixtures(ws);
    const context: BrowserContext = await browsers.browser.newContext({ locale: 'id-ID' });
    const page = await context.newPage();
    const checkoutUrl = await f.session();
    await page.goto(checkoutUrl);
    expect(await htmlLang(page)).toBe('id');
    const sw = page.locator('nav.lang-switch');
    expect(await sw.getAttribute('aria-label')).toBe('Bahasa');
    expect(await sw.locator('a').allTextContents()).toEqual(['Bahasa Indonesia', 'English']);
    expect(await sw.locator('a[aria-current="true"]').textContent()).toBe('Bahasa Indonesia');

    // Tab from the top of the page reaches the switch first; Enter follows it.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('English');
    const [res] = await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    assertLanguageHeaders(res, 'en');
    expect(await res?.headerValue('set-cookie')).toMatch(/^svc_lang=en; Path=\/;/);
    expect((await context.cookies()).find((c) => c.name === 'svc_lang')).toMatchObject({ value: 'en', path: '/' });
    expect(await htmlLang(page)).toBe('en');
    expect(await page.locator('#choose h2').textContent()).toBe(expected.en.choose);
    expect(await sw.locator('a[aria-current="true"]').textContent()).toBe('English');

    // Remembered: the browser still asks for Indonesian, every page answers English.
    assertLanguageHeaders(await page.goto(checkoutUrl), 'en');
    assertLanguageHeaders(await page.goto(f.invoiceUrl), 'en');
    expect(await page.locator('.doc .kind').textContent()).toBe('Invoice');
    const portalUrl = await f.portal();
    assertLanguageHeaders(await page.goto(portalUrl), 'en');
    await page.locator('[data-sub]').waitFor();
    expect(await page.locator('#title').textContent()).toBe('Billing');

    // And back, from the portal's switch: the token stays in the tab, the page reloads in Indonesian.
    await Promise.all([page.waitForURL(/lang=id/), page.click('nav.lang-switch a[data-lang="id"]')]);
    await page.locator('[data-sub]').waitFor();
    expect(await htmlLang(page)).toBe('id');
    expect(await page.locator('#title').textContent()).toBe('Tagihan');
    assertLanguageHeaders(await page.goto(f.invoiceUrl), 'id');
    expect(await page.locator('.doc .kind').textContent()).toBe('Faktur');
    await context.close();

    // A new browser (no cookie) in English: English again.
    const fresh = await browsers.browser.newContext({ locale: 'en-US' });
    const p2 = await fresh.newPage();
    assertLanguageHeaders(await p2.goto(f.invoiceUrl), 'en');
    await fresh.close();
  });

  it("a browser language we do not have: the workspace's default (rupiah: Indonesian); error pages too", async () => {
    const ws = await server.workspace({ name: 'Toko Sari' });
    const f = await fixtures(ws);
    const context = await browsers.browser.newContext({ locale: 'fr-FR' });
    const page = await context.newPage();
    await page.setExtraHTTPHeaders({ 'accept-language': 'fr-FR,fr;q=0.9' });
    assertLanguageHeaders(await page.goto(await f.session()), 'id');
    assertLanguageHeaders(await page.goto(f.invoiceUrl), 'id');
    // An unknown link knows no workspace: the browser's language decides, else English.
    const missing = await page.goto(`${server.url}/c/cs_01M82PP879NVMT2NEX4PQNAEX2?lang=id`);
    expect(missing?.status()).toBe(404);
    expect(missing?.headers()['content-language']).toBe('id');
    expect(await page.locator('h1').textContent()).toBe('Tautan pembayaran ini tidak ada');
    await context.close();
  });
});

describe('documents without a browser', () => {
  it("follow the workspace's language, not the caller's Accept-Language nor the document's currency", async () => {
    const ws = await server.workspace({ name: 'Toko Sari' });
    const cus = (await ws.client.post('/v1/customers', { name: 'Sari', email: 'sari@example.com' })).json.data.id;
    const inv = await ws.client.post('/v1/invoices', {
      customerId: cus,
      currency: 'USD',
      status: 'open',
      lines: [{ description: 'Consulting', quantity: 1, unitAmount: 10_000 }],
    });
    expect(inv.status, inv.text).toBe(201);
    const html = await ws.client.get(`/v1/invoices/${inv.json.data.id}/invoice.html`, { 'accept-language': 'en' });
    expect(html.status).toBe(200);
    // A rupiah workspace: Indonesian, even for a dollar invoice read by an English client.
    expect(html.text).toContain('<html lang="id">');
    expect(html.text).toContain('<div class="kind">Faktur</div>');
    expect(html.text).not.toContain('Invoice</div>');
  });
});
