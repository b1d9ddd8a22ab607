import { randomBytes } from 'node:crypto';
import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant, type Tx } from '../../core/db/client.ts';
import { scopedRow, sql as q, sqlOf, updateRow, type AnyTx } from '../../core/db/sql.ts';
import { DomainError, errorsFor } from '../../core/errors.ts';
import { sha256Hex } from '../../core/crypto.ts';
import { newId } from '../../core/ids.ts';
import { emit } from '../../core/outbox.ts';
import { keysetList } from '../../core/pagination.ts';
import { scoped, type RowScope } from '../../core/resource.ts';
import { seal } from '../../core/sealed.ts';
import { nextState, editState } from '../../core/state-machine.ts';
import { oneOf, refuseCardNumbers, validateMetadata } from '../../core/validation.ts';
import { changedFrom } from '../../core/wire.ts';
import { Prisma, type Customer, type PaymentMethod } from '../../generated/prisma/client.ts';
import { methodMoving } from './hooks.ts';
import { clockTimeFor } from '../../core/business-time.ts';
import { lockCustomer } from '../customers/rows.ts';
import { flagDefault, methodSnapshot, setCustomerDefault, type EventOptions } from './defaults.ts';
import type { PaymentMethodRow } from './fields.ts';
import { paymentMethodList } from './list.ts';
import { scenarioNames, scenarios, type Scenario } from './scenarios.ts';
import type {
  CreatePaymentMethodInput,
  ListPaymentMethodsArgs,
  SimulatePaymentMethodInput,
  UpdatePaymentMethodInput,
} from './schema.ts';
import {
  chargeable,
  paymentMethodDetached,
  paymentMethodMachine,
  paymentMethodUpdated,
  paymentMethodTypes,
  simulatedEvents,
  type PaymentMethodStatus,
  type PaymentMethodTrigger,
  type PaymentMethodType,
} from './states.ts';
import { SANDBOX_TOKEN_PREFIX } from '../../providers/saved.ts';

const err = errorsFor('payment_method');
const ewalletProviders = ['ovo', 'dana', 'shopeepay', 'gopay', 'linkaja'] as const;
const banks = ['bri', 'mandiri', 'bca', 'bni'] as const;
/** The managed adapter: the test sandbox's methods are answered in process (docs/guides/payment-methods.md). */
export const SANDBOX_ADAPTER = 'provider_a_platform';
// Sandbox tokens carry their scenario's last four digits; every live adapter refuses the prefix (one home: the providers).
export { SANDBOX_TOKEN_PREFIX };

const withAccount = (row: PaymentMethod, accountId: string): PaymentMethodRow => ({ ...row, accountId });
const liveOnlyRefusal = (what: string) =>
  new DomainError('forbidden_in_live_mode', `${what} in test mode only`, { resource: 'payment_method' });

/** Routes provider callbacks to a method without decrypting (indexed; the token itself is high-entropy). */
export const providerTokenHash = (adapter: string, token: string) => sha256Hex(`${adapter}\0${token}`);

/** End of the card's expiry month: 00:00 UTC of the first day of the next month. */
export const cardExpiry = (expMonth: number, expYear: number) => new Date(Date.UTC(expYear, expMonth, 1));

function checkInt(v: unknown, field: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    throw err.validation(field, `${field} must be an integer from ${min} to ${max}`);
  return v;
}

