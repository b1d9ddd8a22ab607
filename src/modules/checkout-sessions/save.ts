/**
 * Saving the payment method at checkout, with the customer's consent (docs/guides/checkout-sessions.md,
 * Saving the payment method): the one home of which sessions may save, which methods can be saved,
 * and what an attempt asked for.
 */
import { sql as q, sqlOf, type AnyTx } from '../../core/db/sql.ts';
import { errorsFor } from '../../core/errors.ts';
import type { RowScope } from '../../core/resource.ts';
import { oneOf } from '../../core/validation.ts';
import type { CheckoutSession, PaymentMethod } from '../../generated/prisma/client.ts';
import type { SavedMethod, SavedMethodDisplay } from '../../providers/types.ts';
import type { PaymentMethod as CheckoutMethod } from '../adapters/capabilities.ts';
import {
  attach,
  cardExpiry,
  insertMethod,
  providerTokenHash,
  sandboxDisplay,
  sandboxToken,
} from '../payment-methods/service.ts';
import { lockCustomer } from '../customers/rows.ts';
import { scenarioNames, scenarios } from '../payment-methods/scenarios.ts';
import { chargeable } from '../payment-methods/states.ts';
import { lockSubscriptions, moveSubscription } from '../subscriptions/moves.ts';
import { subscriptionLive } from '../subscriptions/states.ts';
import { clockTimeFor } from '../../core/business-time.ts';

const err = errorsFor('checkout_session');

/** `none` (default), `optional` (an unticked consent box on the page), `required` (a notice; savable methods only). */
export const saveChoices = ['none', 'optional', 'required'] as const;
export type SaveChoice = (typeof saveChoices)[number];

/**
 * Checkout methods whose payment can leave a reusable token: cards, linkable e-wallets (the adapter
 * saves only a wallet it can link; any other is paid once), and provider_c (its cards; the PayPal
 * wallet is never saved during a purchase: a setup session saves it).
 */
export const savableMethods: readonly CheckoutMethod[] = ['card', 'ewallet', 'provider_c'];

export const isSavable = (method: string) => (savableMethods as readonly string[]).includes(method);

/**
 * Create's `savePaymentMethod` against the session's `customerId` and `methods`: not `none` needs a
 * customer (the method is the customer's); `required` needs at least one savable method.
 */
export function checkSaveChoice(
  value: string | null | undefined,
  customerId: string | null | undefined,
  methods: readonly string[],
): SaveChoice {
  const choice = oneOf(value ?? 'none', saveChoices, 'savePaymentMethod', 'checkout_session');
  if (choice !== 'none' && !customerId)
    throw err.validation('customerId', 'customerId is required when savePaymentMethod is optional or required');
  if (choice === 'required' && !methods.some(isSavable))
    throw err.validation(
      'methods',
      `savePaymentMethod required needs a method that can be saved: one of ${savableMethods.join(', ')}`,
    );
  return choice;
}

/** The methods the page offers: only savable ones when saving is required. */
export const offeredMethods = <M extends string>(choice: string, methods: readonly M[]): M[] =>
  choice === 'required' ? methods.filter(isSavable) : [...methods];

/**
 * What an attempt asked for: the consent box (`optional`), implied by `required`, never for `none`.
 * A ticked box on a method that cannot be saved, or on a session that does not save, is refused.
 */
export function attemptSaves(choice: string, method: string, box: unknown): boolean {
  if (box != null && typeof box !== 'boolean')
    throw err.validation('savePaymentMethod', 'savePaymentMethod must be a boolean');
  if (choice === 'required') return true;
  if (box !== true) return false;
  if (choice !== 'optional')
    throw err.validation('savePaymentMethod', 'this checkout session does not save payment methods');
  if (!isSavable(method))
    throw err.validation('savePaymentMethod', `a ${method} payment cannot be saved for future payments`);
  return true;
}

/** The paying attempt's consent, as completion reads it (the attempt row, or the sandbox's simulate call). */
export interface KeepInput {
  /** The token and display fields the provider's status answer carried (docs/providers.md, Saving at checkout). */
  saved: SavedMethod;
  /** The adapter holding the token (`provider_a_platform` for the sandbox). */
  adapter: string;
  /** The consent, when the caller knows it; else the paying attempt's `savePaymentMethod`. */
  consented?: boolean;
  attemptNumber: number;
  requestId?: string;
  source?: string;
  accountId: string;
}

