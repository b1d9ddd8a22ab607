import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { EventType } from '../core/event-types.ts';
import {
  apiRequest,
  CliError,
  connection,
  connectionOptions,
  exitCodeOf,
  exitCodes,
  selectValue,
  usageError,
  type Connection,
} from './api.ts';
import type { invoiceDraft, invoiceOpen } from '../modules/invoices/states.ts';

/**
 * The invoice state table, loaded by the recipes that need it: it brings the state machines and
 * graphql (their errors), half a second of every other `svc trigger`'s start.
 */
const invoiceStates = () => import('../modules/invoices/states.ts');

/**
 * `svc trigger <event type>`: the real API calls that make the service emit that event in test
 * mode (a checkout session paid through the sandbox for `payment.succeeded`, and so on), unlike
 * `POST /v1/events/trigger`, which writes a synthetic event. Prints the ids it created and the
 * event's id once it is published.
 */

type Ids = Record<string, string>;

/** The API calls of one recipe: every write with a fresh Idempotency-Key; any failure names the step. */
class Steps {
  readonly ids: Ids = {};
  constructor(readonly conn: Connection) {}

  async call(method: string, path: string, body?: unknown): Promise<any> {
    const headers: Record<string, string> = method === 'GET' ? {} : { 'idempotency-key': randomUUID() };
    const res = await apiRequest(this.conn, method, path, body, headers);
    if (res.status >= 300) {
      const e = res.json?.error;
      throw new CliError(
        `${method} ${path} answered ${res.status}${e ? ` ${e.code}: ${e.message}` : ''}`,
        exitCodeOf(res.status) || exitCodes.error,
      );
    }
    return res.json?.data;
  }