/** Display fields of a sandbox method of `type` for `scenario` (masked: never enough to charge elsewhere). */
export function sandboxDisplay(
  input: Pick<CreatePaymentMethodInput, 'expMonth' | 'expYear' | 'ewalletProvider' | 'bank'>,
  type: PaymentMethodType,
  scenario: Scenario,
  at: Date,
) {
  const last4 = scenarios[scenario].last4;
  if (type === 'card') {
    const year = at.getUTCFullYear();
    const expMonth = input.expMonth == null ? 12 : checkInt(input.expMonth, 'expMonth', 1, 12);
    const expYear = input.expYear == null ? year + 3 : checkInt(input.expYear, 'expYear', year, year + 50);
    const expiresAt = cardExpiry(expMonth, expYear);
    if (expiresAt <= at) throw err.validation('expYear', 'the card has already expired');
    return { card: { brand: 'visa', last4, expMonth, expYear, funding: 'credit' }, expiresAt };
  }
  if (type === 'ewallet') {
    if (input.ewalletProvider == null) throw err.validation('ewalletProvider', 'ewalletProvider is required');
    const provider = oneOf(input.ewalletProvider, ewalletProviders, 'ewalletProvider', 'payment_method');
    return { ewallet: { provider, maskedAccount: `+62 812-****-${last4}` }, expiresAt: null };
  }
  if (type === 'direct_debit') {
    if (input.bank == null) throw err.validation('bank', 'bank is required');
    const bank = oneOf(input.bank, banks, 'bank', 'payment_method');
    return { directDebit: { bank, maskedAccount: `****${last4}` }, expiresAt: null };
  }
  return { paypal: { maskedEmail: `s***@example.com` }, expiresAt: null };
}

/**
 * POST /v1/payment-methods (test mode only): a sandbox method from a scenario, `active` at once (the
 * setup step is skipped; `setup_declined` answers 422 gateway_error). Its token is sealed to its row.
 */
export async function createPaymentMethod(ctx: Context, input: CreatePaymentMethodInput): Promise<PaymentMethodRow> {
  const auth = authorize(ctx, 'svc:payment_method:write');
  if (auth.mode === 'live')
    throw liveOnlyRefusal('Payment methods come from a provider-side tokenization in live mode; direct creation is');
  if (typeof input.customerId !== 'string') throw err.validation('customerId', 'customerId is required');
  const type = oneOf(input.type ?? 'card', paymentMethodTypes, 'type', 'payment_method');
  const scenario = oneOf(input.scenario ?? 'success', scenarioNames, 'scenario', 'payment_method');
  const metadata = input.metadata == null ? null : validateMetadata(input.metadata, 'metadata', 'payment_method');
  refuseCardNumbers(metadata, 'metadata', 'payment_method');
  if (input.setDefault != null && typeof input.setDefault !== 'boolean')
    throw err.validation('setDefault', 'setDefault must be a boolean');
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    const customer = await lockCustomer(tx, scope, input.customerId as string);
    if (!customer) throw err.notFound('customer');
    const at = await clockTimeFor(tx, { ...scoped(scope), testClockId: customer.testClockId });
    const display = sandboxDisplay(input, type, scenario, at);
    if (scenarios[scenario].setupFails)
      throw err.of('gateway_error', 'The card was declined while saving it (card_declined)', 'scenario');
    const row = await insertMethod(tx, scope, customer, {
      type,
      adapter: SANDBOX_ADAPTER,
      display,
      consent: { source: 'test', sourceId: null },
      metadata,
      token: sandboxToken(scenario),
      at,
    });
    return attach(tx, scope, customer, row, input.setDefault === true, eventOptions(ctx, auth.accountId, at));
  });
}

/** A sandbox token of `scenario`: it carries the scenario's last four digits (sandbox.ts reads them back). */
export const sandboxToken = (scenario: Scenario) =>
  `${SANDBOX_TOKEN_PREFIX}${scenarios[scenario].last4}_${randomBytes(16).toString('hex')}`;

/** A method about to be saved: display fields only, and the provider token (sealed here, then dropped). */
export interface NewMethod {
  type: PaymentMethodType;
  adapter: string;
  display: {
    card?: unknown;
    ewallet?: unknown;
    directDebit?: unknown;
    paypal?: unknown;
    expiresAt?: Date | null;
  };
  /** `{source, sourceId}`; `at` is the save's time. */
  consent: { source: string; sourceId: string | null };
  metadata: Record<string, string> | null;
  token: string;
  at: Date;
}

/**
 * Inserts an `active` method of a customer (locked by the caller) with its token sealed to the row;
 * `attach` then makes it the default where it should be and emits `payment_method.attached`.
 */
