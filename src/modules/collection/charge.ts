/**
 * The provider step of an off-session charge (docs/billing.md, Collection): the only place a stored
 * method is charged, and what a charge is told and answers. Fixed test tokens and sandbox methods are
 * answered in process (payment-methods/sandbox.ts); a provider-held method is charged at its adapter
 * (offsession.ts) with no transaction open.
 */
import { clock } from '../../core/clock.ts';
import { sql as q, type Sql } from '../../core/db/sql.ts';
import type { Tx } from '../../core/db/client.ts';
import type { RowScope } from '../../core/resource.ts';
import type { Payment, PaymentMethod } from '../../generated/prisma/client.ts';
import type { Provider } from '../../providers/types.ts';
import type { InvoiceRow } from '../invoices/fields.ts';
import {
  answeredInProcess,
  sandboxAsyncOutcome,
  sandboxCharge,
  type SandboxAnswer,
} from '../payment-methods/sandbox.ts';
import { nextState } from '../../core/state-machine.ts';
import { paymentMachine, paymentPending, type paymentFailed, type paymentRequiresAction } from '../payments/states.ts';
import type { invoicePaid } from '../invoices/states.ts';
import { chargeAtProvider } from './offsession.ts';

/** The stored test methods (DECISIONS §3 Payment method: "always succeed and always fail"). */
export const testPaymentMethods = ['pm_test_success', 'pm_test_decline'] as const;
export type TestPaymentMethod = (typeof testPaymentMethods)[number];
/** The adapter a stored test-method charge settles through (ledger `settlement:<adapter>`). */
export const STORED_METHOD_ADAPTER = 'test_stored_method';

export type ChargeResult = SandboxAnswer;

/** A charge's payment before the provider answers. */
export const pendingStatus = nextState(paymentMachine, null, 'charge').to;

/** What a charge uses: the subscription's `paymentMethod` value and, for a saved method, its row. */
export interface Charger {
  value: string;
  saved: PaymentMethod | null;
}

/** How long a pending off-session charge is left to its provider before the pending sweep asks again. */
export const PAYMENT_LEASE_MS = 5 * 60_000;

/** Who is charged: the provider step needs the customer's contact fields. */
export interface Payer {
  id: string;
  name?: string | null;
  email?: string | null;
  phone?: string | null;
}

/**
 * The provider step: the only place a stored method is charged. Fixed tokens and sandbox methods are
 * answered in process; a provider-held method is charged at its adapter (no transaction may be open:
 * offsession.ts). `resume`: the charge may already have been sent (the pending sweep): a sandbox
 * `async` charge answers by its lease, a provider is asked for the status first.
 */
export async function chargeStoredMethod(
  method: string,
  payment: Pick<Payment, 'id' | 'amount' | 'leaseUntil'> & Partial<Payment>,
  saved: PaymentMethod | null = null,
  o: { scope?: RowScope; payer?: Payer | null; resume?: boolean; providers?: Map<string, Provider> } = {},
): Promise<ChargeResult> {
  const { amount, id: paymentId } = payment;
  if (saved) {
    if (answeredInProcess(saved)) {
      const answer = sandboxCharge(saved, amount, paymentId, { started: o.resume });
      // Asked again about a charge it answered `async`: settled once its delay (the lease) passed.
      return o.resume && answer.ok === null && answer.waiting === paymentPending
        ? sandboxAsyncOutcome(payment, clock.now())
        : answer;
    }
    if (o.scope && o.payer)
      return chargeAtProvider(o.scope, payment as Payment, saved, o.payer, {
        resume: o.resume,
        providers: o.providers,
      });
    return { ok: false, failureCode: 'payment_method_unusable', failureMessage: `Cannot charge ${saved.id} here` };
  }
  if (method === 'pm_test_success') return { ok: true, providerReference: `ch_test_${paymentId}` };
  if (method === 'pm_test_decline')
    return { ok: false, failureCode: 'card_declined', failureMessage: 'Your card was declined.' };
  return {
    ok: false,
    failureCode: 'unsupported_payment_method',
    failureMessage: `Cannot charge ${method} (${amount})`,
  };
}

export type CollectOutcome =
  | { outcome: typeof invoicePaid; invoice: InvoiceRow; paymentId: string }
  /** Waiting: the customer must authenticate (`requires_action`) or the provider answers later (`pending`). */
  | { outcome: typeof paymentRequiresAction | typeof paymentPending; invoice: InvoiceRow; paymentId: string }
  | {
      outcome: typeof paymentFailed;
      invoice: InvoiceRow;
      paymentId: string;
      failureCode: string;
      failureMessage: string;
    }
  /** Nothing charged: not collectible, no stored method, live mode, or a charge already in flight. */
  | { outcome: 'skipped'; invoice: InvoiceRow | null; reason: string };

export interface CollectOptions {
  requestId?: string;
  source?: string;
  /** The Prisma transaction `sql` runs in, when it is one (needed to refund a provider's late money). */
  tx?: Tx;
}

export type Scope = RowScope & { accountId: string };

/**
 * Whether a stored method is charged in process: the test methods have no provider behind them
 * (`chargeStoredMethod` answers at once), so a batch may be charged and settled inside one
 * transaction (`chargeLocked`); any other method keeps "write pending, call, reconcile".
 */
export const chargesInProcess = (c: Charger) =>
  c.saved ? answeredInProcess(c.saved) : (testPaymentMethods as readonly string[]).includes(c.value);

/** The contact fields a provider is sent for customers, by id (one statement). */
export async function payersOf(sql: Sql, scope: RowScope, customerIds: string[]): Promise<Map<string, Payer>> {
  const rows = customerIds.length
    ? await sql.query<Payer>(
        q`SELECT id, name, email, phone FROM customers WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
          AND id = ANY (${[...new Set(customerIds)]}::text[])`,
      )
    : [];
  const known = new Map(rows.map((r) => [r.id, r]));
  return new Map(customerIds.map((id) => [id, known.get(id) ?? { id }]));
}

/** A pending charge's lease from `now` (real time): the pending sweep asks again once it passed. */
export const leaseFrom = (now: Date, ms = PAYMENT_LEASE_MS) => new Date(now.getTime() + ms);
