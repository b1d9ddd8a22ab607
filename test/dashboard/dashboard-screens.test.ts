// More dashboard screens in Chromium (docs/dashboard.md): webhooks (create an endpoint, its
// secret once, deliveries, a replay, a rotation), reports (P&L, cash flow, the chart, the ledger CSV),
// settings (branding, templates, portal features), subscription actions, and an invoice's credit
// notes; a read_only member sees none of the actions and the API refuses them if forced. axe-core on
// every screen; screenshots at 1280 and 390 px in test/output/.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { haveChromium, useBrowser } from '../helpers/browser.ts';
import { expectAccessible, shoot, signInPage } from '../helpers/dashboard-browser.ts';
import { useDevIdp } from '../helpers/dashboard.ts';
import { invitationMail, useMailOutbox } from '../helpers/members.ts';
import { sandboxPayment } from '../helpers/payments.ts';
import { planBody, postPlan } from '../helpers/plans.ts';
import { startReceiver, until } from '../helpers/receiver.ts';
import { useServer, type Workspace } from '../helpers/server.ts';

const server = useServer({ background: 'worker' });
const outbox = useMailOutbox();
useDevIdp(server);
const browsers = useBrowser('the dashboard screens browser tests');
const key = () => ({ 'idempotency-key': randomUUID() });

let owner: Workspace;
const ready = async () => {
  owner ??= await server.workspace({ name: 'Toko Maju' });
  return owner;
};

async function customer(ws: Workspace, name: string) {
  const res = await ws.client.post('/v1/customers', { name, email: 'siti@example.com' });
  expect(res.status, res.text).toBe(201);
  return res.json.data.id as string;
}

/** An open invoice of 2 x 50,000 + 11,000 tax with a credit note of one line. */
async function creditedInvoice(ws: Workspace) {
  const inv = await ws.client.post('/v1/invoices', {
    customerId: await customer(ws, 'Siti Rahma'),
    currency: 'IDR',
    lines: [{ description: 'Konsultasi', quantity: 2, unitAmount: 50000 }],
    tax: 11000,
    status: 'open',
  });
  expect(inv.status, inv.text).toBe(201);
  const note = await ws.client.post(
    '/v1/credit-notes',
    {
      invoiceId: inv.json.data.id,
      lines: [{ invoiceLineId: inv.json.data.lines[0].id, quantity: 1 }],
      reason: 'other',
    },
    key(),
  );
  expect(note.status, note.text).toBe(201);
  return { invoice: inv.json.data, note: note.json.data };
}

async function activeSubscription(ws: Workspace) {
  const plan = await postPlan(ws, planBody({ name: 'Paket Pro' }));
  expect(plan.status, plan.text).toBe(201);
  const sub = await ws.client.post(
    '/v1/subscriptions',
    { customerId: await customer(ws, 'Andi'), priceId: plan.json.data.prices[0].id, paymentMethod: 'pm_test_success' },
    key(),
  );
  expect(sub.status, sub.text).toBe(201);
  expect(sub.json.data.status).toBe('active');
  return sub.json.data.id as string;
}