export async function insertMethod(tx: Tx, scope: RowScope, customer: Customer, m: NewMethod): Promise<PaymentMethod> {
  const id = newId('paymentMethod');
  const d = m.display;
  return tx.paymentMethod.create({
    data: {
      id,
      ...scoped(scope),
      customerId: customer.id,
      type: m.type,
      status: nextState(paymentMethodMachine, null, 'attach').to,
      adapter: m.adapter,
      card: (d.card ?? Prisma.DbNull) as Prisma.InputJsonValue,
      ewallet: (d.ewallet ?? Prisma.DbNull) as Prisma.InputJsonValue,
      directDebit: (d.directDebit ?? Prisma.DbNull) as Prisma.InputJsonValue,
      paypal: (d.paypal ?? Prisma.DbNull) as Prisma.InputJsonValue,
      expiresAt: d.expiresAt ?? null,
      consent: { ...m.consent, at: m.at.toISOString() },
      metadata: m.metadata ?? Prisma.DbNull,
      providerToken: seal('payment_methods', { id, ...scoped(scope) }, Buffer.from(m.token)),
      providerTokenHash: providerTokenHash(m.adapter, m.token),
      testClockId: customer.testClockId,
      createdAt: m.at,
      updatedAt: m.at,
    },
  });
}

const eventOptions = (ctx: Context, accountId: string, at: Date): EventOptions => ({
  accountId,
  requestId: ctx.requestId,
  source: ctx.source ?? 'api',
  at,
});

/**
 * The attach of a new active method in the caller's transaction (which holds the customer's lock):
 * the customer's first active method, or one saved with `setDefault`, becomes its default.
 * `payment_method.attached` carries the method as it is after that.
 */
export async function attach(
  tx: Tx,
  scope: RowScope,
  customer: Customer,
  row: PaymentMethod,
  setDefault: boolean,
  o: EventOptions,
): Promise<PaymentMethodRow> {
  let method = row;
  if (setDefault || customer.defaultPaymentMethodId === null) {
    await setCustomerDefault(tx, scope, customer, row.id, { ...o, quiet: [row.id] });
    method = { ...row, isDefault: true, updatedAt: o.at };
  }
  for (const type of nextState(paymentMethodMachine, null, 'attach').events)
    await emit(tx, scope, type, methodSnapshot(method, o.accountId), {
      requestId: o.requestId,
      source: o.source,
      occurredAt: o.at,
    });
  return withAccount(method, o.accountId);
}

export async function getPaymentMethod(ctx: Context, id: string): Promise<PaymentMethodRow> {
  const auth = authorize(ctx, 'svc:payment_method:read');
  const row = await inTenant(tenant(auth), (tx) => scopedRow<PaymentMethod>(tx, 'payment_methods', auth, id));
  if (!row) throw err.notFound('payment_method');
  return withAccount(row, auth.accountId);
}

export async function listPaymentMethods(ctx: Context, args: ListPaymentMethodsArgs) {
  const auth = authorize(ctx, 'svc:payment_method:read');
  paymentMethodList.check(args);
  const filters = paymentMethodList.values(args);
  const page = await keysetList(
    {
      args,
      workspaceId: auth.workspaceId,
      filters,
      limit: paymentMethodList.limit,
      column: paymentMethodList.position,
    },
    (ks) =>
      inTenant(tenant(auth), (tx) =>
        tx.paymentMethod.findMany({
          where: { ...scoped(auth), AND: [...paymentMethodList.prisma(args), ks.where] },
          orderBy: ks.orderBy,
          take: ks.take,
        }),
      ),
  );
  return { ...page, edges: page.edges.map((e) => ({ ...e, node: withAccount(e.node, auth.accountId) })) };
}