  /** The hosted page's own public calls (spec Payment flow), on this base URL whatever HOSTED_BASE_URL is. */
  async hosted(hostedUrl: string, action: string, body: unknown) {
    const path = `${new URL(hostedUrl).pathname}/${action}`;
    let res: Response;
    try {
      res = await fetch(this.conn.baseUrl + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (e) {
      throw new CliError(`POST /c/.../${action}: ${(e as Error).message}`, exitCodes.network);
    }
    if (res.status !== 200)
      throw new CliError(
        `POST /c/.../${action} answered ${res.status}: ${await res.text()}`,
        exitCodeOf(res.status) || exitCodes.error,
      );
  }

  async customer() {
    return (this.ids.customer ??= (
      await this.call('POST', '/v1/customers', { name: 'svc trigger', email: 'trigger@example.com' })
    ).id);
  }

  /** A checkout session paid with a card through the managed sandbox: attempt, then simulate success. */
  async payment(method = 'card', amount = 100000) {
    const session = await this.call('POST', '/v1/checkout-sessions', {
      amount,
      currency: 'IDR',
      methods: [method],
      successUrl: 'https://example.com/thanks',
      cancelUrl: 'https://example.com/cart',
    });
    this.ids.checkout_session = session.id;
    await this.hosted(session.hostedUrl, 'attempt', { method });
    await this.hosted(session.hostedUrl, 'simulate', { outcome: 'success' });
    const paid = await this.call('GET', `/v1/checkout-sessions/${session.id}`);
    this.ids.payment = paid.paymentId;
    return { amount, paymentId: paid.paymentId as string };
  }

  /** A refund of `part` of a QRIS sandbox payment: it stays pending until simulated. */
  async refund(part: 'half' | 'all', outcome: 'success' | 'failure' | null) {
    const pay = await this.payment('qris', 100000);
    const refund = await this.call('POST', '/v1/refunds', {
      chargeId: pay.paymentId,
      amount: part === 'all' ? pay.amount : pay.amount / 2,
    });
    this.ids.refund = refund.id;
    if (outcome) await this.call('POST', `/v1/refunds/${refund.id}/simulate`, { outcome });
  }

  async invoice(finalized: boolean) {
    const states = await invoiceStates();
    const status: typeof invoiceDraft | typeof invoiceOpen = finalized ? states.invoiceOpen : states.invoiceDraft;
    const invoice = await this.call('POST', '/v1/invoices', {
      customerId: await this.customer(),
      currency: 'IDR',
      status,
      lines: [{ description: 'svc trigger', quantity: 1, unitAmount: 50000 }],
    });
    return (this.ids.invoice = invoice.id as string);
  }

  async plan() {
    const plan = await this.call('POST', '/v1/plans', {
      name: 'svc trigger',
      interval: 'month',
      portalFeatures: {
        selfServeCancel: true,
        selfServePause: true,
        selfServeUpgrade: true,
        selfServeDowngrade: true,
        updatePaymentMethod: true,
      },
      prices: [{ currency: 'IDR', model: 'flat', unitAmount: 150000 }],
    });
    this.ids.price = plan.prices?.[0]?.id;
    return (this.ids.plan = plan.id as string);
  }

  async subscription(paymentMethod = 'pm_test_success') {
    const planId = await this.plan();
    const sub = await this.call('POST', '/v1/subscriptions', {
      customerId: await this.customer(),
      planId,
      priceId: this.ids.price,
      paymentMethod,
    });
    if (sub.latestInvoiceId) this.ids.invoice = sub.latestInvoiceId;
    return (this.ids.subscription = sub.id as string);
  }

  async dunningPolicy() {
    const policy = await this.call('POST', '/v1/dunning-policies', {
      retryScheduleDays: [1, 3, 5],
      finalAction: (await invoiceStates()).invoiceVoid,
    });
    return (this.ids.dunning_policy = policy.id as string);
  }

  async template() {
    const t = await this.call('POST', '/v1/templates', { kind: 'receipt', name: 'svc trigger' });
    return (this.ids.template = t.id as string);
  }

  async workspace() {
    const data = await this.call('POST', '/graphql', { query: '{ me { workspaceId } }' });
    return (this.ids.workspace = data.me.workspaceId as string);
  }

  /** The manual adapter (bank transfer instructions): its first PUT in a mode connects it. */
  async manualAdapter(instructions = 'Transfer to the account below (svc trigger).') {
    await this.call('PUT', '/v1/adapters/manual', {
      instructions,
      bankAccounts: [{ bankName: 'BCA', accountNumber: '1234567890', accountHolder: 'svc trigger' }],
    });
    this.ids.adapter = 'manual';
  }

  async testClock() {
    const clock = await this.call('POST', '/v1/test-clocks', {
      name: 'svc trigger',
      frozenTime: new Date().toISOString(),
    });
    return (this.ids.test_clock = clock.id as string);
  }
}

interface Recipe {
  /** Which created id the event's `data.id` is; none: the newest event of the type after the start. */
  subject?: string;
  run(s: Steps): Promise<unknown>;
}

const payment: Recipe = { subject: 'payment', run: (s) => s.payment() };

/** The events `svc trigger` can produce. Types not listed need time to pass or a provider (README). */
export const recipes: Partial<Record<EventType, Recipe>> = {
  'customer.created': { subject: 'customer', run: (s) => s.customer() },
  'customer.updated': {
    subject: 'customer',
    run: async (s) => s.call('PATCH', `/v1/customers/${await s.customer()}`, { name: 'svc trigger (renamed)' }),
  },
  'payment.succeeded': payment,
  'svc.checkout_session.completed.v1': { subject: 'checkout_session', run: (s) => s.payment() },
  'refund.created': { subject: 'refund', run: (s) => s.refund('half', null) },
  'refund.succeeded': { subject: 'refund', run: (s) => s.refund('half', 'success') },
  'refund.failed': { subject: 'refund', run: (s) => s.refund('half', 'failure') },
  'payment.partially_refunded': { subject: 'payment', run: (s) => s.refund('half', 'success') },
  'payment.refunded': { subject: 'payment', run: (s) => s.refund('all', 'success') },
  'svc.invoice.created.v1': { subject: 'invoice', run: (s) => s.invoice(false) },
  'svc.invoice.finalized.v1': {
    subject: 'invoice',
    run: async (s) => s.call('POST', `/v1/invoices/${await s.invoice(false)}/finalize`, {}),
  },
  'svc.invoice.paid.v1': {
    subject: 'invoice',
    run: async (s) => s.call('POST', `/v1/invoices/${await s.invoice(true)}/pay`, {}),
  },
  'svc.invoice.voided.v1': {
    subject: 'invoice',
    run: async (s) => s.call('POST', `/v1/invoices/${await s.invoice(true)}/void`, {}),
  },
  'plan.created': { subject: 'plan', run: (s) => s.plan() },
  'plan.updated': {
    subject: 'plan',
    run: async (s) => s.call('PATCH', `/v1/plans/${await s.plan()}`, { description: 'changed by svc trigger' }),
  },
  'plan.archived': { subject: 'plan', run: async (s) => s.call('POST', `/v1/plans/${await s.plan()}/archive`, {}) },
  'dunning_policy.created': { subject: 'dunning_policy', run: (s) => s.dunningPolicy() },
  'dunning_policy.updated': {
    subject: 'dunning_policy',
    run: async (s) => s.call('PATCH', `/v1/dunning-policies/${await s.dunningPolicy()}`, { retryScheduleDays: [2, 4] }),
  },
  'subscription.created': { subject: 'subscription', run: (s) => s.subscription() },
  'subscription.updated': {
    subject: 'subscription',
    run: async (s) => s.call('POST', `/v1/subscriptions/${await s.subscription()}/pause`, {}),
  },
  'subscription.cancelled': {
    subject: 'subscription',
    run: async (s) => s.call('POST', `/v1/subscriptions/${await s.subscription()}/cancel`, {}),
  },
  'payment.failed': { run: (s) => s.subscription('pm_test_decline') },
  'svc.invoice.payment_failed.v1': { subject: 'invoice', run: (s) => s.subscription('pm_test_decline') },
  'template.created': { subject: 'template', run: (s) => s.template() },
  'template.updated': {
    subject: 'template',
    run: async (s) => s.call('PATCH', `/v1/templates/${await s.template()}`, { tagline: 'changed by svc trigger' }),
  },
  'test_clock.created': { subject: 'test_clock', run: (s) => s.testClock() },
  'test_clock.ready': {
    subject: 'test_clock',
    run: async (s) => {
      const clock = await s.testClock();
      const { frozenTime } = await s.call('GET', `/v1/test-clocks/${clock}`);
      const later = new Date(Date.parse(frozenTime) + 86_400_000).toISOString();
      return s.call('POST', `/v1/test-clocks/${clock}/advance`, { frozenTime: later });
    },
  },
  'workspace.updated': {
    subject: 'workspace',
    run: async (s) =>
      s.call('PATCH', `/v1/workspaces/${await s.workspace()}`, { brandName: `svc trigger ${Date.now()}` }),
  },
  'adapter.connected': { subject: 'adapter', run: (s) => s.manualAdapter() },
  'adapter.updated': {
    subject: 'adapter',
    run: async (s) => {
      await s.manualAdapter();
      await s.manualAdapter('Changed by svc trigger.');
    },
  },
  'test_clock.deleted': {
    subject: 'test_clock',
    run: async (s) => s.call('DELETE', `/v1/test-clocks/${await s.testClock()}`),
  },
};

const EVENT_WAIT_MS = 15_000;

export async function trigger(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...connectionOptions,
      json: { type: 'boolean' },
      list: { type: 'boolean' },
      select: { type: 'string', short: 's' },
    },
  });
  if (values.list) return void process.stdout.write(`${Object.keys(recipes).join('\n')}\n`);
  const [type, ...extra] = positionals;
  if (!type || extra.length) throw usageError('usage: svc trigger <event type> (svc trigger --list shows them)');
  const recipe = recipes[type as EventType];
  if (!recipe)
    throw usageError(`svc trigger cannot produce ${JSON.stringify(type)}; it can: ${Object.keys(recipes).join(', ')}`);
  const conn = connection(values);
  if (!conn.keyId.startsWith('pk_test_')) throw usageError('svc trigger runs in test mode only: use a pk_test_ key');
  const steps = new Steps(conn);
  // The newest event before any call: ours must be newer (ids sort by time; the server's clock, not ours).
  const [before] = (await steps.call('GET', '/v1/events?limit=1&order=desc')) as { id: string }[];
  await recipe.run(steps);
  const subject = recipe.subject ? steps.ids[recipe.subject] : undefined;
  if (recipe.subject && !subject) throw new CliError(`the calls succeeded but returned no ${recipe.subject} id`);
  const event = await waitForEvent(steps, type, subject, before?.id ?? '');
  const ids = { ...steps.ids, ...(subject ? {} : { [type.split('.')[0]]: event.data.id }), event: event.id };
  if (values.select) process.stdout.write(`${selectValue({ type, ids }, values.select)}\n`);
  else if (values.json) process.stdout.write(`${JSON.stringify({ type, ids })}\n`);
  else for (const [k, v] of Object.entries(ids)) process.stdout.write(`${k.padEnd(17)}${v}\n`);
}

/** Events are listed once the outbox relay has published them (the worker): poll until ours is there. */
async function waitForEvent(steps: Steps, type: string, objectId: string | undefined, after: string) {
  const query = new URLSearchParams({ type, limit: '1', order: 'desc', ...(objectId ? { objectId } : {}) });
  const target = `/v1/events?${query}`;
  const deadline = Date.now() + EVENT_WAIT_MS;
  for (;;) {
    const [event] = (await steps.call('GET', target)) as { id: string; data: { id: string } }[];
    if (event && event.id > after) return event;
    if (Date.now() > deadline)
      throw new CliError(
        `the calls succeeded (${Object.entries(steps.ids)
          .map(([k, v]) => `${k} ${v}`)
          .join(
            ', ',
          )}) but no ${type} event${objectId ? ` for ${objectId}` : ''} was published within ${EVENT_WAIT_MS / 1000} s: ` +
          'is the worker running (svc start, or svc worker next to svc serve)?',
      );
    await new Promise((r) => setTimeout(r, 200));
  }
}
