// The customer portal page (src/hosted/portal-page.ts) in Chromium, 390 px wide: a customer opens the
// portal URL, switches language, and by clicks only updates the payment method, upgrades, downgrades,
// pauses, resumes, cancels and keeps the subscription, downloads an invoice PDF and pays an open
// invoice through its hosted page and the checkout; each result is read back over the API, and the
// events say `source: portal`. Then the link expires: 410. Screenshots go to test/output.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../src/core/clock.ts';
import { config } from '../../src/core/config.ts';
import { allPortalFeatures, planBody, postPlan } from '../helpers/plans.ts';
import { useServer, type Workspace } from '../helpers/server.ts';
import { haveChromium, OUT, useBrowser } from '../helpers/browser.ts';

const server = useServer();
const browsers = useBrowser('the portal page browser test');
const previousBase = config.hostedBaseUrl;
beforeAll(() => {
  // The URLs the API hands out (portal, hosted invoice, signed PDF) point at this test server.
  config.hostedBaseUrl = server.url;
});
afterAll(() => {
  config.hostedBaseUrl = previousBase;
});

async function plan(ws: Workspace, name: string, unitAmount: number, features = allPortalFeatures) {
  const res = await postPlan(
    ws,
    planBody({ name, portalFeatures: features, prices: [{ currency: 'IDR', model: 'flat', unitAmount }] }),
  );
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data.prices[0].id as string;
}

async function setup(features = allPortalFeatures) {
  const ws = await server.workspace({ name: 'Toko Budi' });
  const basic = await plan(ws, 'Basic', 100_000);
  const pro = await plan(ws, 'Pro', 150_000, features);
  const premium = await plan(ws, 'Premium', 300_000);
  const cus = (await ws.client.post('/v1/customers', { name: 'Sari', email: 'sari@example.com' })).json.data.id;
  const sub = await ws.client.post(
    '/v1/subscriptions',
    { customerId: cus, priceId: pro, paymentMethod: 'pm_test_success' },
    { 'idempotency-key': randomUUID() },
  );
  expect(sub.status, JSON.stringify(sub.json)).toBe(201);
  const ps = await ws.client.post('/v1/portal-sessions', { customerId: cus, returnUrl: 'https://shop.example/akun' });
  expect(ps.status).toBe(201);
  return { ws, cus, subId: sub.json.data.id as string, basic, premium, url: ps.json.data.url as string };
}

const subscription = async (ws: Workspace, id: string) => (await ws.client.get(`/v1/subscriptions/${id}`)).json.data;

async function shot(page: Page, name: string, annotate: (m: string, a: { path: string }) => Promise<unknown>) {
  mkdirSync(OUT, { recursive: true });
  const path = join(OUT, `portal-${name}.png`);
  await page.screenshot({ path, fullPage: true });
  await annotate(`portal page: ${name}`, { path });
}