/** The method, its customer and the live subscriptions naming it, locked in that order (customer, subscriptions, method). */
async function lockForMove(tx: AnyTx, scope: RowScope, id: string) {
  const peek = await scopedRow<PaymentMethod>(tx, 'payment_methods', scope, id);
  if (!peek) throw err.notFound('payment_method');
  const customer = await lockCustomer(tx, scope, peek.customerId);
  const subIds = await sqlOf(tx).query<{ id: string }>(
    q`SELECT id FROM subscriptions WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
        AND "customerId" = ${peek.customerId} AND "paymentMethod" = ${id}`,
  );
  const reactions = await methodMoving.run(
    tx,
    scope,
    subIds.map((s) => s.id),
  );
  const method = (await scopedRow<PaymentMethod>(tx, 'payment_methods', scope, id, { lock: true }))!;
  return { customer, reactions, method };
}

/**
 * One move of a method (detach, and the provider-driven ones) in the caller's transaction. Leaving
 * `active` clears it as the customer's default and from every live subscription naming it
 * (`customer.updated`, `subscription.updated`), so no later attempt picks it.
 */
export async function moveMethod(
  tx: AnyTx,
  scope: RowScope,
  id: string,
  trigger: PaymentMethodTrigger,
  o: EventOptions,
): Promise<PaymentMethod> {
  const { customer, reactions, method } = await lockForMove(tx, scope, id);
  const next = nextState(paymentMethodMachine, method.status as PaymentMethodStatus, trigger);
  const leaving = method.status === chargeable && next.to !== chargeable;
  if (leaving) {
    await setCustomerDefault(
      tx,
      scope,
      customer,
      customer.defaultPaymentMethodId === id ? null : customer.defaultPaymentMethodId,
      {
        ...o,
        quiet: [id],
      },
    );
    for (const then of reactions) await then(o);
  }
  const row = await updateRow<PaymentMethod>(
    sqlOf(tx),
    'payment_methods',
    { id, workspaceId: scope.workspaceId, mode: scope.mode },
    {
      status: next.to,
      updatedAt: o.at,
      ...(next.to === paymentMethodDetached ? { detachedAt: o.at } : {}),
    },
  );
  const before = methodSnapshot(method, o.accountId);
  const after = methodSnapshot(row, o.accountId);
  for (const type of next.events)
    await emit(tx, scope, type, after, {
      requestId: o.requestId,
      source: o.source,
      occurredAt: o.at,
      previousAttributes: type === paymentMethodUpdated ? changedFrom(before, after) : undefined,
    });
  return row;
}

async function businessTimeOf(tx: Tx, scope: RowScope, id: string) {
  const row = await scopedRow<PaymentMethod>(tx, 'payment_methods', scope, id);
  if (!row) throw err.notFound('payment_method');
  return { row, at: await clockTimeFor(tx, { ...scope, testClockId: row.testClockId }) };
}

/**
 * POST /v1/payment-methods/:id/detach: never charged again. Detaching a detached method answers it
 * unchanged, with no event. A charge already started completes (its outcome is recorded).
 */
export async function detachPaymentMethod(ctx: Context, id: string): Promise<PaymentMethodRow> {
  const auth = authorize(ctx, 'svc:payment_method:write');
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    const { row, at } = await businessTimeOf(tx, scope, id);
    if (row.status === paymentMethodDetached) return withAccount(row, auth.accountId);
    return withAccount(
      await moveMethod(tx, scope, id, 'detach', eventOptions(ctx, auth.accountId, at)),
      auth.accountId,
    );
  });
}

/** PATCH /v1/payment-methods/:id: metadata only (replaced; null clears), while the method is active. */
export async function updatePaymentMethod(
  ctx: Context,
  id: string,
  input: UpdatePaymentMethodInput,
): Promise<PaymentMethodRow> {
  const auth = authorize(ctx, 'svc:payment_method:write');
  const metadata =
    input.metadata === undefined
      ? undefined
      : input.metadata === null
        ? null
        : validateMetadata(input.metadata, 'metadata', 'payment_method');
  if (metadata) refuseCardNumbers(metadata, 'metadata', 'payment_method');
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    const { at } = await businessTimeOf(tx, scope, id);
    const found = (await scopedRow<PaymentMethod>(tx, 'payment_methods', scope, id, { lock: true }))!;
    const next = editState(paymentMethodMachine, found.status as PaymentMethodStatus, 'update');
    if (metadata === undefined) return withAccount(found, auth.accountId);
    const row = await tx.paymentMethod.update({
      where: { workspaceId_mode_id: { ...scoped(scope), id } },
      data: { metadata: metadata ?? Prisma.DbNull, updatedAt: at },
    });
    const before = methodSnapshot(found, auth.accountId);
    const after = methodSnapshot(row, auth.accountId);
    const previousAttributes = changedFrom(before, after);
    if (Object.keys(previousAttributes).length)
      for (const type of next.events)
        await emit(tx, scope, type, after, {
          requestId: ctx.requestId,
          source: ctx.source,
          occurredAt: at,
          previousAttributes,
        });
    return withAccount(row, auth.accountId);
  });
}