describe.skipIf(!haveChromium)('dashboard screens in Chromium', () => {
  it('webhooks, reports, settings, subscription actions and credit notes work for the owner', async () => {
    const ws = await ready();
    // The first delivery fails (500), so it can be replayed; the replay succeeds.
    const rx = await startReceiver((n) => (n === 0 ? 500 : 200));
    await sandboxPayment(server, ws, { amount: 250000 });
    const context = await browsers.browser.newContext({
      viewport: { width: 1280, height: 900 },
      locale: 'en-US',
      acceptDownloads: true,
    });
    const page = await signInPage(context, server.url, 'owner@example.com');

    // Webhooks: create, the secret once, a delivery, a replay, a rotation.
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByTestId('webhook-form').waitFor();
    await page.getByLabel('URL').fill(rx.url);
    await page.getByLabel(/^Event types/).fill('customer.created');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.getByTestId('secret-value').waitFor();
    const secret = await page.getByTestId('secret-value').textContent();
    expect(secret).toBeTruthy();
    const endpoints = await ws.client.get('/v1/webhook-endpoints');
    const ep = endpoints.json.data.find((e: { url: string }) => e.url === rx.url);
    expect(ep.events).toEqual(['customer.created']);
    expect(ep.signingSecret ?? null).toBeNull(); // shown once, by the create's answer only
    const row = page.locator(`tr[data-endpoint-id="${ep.id}"]`);
    await row.waitFor();
    const cus = await customer(ws, 'Dewi');
    await until(() => rx.received.length >= 1, 'the first delivery');
    await row.getByRole('button', { name: 'Deliveries' }).click();
    // The 500 leaves the delivery pending on its retry schedule (minutes away); a replay goes now.
    const failed = page.locator(
      '[data-testid=deliveries-table] tr[data-event-type="customer.created"][data-status-code="500"]',
    );
    await expect
      .poll(
        async () => {
          // The attempt's outcome is not an event: reopen the list until the failed attempt shows.
          if ((await failed.count()) === 0) {
            await row.getByRole('button', { name: 'Deliveries' }).click();
            await row.getByRole('button', { name: 'Deliveries' }).click();
          }
          return failed.count();
        },
        { timeout: 15_000 },
      )
      .toBeGreaterThan(0);
    await expectAccessible(page, 'webhooks');
    await failed.first().getByRole('button', { name: 'Replay' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Delivery replayed');
    await until(() => rx.received.length >= 2, 'the replayed delivery');
    expect(JSON.parse(rx.received[1]!.body.toString()).data.object.id).toBe(cus);
    await expect.poll(() => page.locator('[data-testid=deliveries-table] tbody tr').count()).toBeGreaterThan(1);
    await row.getByRole('button', { name: 'Rotate secret' }).click();
    await expect.poll(() => page.getByTestId('secret-value').textContent()).not.toBe(secret);
    await shoot(page, 'webhooks');

    // Reports: the payment's money in the P&L and the cash flow, the chart, the CSV.
    await page.getByRole('link', { name: 'Reports' }).click();
    await page.getByTestId('cash-flow-chart').waitFor();
    await expect.poll(() => page.getByTestId('cash-in').textContent()).toContain('Rp 250.000');
    await expect(page.getByTestId('pnl-revenue').textContent()).resolves.toMatch(/^Rp /);
    await expect(page.locator('[data-testid=cash-flow-chart] rect.in').count()).resolves.toBe(30);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export ledger CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.csv$/);
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv.split('\r\n')[0]).toBe('postedAt,txId,code,direction,amount,currency,sourceType,sourceId,memo');
    expect(csv).toContain('250000');
    await expectAccessible(page, 'reports');
    await shoot(page, 'reports');

    // Settings: branding on the workspace and both default templates, a template text, the portal.
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByTestId('branding-form').waitFor();
    await page.getByLabel('Brand name').fill('Toko Maju Jaya');
    await page.getByLabel('Accent colour').fill('#aa3300');
    await page.getByLabel(/^Logo URL/).fill('https://cdn.example.com/logo.png');
    await page.getByTestId('branding-form').getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Saved');
    const wsRow = await ws.client.get(`/v1/workspaces/${ws.workspaceId}`);
    expect(wsRow.json.data.brandName).toBe('Toko Maju Jaya');
    const templates = async () => (await ws.client.get('/v1/templates')).json.data as Record<string, unknown>[];
    await expect.poll(async () => (await templates()).filter((x) => x.isDefault).length).toBe(2);
    for (const t of (await templates()).filter((x) => x.isDefault))
      expect({ accentColor: t.accentColor, logoUrl: t.logoUrl }).toEqual({
        accentColor: '#aa3300',
        logoUrl: 'https://cdn.example.com/logo.png',
      });
    const receipt = page.getByTestId('template-receipt');
    await receipt.getByLabel('Tagline').fill('Selalu segar');
    await receipt.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(async () => (await templates()).find((x) => x.kind === 'receipt' && x.isDefault)?.tagline)
      .toBe('Selalu segar');
    await page.getByLabel('Customers cancel their subscription').check();
    await page.getByTestId('portal-form').getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(async () => (await ws.client.get(`/v1/workspaces/${ws.workspaceId}`)).json.data.portalSettings.cancel)
      .toBe(true);
    await expectAccessible(page, 'settings');
    await shoot(page, 'settings');

    // Subscriptions: pause, resume, cancel at the period end, cancel now.
    const subId = await activeSubscription(ws);
    await page.getByRole('link', { name: 'Subscriptions' }).click();
    const sub = page.locator(`tr[data-subscription-id="${subId}"]`);
    await sub.getByRole('button', { name: 'Pause' }).click();
    await sub.getByRole('button', { name: 'Resume' }).waitFor();
    expect((await ws.client.get(`/v1/subscriptions/${subId}`)).json.data.status).toBe('paused');
    await sub.getByRole('button', { name: 'Resume' }).click();
    await sub.getByRole('button', { name: 'Pause' }).waitFor();
    await sub.getByRole('button', { name: 'Cancel at period end' }).click();
    await expect.poll(() => sub.textContent()).toContain('(Cancel at period end)');
    expect((await ws.client.get(`/v1/subscriptions/${subId}`)).json.data.cancelAtPeriodEnd).toBe(true);
    await expectAccessible(page, 'subscriptions with actions');
    await shoot(page, 'billing-actions');
    await sub.getByRole('button', { name: 'Cancel now' }).click();
    await expect.poll(() => sub.textContent()).toContain('canceled');
    await expect(sub.getByRole('button').count()).resolves.toBe(0);
    expect((await ws.client.get(`/v1/subscriptions/${subId}`)).json.data.status).toBe('canceled');

    // An invoice and its credit note.
    const { invoice, note } = await creditedInvoice(ws);
    await page.getByRole('link', { name: 'Invoices' }).click();
    await page.getByRole('link', { name: invoice.id }).click();
    await page.locator(`tr[data-credit-note-id="${note.id}"]`).waitFor();
    await expect(page.locator(`tr[data-credit-note-id="${note.id}"]`).textContent()).resolves.toContain(note.number);
    await expect(page.getByTestId('invoice-total').textContent()).resolves.toBe('Rp 111.000');
    await expect(page.getByTestId('invoice-credited').textContent()).resolves.toBe('Rp 55.500');
    // A second note from the page: 10,000 more credited, the table and the amounts follow.
    await page.getByLabel(/^Amount to credit/).fill('10.000');
    await page.getByTestId('credit-note-form').getByLabel('Reason').selectOption('duplicate');
    await page.getByRole('button', { name: 'Issue credit note' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Credit note issued');
    await expect.poll(() => page.locator('[data-testid=credit-notes] tbody tr').count()).toBe(2);
    await expect.poll(() => page.getByTestId('invoice-credited').textContent()).toBe('Rp 65.500');
    const notes = await ws.client.get(`/v1/credit-notes?invoiceId=${invoice.id}`);
    expect(notes.json.data.map((n: { total: number; reason: string }) => [n.total, n.reason])).toContainEqual([
      10000,
      'duplicate',
    ]);
    await expectAccessible(page, 'invoice');
    await shoot(page, 'invoice');
    await context.close();
    await rx.close();
  });

  it('a read_only member sees no action on these screens, and the API refuses a forced one', async () => {
    const ws = await ready();
    const res = await ws.client.post(`/v1/workspaces/${ws.workspaceId}/members`, {
      email: 'readonly@example.com',
      role: 'read_only',
    });
    expect(res.status, res.text).toBe(201);
    const token = invitationMail(outbox.dir, res.json.data.id).token;
    const endpoint = await ws.client.post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/in' });
    expect(endpoint.status, endpoint.text).toBe(201);
    const subId = await activeSubscription(ws);
    const context = await browsers.browser.newContext({ locale: 'en-US' });
    const page = await signInPage(context, server.url, 'readonly@example.com', { invitation: token });

    await page.getByRole('link', { name: 'Webhooks' }).click();
    const row = page.locator(`tr[data-endpoint-id="${endpoint.json.data.id}"]`);
    await row.waitFor();
    await expect(page.getByTestId('webhook-form').count()).resolves.toBe(0);
    await expect(row.getByRole('button', { name: 'Rotate secret' }).count()).resolves.toBe(0);

    await page.getByRole('link', { name: 'Subscriptions' }).click();
    await page.locator(`tr[data-subscription-id="${subId}"]`).waitFor();
    await expect(page.locator(`tr[data-subscription-id="${subId}"]`).getByRole('button').count()).resolves.toBe(0);

    const { invoice } = await creditedInvoice(ws);
    await page.getByRole('link', { name: 'Invoices' }).click();
    await page.getByRole('link', { name: invoice.id }).click();
    await page.getByTestId('credit-notes').waitFor();
    await expect(page.getByTestId('credit-note-form').count()).resolves.toBe(0);

    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByTestId('branding-form').waitFor();
    await expect(page.getByRole('button', { name: 'Save' }).count()).resolves.toBe(0);
    await expect(page.getByLabel('Brand name').isDisabled()).resolves.toBe(true);
    await expectAccessible(page, 'settings (read_only)');

    await page.getByRole('link', { name: 'Reports' }).click();
    await page.getByTestId('cash-flow-chart').waitFor();

    const forced = await page.evaluate(async (id) => {
      const me = await (await fetch('/dashboard/auth/session')).json();
      const r = await fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-csrf': me.csrf },
        body: JSON.stringify({
          query: 'mutation($id: ID!) { rotateWebhookEndpointSecret(id: $id) { id } }',
          variables: { id },
        }),
      });
      return { status: r.status, body: await r.json() };
    }, endpoint.json.data.id);
    expect(forced.status).toBe(403);
    expect(forced.body.errors[0].extensions.code).toBe('insufficient_scope');
    await context.close();
  });
});
