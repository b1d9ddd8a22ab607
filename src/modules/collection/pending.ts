/**
 * The pending step of an off-session charge (docs/billing.md, Collection): under the invoice's lock,
 * check it is collectible, find what pays it, and write its `pending` payment and counted attempt
 * before the provider is called, so no provider call runs inside a transaction.
 */
import { clock } from '../../core/clock.ts';
import { clockTimeFor } from '../../core/business-time.ts';
import { sql as q, type Sql } from '../../core/db/sql.ts';
import type { Payment, PaymentMethod } from '../../generated/prisma/client.ts';
import type { Provider } from '../../providers/types.ts';
import type { InvoiceRow } from '../invoices/fields.ts';
import { invoicePayments, lockInvoice } from '../invoices/issue.ts';
import { invoiceIssuedUnpaid } from '../invoices/states.ts';
import { chargesInFlight } from '../payments/in-flight.ts';
import { writePayments } from '../payments/write.ts';
import { savedMethods } from '../payment-methods/sandbox.ts';
import { isSavedMethodId } from '../payment-methods/service.ts';
import { methodsThatPay } from '../payment-methods/resolve.ts';
import {
  leaseFrom,
  payersOf,
  STORED_METHOD_ADAPTER,
  type Charger,
  type CollectOutcome,
  type Payer,
  type Scope,
} from './charge.ts';
import { lockBilled, type Billed } from './hooks.ts';

/** The chargers of subscriptions' `paymentMethod` values (saved methods read in one statement). */
export async function chargersOf(sql: Sql, scope: Scope, subs: (Billed | undefined)[]) {
  const paying = await methodsThatPay(
    sql,
    scope,
    subs.filter((s) => s !== undefined),
  );
  return chargerFrom(paying, await savedMethods(sql, scope, [...paying.values()]));
}

/** A subscription's charger from the methods that pay (payment-methods/resolve.ts) and the saved rows among them. */
export const chargerFrom =
  (paying: Map<string, string | null>, saved: Map<string, PaymentMethod>) =>
  (sub: Billed | undefined): Charger | null => {
    const value = sub ? (paying.get(sub.id) ?? null) : null;
    if (value === null) return null;
    if (!isSavedMethodId(value)) return { value, saved: null };
    const row = saved.get(value);
    return row ? { value, saved: row } : null;
  };

/** Why an invoice is not charged (before its subscription is read), or null. */
export function notCollectible(scope: Scope, inv: InvoiceRow | null): string | null {
  if (!inv || !(invoiceIssuedUnpaid as readonly string[]).includes(inv.status)) return 'not_collectible';
  if (!inv.subscriptionId) return 'not_a_subscription_invoice';
  return null;
}

/** The `pending` payment of a charge of `inv` from `c`, before the provider is asked. */
export const pendingPayment = (scope: Scope, inv: InvoiceRow, subscriptionId: string, c: Charger, at: Date): Payment =>
  invoicePayments(
    scope,
    [
      {
        inv,
        trigger: 'charge',
        method: c.saved ? c.saved.type : c.value,
        adapter: c.saved ? c.saved.adapter : STORED_METHOD_ADAPTER,
        paymentMethodId: c.value,
        metadata: { subscriptionId },
      },
    ],
    at,
  )[0];

/**
 * The pending payments written and their attempts counted (two-phase: before the provider is called),
 * with `nextAttemptAt` moved to `attemptLease` when given (a batch's claim: attempted again only after
 * it, by then a crashed worker's charge). The partial unique index `payments_in_flight_key` makes a
 * second charge in flight for an invoice impossible whatever the reads saw: such a payment is not
 * written. Returns the ids of those written.
 */
export async function insertPending(sql: Sql, scope: Scope, payments: Payment[], at: Date, attemptLease?: Date) {
  if (!payments.length) return new Set<string>();
  const written = await writePayments<{ id: string; invoiceId: string }>(sql, payments, {
    skipInFlight: true,
    returning: q`id, "invoiceId"`,
  });
  if (written.length)
    await sql.query(
      q`UPDATE invoices SET "collectionAttempts" = "collectionAttempts" + 1, "updatedAt" = ${at}::timestamptz
        ${attemptLease ? q`, "nextAttemptAt" = ${attemptLease}::timestamptz` : q.empty}
        WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
        AND id = ANY (${written.map((w) => w.invoiceId)}::text[])`,
    );
  return new Set(written.map((w) => w.id));
}

/** The invoices (of those given) with a charge in flight: a `pending` or `requires_action` payment. */
export const inFlight = async (sql: Sql, scope: Scope, invoiceIds: string[]) =>
  new Set((await chargesInFlight(sql, scope, invoiceIds)).map((r) => r.invoiceId));

export async function writePending(
  sql: Sql,
  scope: Scope,
  invoiceId: string,
  given: Date | undefined,
): Promise<CollectOutcome | PendingWrite> {
  const inv = await lockInvoice(sql, scope, invoiceId);
  const skip = (reason: string): CollectOutcome => ({ outcome: 'skipped', invoice: inv, reason });
  const refused = notCollectible(scope, inv);
  if (refused || !inv) return skip(refused ?? 'not_collectible');
  // The charge happens at the invoice's business time now (its clock's, or the real one), unless a
  // clock's walk names the instant it is processing.
  const at = given ?? (await clockTimeFor(sql, { ...scope, testClockId: inv.testClockId }));
  const [sub] = await lockBilled(sql, scope, [inv.subscriptionId!]);
  const charger = sub ? (await chargersOf(sql, scope, [sub]))(sub) : null;
  if (!sub || !charger) return skip('no_payment_method');
  if ((await inFlight(sql, scope, [inv.id])).size) return skip('charge_in_flight');
  const payment = { ...pendingPayment(scope, inv, sub.id, charger, at), leaseUntil: leaseFrom(clock.now()) };
  if (!(await insertPending(sql, scope, [payment], at)).size) return skip('charge_in_flight');
  const payer = (await payersOf(sql, scope, [inv.customerId])).get(inv.customerId)!;
  return { outcome: 'write', payment, charger, payer, at };
}

/** A charge's payment written `pending` and committed, with what the provider step needs. */
export interface PendingWrite {
  outcome: 'write';
  payment: Payment;
  charger: Charger;
  payer: Payer;
  at: Date;
}

/** A provider-held method's charge a batch wrote `pending`, sent after the batch's commit (dunning.ts `sendPendingCharges`). */
export interface PendingCharge {
  payment: Payment;
  charger: Charger;
  /** Null: a resumed charge of no customer (a provider-held method then cannot be charged). */
  payer: Payer | null;
  /** The business time of the batch that wrote it: its reconcile and dunning step run at it. */
  at: Date;
  /** A charge a crashed worker left pending: it may have been sent, so the provider is asked again. */
  resume?: boolean;
  /** The provider clients of the batch's adapters, read in its transaction (offsession.ts `providersIn`). */
  providers: Map<string, Provider>;
}

/** The method value a stale charge used: its saved method's id, else its stored test method. */
export const staleMethod = (p: Payment) => p.paymentMethodId ?? p.method!;