/** POST /v1/payment-methods/:id/simulate (test mode): the provider-driven moves, as a provider's callback makes them. */
export async function simulatePaymentMethod(
  ctx: Context,
  id: string,
  input: SimulatePaymentMethodInput,
): Promise<PaymentMethodRow> {
  const auth = authorize(ctx, 'svc:payment_method:write');
  if (auth.mode === 'live') throw liveOnlyRefusal('Payment method events are simulated');
  const event = oneOf(
    input.event ?? '',
    Object.keys(simulatedEvents) as (keyof typeof simulatedEvents)[],
    'event',
    'payment_method',
  );
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    const { at } = await businessTimeOf(tx, scope, id);
    const row = await moveMethod(tx, scope, id, simulatedEvents[event], eventOptions(ctx, auth.accountId, at));
    return withAccount(row, auth.accountId);
  });
}

/**
 * PATCH /v1/customers/:id `defaultPaymentMethodId` (customers/service.ts, in its transaction): the
 * value must be an active method of this customer, or null. Flags the methods; the caller writes
 * the customer row and its one `customer.updated`.
 */
export async function checkDefaultMethod(
  tx: Tx,
  scope: RowScope,
  customerId: string,
  methodId: string | null,
  o: EventOptions,
) {
  if (methodId !== null) {
    const pm = await scopedRow<PaymentMethod>(tx, 'payment_methods', scope, methodId, { lock: true });
    if (!pm || pm.customerId !== customerId || pm.status !== chargeable)
      throw new DomainError(
        'validation_error',
        'defaultPaymentMethodId must be an active payment method of this customer',
        {
          field: 'defaultPaymentMethodId',
          resource: 'customer',
        },
      );
  }
  await flagDefault(tx, scope, customerId, methodId, o);
}

/** Currencies each adapter's saved methods are charged in (the test sandbox: IDR and USD). */
const tokenCurrencies: Record<string, readonly string[]> = {
  provider_a: ['IDR'],
  provider_b: ['IDR'],
  provider_c: ['USD'],
  provider_a_platform: ['IDR', 'USD'],
};

/** Whether a `paymentMethod` value names a saved method (a `pm_` id), not a fixed test token or null. */
export const isSavedMethodId = (value: unknown): value is string =>
  typeof value === 'string' && value.startsWith('pm_') && !value.startsWith('pm_test_');

/**
 * A subscription's `paymentMethod` that is a `pm_` (create and PATCH, in their transaction): an active
 * method of the same customer whose adapter charges the subscription's currency; else 400 on `paymentMethod`.
 */
export async function checkSavedMethod(
  tx: AnyTx,
  scope: RowScope,
  customerId: string,
  currency: string,
  id: string,
): Promise<void> {
  const pm = await scopedRow<PaymentMethod>(tx, 'payment_methods', scope, id);
  const fault = !pm
    ? 'names no payment method'
    : pm.customerId !== customerId
      ? "is not a payment method of the subscription's customer"
      : pm.status !== chargeable
        ? `is ${pm.status}, not active`
        : !(tokenCurrencies[pm.adapter] ?? []).includes(currency)
          ? `cannot be charged in ${currency}`
          : null;
  if (fault)
    throw new DomainError('validation_error', `paymentMethod ${id} ${fault}`, {
      field: 'paymentMethod',
      resource: 'subscription',
    });
}