describe.skipIf(!haveChromium)('customer portal in Chromium', () => {
  it('every action by clicks: payment method, upgrade, downgrade, pause, resume, cancel, keep, PDF, pay', async ({
    annotate,
  }) => {
    const { ws, cus, subId, basic, premium, url } = await setup();
    const invoice = await ws.client.post('/v1/invoices', {
      customerId: cus,
      currency: 'IDR',
      status: 'open',
      lines: [{ description: 'Biaya pemasangan', quantity: 1, unitAmount: 75_000 }],
    });
    expect(invoice.status).toBe(201);
    const context = await browsers.browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      locale: 'id-ID',
    });
    const page = await context.newPage();
    const res = await page.goto(url);
    expect(res?.status()).toBe(200);
    const card = page.locator(`[data-sub="${subId}"]`);
    await card.waitFor();
    // An Indonesian browser: Indonesian; the token has left the address bar.
    expect(await page.getAttribute('html', 'lang')).toBe('id');
    expect(await page.locator('#title').textContent()).toBe('Tagihan');
    expect(await card.locator('.badge').textContent()).toBe('Aktif');
    expect(page.url()).toBe(url.split('#')[0]);
    await shot(page, '390-id', annotate);

    // The switch reloads the page in English (the token stays in sessionStorage).
    await page.click('a[data-lang="en"]');
    await page.waitForURL(/lang=en/);
    await card.waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await page.locator('#title').textContent()).toBe('Billing');
    expect(await card.locator('.badge').textContent()).toBe('Active');
    const flash = page.locator('#flash');
    const done = async (text: string) => {
      await page.waitForFunction((t) => document.getElementById('flash')?.textContent === t, text);
      await page.evaluate(() => {
        document.getElementById('flash')!.textContent = '';
      });
    };

    // Payment method: the declining test card, then back to the one that succeeds.
    for (const pm of ['pm_test_decline', 'pm_test_success']) {
      await card.locator('[data-action="payment-method"]').click();
      await card.locator('select').selectOption(pm);
      if (pm === 'pm_test_decline') await shot(page, 'payment-method', annotate);
      await card.locator('[data-action="save-payment-method"]').click();
      await done('Payment method updated.');
      expect((await subscription(ws, subId)).paymentMethod).toBe(pm);
    }

    // Upgrade: applies now, the proration is charged to the stored method.
    await card.locator('[data-action="change"]').click();
    expect(await card.locator('.option .tag').allTextContents()).toEqual(['Upgrade', 'Downgrade']);
    await shot(page, 'change-plan', annotate);
    await card.locator(`input[value="${premium}"]`).check();
    await card.locator('[data-action="confirm-change"]').click();
    await done('Your plan was changed.');
    expect(await subscription(ws, subId)).toMatchObject({ priceId: premium, status: 'active' });
    expect(await card.locator('h3').textContent()).toBe('Premium');

    // Downgrade: waits for the renewal, and the card says so.
    await card.locator('[data-action="change"]').click();
    await card.locator(`input[value="${basic}"]`).check();
    await card.locator('[data-action="confirm-change"]').click();
    await done('Your plan was changed.');
    expect(await subscription(ws, subId)).toMatchObject({ priceId: premium, pendingPriceId: basic });
    expect(await card.locator('.note').textContent()).toBe('Changes to Basic at the next renewal');

    await card.locator('[data-action="pause"]').click();
    await done('Your subscription is paused.');
    expect((await subscription(ws, subId)).status).toBe('paused');
    expect(await card.locator('.badge').textContent()).toBe('Paused');
    await card.locator('[data-action="resume"]').click();
    await done('Your subscription is active again.');
    expect((await subscription(ws, subId)).status).toBe('active');

    await card.locator('[data-action="cancel"]').click();
    await shot(page, 'cancel-confirm', annotate);
    await card.locator('[data-action="confirm-cancel"]').click();
    await done('Your subscription will end at the end of the period.');
    expect((await subscription(ws, subId)).cancelAtPeriodEnd).toBe(true);
    expect(await card.locator('[data-action="cancel"]').count()).toBe(0);
    await shot(page, 'canceled', annotate);
    await card.locator('[data-action="keep"]').click();
    await done('Your subscription continues.');
    expect((await subscription(ws, subId)).cancelAtPeriodEnd).toBe(false);

    // Every change was the API's own: the same events, told apart by their source.
    const events = (await ws.client.get(`/v1/events?objectId=${subId}&order=asc&limit=100`)).json.data as any[];
    const fromPortal = events.filter((e) => e.metadata.source === 'portal').map((e) => e.type);
    expect(fromPortal.length).toBeGreaterThanOrEqual(8);
    expect(new Set(fromPortal)).toEqual(new Set(['subscription.updated']));

    // The invoices: a PDF through its signed link, and the open one paid through its page.
    const open = page.locator(`[data-invoice="${invoice.json.data.id}"]`);
    expect(await open.locator('.badge').textContent()).toBe('Unpaid');
    const [pdf] = await Promise.all([
      context.waitForEvent('response', (r) => r.url().includes(`/f/${invoice.json.data.id}.pdf`)),
      open.locator('a.pdf').click(),
    ]);
    expect(pdf.status()).toBe(200);
    expect(pdf.headers()['content-type']).toBe('application/pdf');
    await shot(page, 'invoices', annotate);
    await Promise.all([page.waitForURL(/\/i\/inv_/), open.locator('a.pay').click()]);
    await Promise.all([page.waitForURL(/\/c\/cs_/), page.click('#pay')]);
    await page.click('button[data-method="qris"]');
    await page.locator('img.qr').waitFor();
    await Promise.all([page.waitForURL(/\/i\/inv_.*session_id=/), page.click('#simulate-success')]);
    expect((await ws.client.get(`/v1/invoices/${invoice.json.data.id}`)).json.data.status).toBe('paid');
    // Back in the portal (the token is kept for the tab): paid.
    await page.goto(url.split('#')[0]);
    await open.waitFor();
    expect(await open.locator('.badge').textContent()).toBe('Paid');
    expect(await open.locator('a.pay').count()).toBe(0);
    expect(await page.locator('#return').getAttribute('href')).toBe('https://shop.example/akun');

    // 15 minutes on: the page answers 410, in both languages.
    clock.advance(15 * 60 * 1000);
    try {
      const gone = await page.reload();
      expect(gone?.status()).toBe(410);
      expect(await page.locator('h1').textContent()).toContain('expired');
      await shot(page, 'expired', annotate);
    } finally {
      clock.reset();
    }
    expect(await flash.count()).toBe(0);
    await context.close();
  });

  it("what the plan and workspace forbid is not offered; a wrong token shows 'not valid'", async ({ annotate }) => {
    const { ws, subId, url } = await setup({
      selfServeCancel: false,
      selfServePause: false,
      selfServeUpgrade: true,
      selfServeDowngrade: false,
      updatePaymentMethod: true,
    });
    await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, {
      portalSettings: { updatePaymentMethod: false, viewInvoices: false },
    });
    const context = await browsers.browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'id-ID' });
    const page = await context.newPage();
    await page.goto(url);
    const card = page.locator(`[data-sub="${subId}"]`);
    await card.waitFor();
    const actions = await card.locator('.actions button').evaluateAll((bs) => bs.map((b) => b.dataset.action));
    expect(actions).toEqual(['change']);
    await card.locator('[data-action="change"]').click();
    expect(await card.locator('.option .tag').allTextContents()).toEqual(['Naik paket']);
    expect(await page.locator('#invoices').count()).toBe(0);
    await shot(page, 'restricted-id', annotate);

    const forged = await context.newPage();
    await forged.goto(`${url.slice(0, -4)}AAAA`);
    await forged.locator('#closed').waitFor();
    expect(await forged.locator('#closed h2').textContent()).toBe('Tautan ini tidak berlaku.');
    await context.close();
  });
});