/**
 * In `completeSession`'s transaction (a Prisma one), before its write: the token the payment left is
 * sealed into a new `pm_` of the session's customer (consent `checkout_session`) and attached
 * (`payment_method.attached`; the customer's default when it is the first). An invoice-backed
 * session's subscription without a method gets this one (`subscription.updated`). Null when the
 * session does not save or the customer did not consent: the token is then dropped, never stored.
 * Lock order: (invoice, session, held by the caller) customer, subscription.
 */
export async function keepPaymentMethod(
  tx: AnyTx,
  scope: RowScope,
  s: CheckoutSession,
  k: KeepInput,
): Promise<PaymentMethod | null> {
  if (s.savePaymentMethod === 'none' || !s.customerId) return null;
  if (!('$queryRawUnsafe' in tx)) throw new Error('saving a payment method needs a Prisma transaction');
  const consented =
    s.savePaymentMethod === 'required' ||
    (k.consented ??
      (
        await sqlOf(tx).query<{ savePaymentMethod: boolean }>(
          q`SELECT "savePaymentMethod" FROM checkout_attempts WHERE "workspaceId" = ${scope.workspaceId}
            AND mode = ${scope.mode} AND "checkoutSessionId" = ${s.id} AND number = ${k.attemptNumber}`,
        )
      )[0]?.savePaymentMethod === true);
  if (!consented) return null;
  const customer = await lockCustomer(tx, scope, s.customerId);
  const at = await clockTimeFor(tx, { ...scope, testClockId: customer.testClockId });
  const o = { accountId: k.accountId, requestId: k.requestId, source: k.source, at };
  // The same token saved again (a provider that answers the customer's existing token): that method.
  const [known] = await sqlOf(tx).query<PaymentMethod>(
    q`SELECT * FROM payment_methods WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
      AND adapter = ${k.adapter} AND "providerTokenHash" = ${providerTokenHash(k.adapter, k.saved.token)}`,
  );
  let method: PaymentMethod;
  if (known && known.customerId === customer.id && known.status === chargeable) method = known;
  else if (known)
    return null; // another customer's, or no longer active: never re-attached from here
  else {
    const d = k.saved.display;
    const row = await insertMethod(tx, scope, customer, {
      type: k.saved.type,
      adapter: k.adapter,
      display: {
        card: d.card ?? null,
        ewallet: d.ewallet ?? null,
        directDebit: d.directDebit ?? null,
        paypal: d.paypal ?? null,
        expiresAt: d.card ? cardExpiry(d.card.expMonth, d.card.expYear) : d.expiresAt ? new Date(d.expiresAt) : null,
      },
      consent: { source: 'checkout_session', sourceId: s.id },
      metadata: null,
      token: k.saved.token,
      at,
    });
    method = await attach(tx, scope, customer, row, false, o);
  }
  if (s.subscriptionId) {
    const [sub] = await lockSubscriptions(tx, scope, [s.subscriptionId]);
    if (sub && sub.paymentMethod === null && (subscriptionLive as readonly string[]).includes(sub.status))
      await moveSubscription(tx, scope, sub, null, { paymentMethod: method.id }, o);
  }
  return method;
}

/**
 * The sandbox's answer to a paid attempt that asked to save (`POST /c/<token>/simulate`): a sandbox
 * token of the §4.7 `scenario` (its last four digits; payment-methods/service.ts makes it), with the
 * display fields a test-created method of that scenario has. `setup_declined` leaves no token: the
 * payment completes without a method.
 */
export function sandboxSavedMethod(method: string, scenarioName: unknown, at: Date): SavedMethod | null {
  const scenario = oneOf(
    scenarioName == null ? 'success' : String(scenarioName),
    scenarioNames,
    'scenario',
    'checkout_session',
  );
  if (scenarios[scenario].setupFails) return null;
  const type = method === 'ewallet' ? 'ewallet' : 'card';
  const display = sandboxDisplay({ ewalletProvider: 'dana' }, type, scenario, at);
  return {
    token: sandboxToken(scenario),
    type,
    // Display fields only, as a test-created method of the scenario shows them.
    display: display as SavedMethodDisplay,
  };
}
