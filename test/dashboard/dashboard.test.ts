import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEV_PASSWORD } from '../../src/auth/dev-idp.ts';
import { haveChromium, useBrowser } from '../helpers/browser.ts';
import { useDevIdp } from '../helpers/dashboard.ts';
import { expectAccessible, shoot, signInPage } from '../helpers/dashboard-browser.ts';
import { invitationMail, useMailOutbox } from '../helpers/members.ts';
import { sandboxPayment } from '../helpers/payments.ts';
import { planBody, postPlan } from '../helpers/plans.ts';
import { useServer, type Workspace } from '../helpers/server.ts';

const server = useServer();
const outbox = useMailOutbox();
const dev = useDevIdp(server);
const browsers = useBrowser('the dashboard browser tests');

let owner: Workspace;
const ready = async () => {
  owner ??= await server.workspace({ name: 'Toko Maju' });
  return owner;
};

async function invite(ws: Workspace, email: string, role: string) {
  const res = await ws.client.post(`/v1/workspaces/${ws.workspaceId}/members`, { email, role });
  expect(res.status, res.text).toBe(201);
  return { id: res.json.data.id as string, token: invitationMail(outbox.dir, res.json.data.id).token };
}

describe.skipIf(!haveChromium)('dashboard in Chromium', () => {
  it('the assets are immutable, hashed and pinned by integrity; the page cannot be framed', async () => {
    const res = await fetch(`${server.url}/dashboard/`);
    const html = await res.text();
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const script = /<script type="module" src="([^"]+)" integrity="(sha384-[^"]+)"/.exec(html)!;
    expect(script[1]).toMatch(/^\/dashboard\/assets\/main-[A-Z0-9]+\.js$/);
    const js = await fetch(`${server.url}${script[1]}`);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const { createHash } = await import('node:crypto');
    const digest = createHash('sha384')
      .update(Buffer.from(await js.arrayBuffer()))
      .digest('base64');
    expect(`sha384-${digest}`).toBe(script[2]);
  });

  it('the owner signs in; home, payments, a payment and customers render with data; a refund from the payment page', async () => {
    const ws = await ready();
    const budi = (await ws.client.post('/v1/customers', { name: 'Budi Santoso', email: 'budi@example.com' })).json.data
      .id;
    const paid = await sandboxPayment(server, ws, { amount: 250000, customerId: budi });
    // A saved card and a credit balance: the customer page shows both (display fields only). The
    // credit is in dollars: the rupiah invoice drafted below would use up a rupiah credit at finalization.
    const key = () => ({ 'idempotency-key': randomUUID() });
    const pm = await ws.client.post('/v1/payment-methods', { customerId: budi, type: 'card' }, key());
    expect(pm.status, pm.text).toBe(201);
    const credit = await ws.client.post(
      `/v1/customers/${budi}/balance-transactions`,
      { amount: 7500, currency: 'USD', description: 'Goodwill' },
      key(),
    );
    expect(credit.status, credit.text).toBe(201);
    const context = await browsers.browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    const offOrigin: string[] = [];
    context.on('request', (r) => {
      const u = new URL(r.url());
      // The network only: Chromium's own PDF viewer (chrome-extension:) and data: URLs are not requests out.
      if (/^(https?|wss?):$/.test(u.protocol) && u.origin !== server.url && u.origin !== dev.idp.issuer)
        offOrigin.push(r.url());
    });
    const page = await signInPage(context, server.url, 'owner@example.com');
    await expect(page.getByTestId('mode-banner').textContent()).resolves.toBe('Test mode');
    await page.getByTestId('balance-IDR').waitFor();
    await page.locator('[data-testid=feed] li[data-event-type="payment.succeeded"]').first().waitFor();
    await expectAccessible(page, 'home');
    await shoot(page, 'home');

    await page.getByRole('link', { name: 'Payments' }).click();
    const row = page.locator(`tr[data-payment-id="${paid.id}"]`);
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('Rp 250.000');
    await expectAccessible(page, 'payments');
    await shoot(page, 'payments');

    await row.getByRole('link').click();
    await page.getByTestId('payment-amount').waitFor();
    await expect(page.getByTestId('payment-amount').textContent()).resolves.toBe('Rp 250.000');
    await page.locator('[data-testid=timeline] li').first().waitFor();
    await expectAccessible(page, 'payment');
    // Amounts are typed as the dashboard shows them; what is not one is said beside the field, and nothing is sent.
    const refundAmount = page.getByLabel(/Amount to refund/);
    await expect(refundAmount.getAttribute('placeholder')).resolves.toBe('250.000');
    await refundAmount.fill('25,0,0');
    await page.getByRole('button', { name: 'Refund' }).click();
    const amountError = page.getByTestId('refund-form-amount-error');
    await expect(amountError.textContent()).resolves.toBe('Not an amount: type it like 25.000');
    await expect(refundAmount.getAttribute('aria-describedby')).resolves.toBe('refund-form-amount-error');
    await refundAmount.fill('1.2.3.4');
    await page.getByRole('button', { name: 'Refund' }).click();
    await expect(amountError.textContent()).resolves.toBe('Thousands go in groups of three digits, like 25.000');
    await refundAmount.fill('50.000');
    await expect(amountError.count()).resolves.toBe(0);
    await page.getByLabel('Reason').selectOption('duplicate');
    await page.getByRole('button', { name: 'Refund' }).click();
    // The member confirms the amount and the customer before the refund is sent.
    const confirm = page.getByTestId('refund-form-confirm');
    await expect(confirm.textContent()).resolves.toContain('Refund Rp 50.000 to Budi Santoso <budi@example.com>?');
    expect((await ws.client.get(`/v1/payments/${paid.id}`)).json.data.amountRefunded).toBe(0);
    await expectAccessible(page, 'refund confirmation');
    await confirm.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').waitFor();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Refund created');
    // The normalized cache updates the payment from the mutation's answer.
    await expect.poll(() => page.getByTestId('payment-refunded').textContent(), { timeout: 5000 }).toBe('Rp 50.000');
    const api = await ws.client.get(`/v1/payments/${paid.id}`);
    expect(api.json.data.amountRefunded).toBe(50000);
    await shoot(page, 'payment');

    await page.getByRole('link', { name: 'Customers' }).click();
    await page.getByText('Budi Santoso').waitFor();
    await expectAccessible(page, 'customers');
    await shoot(page, 'customers');

    await page.getByRole('link', { name: 'Invoices' }).click();
    await page.getByTestId('invoice-form').waitFor();
    await page.getByLabel('Description').fill('Konsultasi');
    await page.getByLabel(/^Amount/).fill('150.000');
    await page.getByRole('button', { name: 'Create draft' }).click();
    const draft = page.locator('tr[data-invoice-id]', { hasText: 'draft' }).first();
    await draft.waitFor();
    await draft.getByRole('button', { name: 'Finalize' }).click();
    const open = page.locator('tr[data-invoice-id]', { hasText: 'open' }).first();
    await open.waitFor();
    await expect(open.textContent()).resolves.toContain('Rp 150.000');
    await open.getByRole('button', { name: 'Send' }).click();
    // No SMTP in tests: the rendered email is kept in the development outbox (docs/billing.md, Email).
    await expect
      .poll(() => page.getByRole('status').textContent(), { timeout: 15_000 })
      .toBe('No mail server: the email is kept in the development outbox for budi@example.com');
    const pdfHref = await open.getByTestId('invoice-pdf').getAttribute('href');
    expect(pdfHref).toMatch(/^\//); // on this origin
    const [popup] = await Promise.all([context.waitForEvent('page'), open.getByTestId('invoice-pdf').click()]);
    await popup.close();
    const pdf = await fetch(`${server.url}${pdfHref}`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toContain('application/pdf');
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    await expectAccessible(page, 'invoices');
    await shoot(page, 'invoices');

    await page.getByRole('link', { name: 'Customers' }).click();
    await page
      .getByRole('row', { name: /Budi Santoso/ })
      .getByRole('link')
      .click();
    await page.getByRole('heading', { name: 'Budi Santoso' }).waitFor();
    await page.getByTestId('customer-payments').waitFor();
    await expect(page.getByTestId('customer-balance').textContent()).resolves.toContain('$75.00');
    const method = page.getByTestId('customer-payment-methods').locator('li', { hasText: pm.json.data.id });
    await expect(method.textContent()).resolves.toMatch(/•••• 4242 — active \(default\)/);
    await expectAccessible(page, 'customer');
    await shoot(page, 'customer');

    const plan = await postPlan(ws, planBody({ name: 'Paket Basic' }));
    expect(plan.status, plan.text).toBe(201);
    await page.getByRole('link', { name: 'Subscriptions' }).click();
    await page.getByTestId('plans').getByText('Paket Basic').waitFor();
    // A plan made from the form, then archived from its row.
    const planForm = page.getByTestId('plan-form');
    await planForm.getByLabel('Plan name').fill('Paket Hemat');
    await planForm.getByLabel(/^Price/).fill('49.000');
    await planForm.getByLabel('Billed every').selectOption('month');
    await planForm.getByLabel('cancel', { exact: true }).check();
    await planForm.getByRole('button', { name: 'Create plan' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Plan created');
    const hemat = page.getByTestId('plans').locator('li', { hasText: 'Paket Hemat' });
    await hemat.waitFor();
    const made = (await ws.client.get('/v1/plans')).json.data.find((x: { name: string }) => x.name === 'Paket Hemat');
    expect(made).toMatchObject({ interval: 'month', intervalCount: 1, active: true });
    expect(made.portalFeatures).toEqual({
      selfServeCancel: true,
      selfServePause: false,
      selfServeUpgrade: false,
      selfServeDowngrade: false,
      updatePaymentMethod: false,
    });
    expect(made.prices.map((x: { currency: string; unitAmount: number }) => [x.currency, x.unitAmount])).toEqual([
      ['IDR', 49000],
    ]);
    await hemat.getByRole('button', { name: 'Archive' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Plan archived');
    // The list shows the plans not archived (the API's default): it leaves the list.
    await expect.poll(() => hemat.count()).toBe(0);
    expect((await ws.client.get(`/v1/plans/${made.id}`)).json.data.active).toBe(false);
    await expectAccessible(page, 'subscriptions and plans');
    await shoot(page, 'billing');

    await page.getByRole('link', { name: 'Payouts' }).click();
    await page.getByTestId('payout-balance').waitFor();
    await expect(page.getByTestId('payout-balance').textContent()).resolves.toContain('Rp');
    // The bank account, then a payout to it from what the payment left available.
    const bankForm = page.getByTestId('bank-account-form');
    await bankForm.getByLabel('Bank name').fill('BCA');
    await bankForm.getByLabel('Account number').fill('1234567890');
    await bankForm.getByLabel('Account holder').fill('Toko Maju');
    await bankForm.getByRole('button', { name: 'Save bank account' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Saved');
    expect((await ws.client.get('/v1/payouts/bank-account')).json.data).toMatchObject({
      bankName: 'BCA',
      bankAccountNumber: '1234567890',
      bankAccountHolder: 'Toko Maju',
    });
    await page.getByLabel(/^Amount to pay out/).fill('Rp 100.000');
    await page.getByRole('button', { name: 'Request payout' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Payout requested');
    await expect
      .poll(() => page.locator('[data-testid=payouts-table] tbody tr').first().textContent())
      .toContain('Rp 100.000');
    const payouts = (await ws.client.get('/v1/payouts')).json.data;
    expect(payouts.map((x: { amount: number; bankName: string }) => [x.amount, x.bankName])).toEqual([[100000, 'BCA']]);
    await expectAccessible(page, 'payouts');
    await shoot(page, 'payouts');

    await page.getByRole('link', { name: 'Team' }).click();
    await page.locator('tr[data-member-email="owner@example.com"]').waitFor();
    await page.getByLabel('Email').fill('admin@example.com');
    await page.getByLabel('Role').selectOption('admin');
    await page.getByRole('button', { name: 'Invite' }).click();
    await page.locator('tr[data-member-email="admin@example.com"]').waitFor();
    await expect(page.locator('tr[data-member-email="admin@example.com"]').textContent()).resolves.toContain('invited');
    await expectAccessible(page, 'team');
    await shoot(page, 'team');

    await page.getByRole('link', { name: 'Developers' }).click();
    await page.getByText(ws.keyId).waitFor();
    // The request log: the invoice email sent from the Invoices screen is there, by this session.
    const sent = page.locator('[data-testid=audit-table] tr', { hasText: 'invoice.email_kept' });
    await sent.first().waitFor();
    await expect(sent.first().textContent()).resolves.toMatch(/mem_\w+.*inv_\w+.*req_\w+/);
    await expectAccessible(page, 'developers');
    await shoot(page, 'developers');

    // Indonesian by the switch (and by the browser's language, below).
    await page.getByLabel('Language').selectOption('id');
    await page.getByRole('heading', { name: 'Pengembang' }).waitFor();
    expect(offOrigin).toEqual([]);
    await context.close();

    const idContext = await browsers.browser.newContext({ locale: 'id-ID' });
    const idPage = await idContext.newPage();
    await idPage.goto(`${server.url}/dashboard/`);
    await idPage.getByRole('link', { name: 'Masuk' }).waitFor();
    await idContext.close();
  });

  it('a payment paid elsewhere reaches the home feed and the payments list within 1 s', async () => {
    const ws = await ready();
    const context = await browsers.browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    const home = await signInPage(context, server.url, 'owner@example.com');
    await home.locator('.dot.on').waitFor();
    const list = await context.newPage();
    await list.goto(`${server.url}/dashboard/payments`);
    await list.getByTestId('payments-table').waitFor();
    await list.waitForTimeout(300); // the list's socket connects
    const paid = await sandboxPayment(server, ws, { amount: 77000 });
    const committed = Date.now();
    await home.locator(`[data-testid=feed] li[data-event-type="payment.succeeded"]:has-text("${paid.id}")`).waitFor({
      timeout: 1000,
    });
    await list
      .locator(`tr[data-payment-id="${paid.id}"]`)
      .waitFor({ timeout: Math.max(1, 1000 - (Date.now() - committed)) });
    expect(Date.now() - committed).toBeLessThan(1000);
    await context.close();
  });

  it('after the server drops its sockets the feed reconnects and delivers what committed meanwhile', async () => {
    const ws = await ready();
    const context = await browsers.browser.newContext({ locale: 'en-US' });
    const home = await signInPage(context, server.url, 'owner@example.com');
    await home.locator('.dot.on').waitFor();
    const before = await sandboxPayment(server, ws, { amount: 11000 });
    await home.locator(`[data-testid=feed] li[data-live]:has-text("${before.id}")`).waitFor({ timeout: 5000 });
    // As a restart does: every socket told 1001 (going away); a payment commits while the app is away.
    for (const c of server.app.fastify.websocketServer.clients) c.close(1001, 'server shutting down');
    await home.locator('.dot:not(.on)').waitFor();
    const during = await sandboxPayment(server, ws, { amount: 12000 });
    // Delivered by the socket (data-live) once it is back, from the last event it had seen.
    await home.locator(`[data-testid=feed] li[data-live]:has-text("${during.id}")`).waitFor({ timeout: 15_000 });
    await home.locator('.dot.on').waitFor();
    await context.close();
  });

  it('a read_only member sees no action buttons and the API refuses the forced refund', async () => {
    const ws = await ready();
    const paid = await sandboxPayment(server, ws, { amount: 90000 });
    const inv = await invite(ws, 'readonly@example.com', 'read_only');
    const context = await browsers.browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${server.url}/dashboard/auth/login?invitation=${inv.token}`);
    await page.getByLabel('Email').fill('readonly@example.com');
    await page.getByLabel('Password').fill(DEV_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Join the workspace' }).click();
    await page.waitForURL(`${server.url}/dashboard/`);
    await page.goto(`${server.url}/dashboard/payments/${paid.id}`);
    await page.getByTestId('payment-amount').waitFor();
    await expect(page.getByTestId('refund-form').count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Refund' }).count()).resolves.toBe(0);
    const forced = await page.evaluate(async (id) => {
      const me = await (await fetch('/dashboard/auth/session')).json();
      const res = await fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-csrf': me.csrf },
        body: JSON.stringify({
          query: 'mutation($id: String!) { createRefund(input: { chargeId: $id }, idempotencyKey: "forced") { id } }',
          variables: { id },
        }),
      });
      return { status: res.status, body: await res.json() };
    }, paid.id);
    expect(forced.status).toBe(403);
    expect(forced.body.errors[0].extensions.code).toBe('insufficient_scope');
    await context.close();
  });

  it('a removed member is signed out of an open dashboard within seconds', async () => {
    const ws = await ready();
    const inv = await invite(ws, 'member@example.com', 'member');
    const context = await browsers.browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${server.url}/dashboard/auth/login?invitation=${inv.token}`);
    await page.getByLabel('Email').fill('member@example.com');
    await page.getByLabel('Password').fill(DEV_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Join the workspace' }).click();
    await page.waitForURL(`${server.url}/dashboard/`);
    await page.locator('.dot.on').waitFor();
    expect((await ws.client.delete(`/v1/workspaces/${ws.workspaceId}/members/${inv.id}`)).status).toBe(204);
    await page.getByRole('link', { name: 'Sign in' }).waitFor({ timeout: 8000 });
    await context.close();
  });
});
