/**
 * Collection: charge a subscription's open invoice from its stored payment method (docs/billing.md, Collection),
 * "write pending, call, reconcile" so no provider call runs inside a database transaction:
 *   1. pending: lock the invoice, check it is collectible, write a `pending` payment, count the attempt;
 *   2. call: the charge (test mode: `pm_test_success` succeeds, `pm_test_decline` fails; a fake
 *      provider step with the shape of a real one);
 *   3. reconcile: success -> payment succeeded + `settleInvoice` (receipt, ledger, paid event, and the
 *      subscription's incomplete/past_due -> active there); failure -> payment failed,
 *      `svc.invoice.payment_failed.v1` with `{failureCode, failureMessage}` in data.metadata (settled
 *      point 4), invoice past_due, subscription past_due.
 * Saved sandbox methods (`pm_` of the managed adapter in test mode) are answered in process like the
 * fixed tokens (payment-methods/sandbox.ts); provider-held methods (live, or a merchant adapter in test
 * mode) are charged at their adapter after the commit (offsession.ts). An answer may also be
 * `requires_action` (the customer must authenticate: the invoice stays open, its due date moves to the
 * action's expiry, no retry runs, `svc.invoice.payment_action_required.v1`) or `pending` (settled by
 * the sandbox's delay, a callback or the pending sweep: waiting.ts). Time is the caller's business
 * time `at` (test clocks: time is per customer).
/**
 * Charges the open (or past_due) invoice `invoiceId` of a subscription from its stored method: a step
 * of its own after the caller's commit, at `o.at` (a clock's walk) or the invoice's business time.
 */
import { clock } from '../../core/clock.ts';
import { inTenant } from '../../core/db/client.ts';
import { prismaSql, scopeOf, tenantTx, type Sql } from '../../core/db/sql.ts';
import type { Payment } from '../../generated/prisma/client.ts';
import type { InvoiceRow } from '../invoices/fields.ts';
import { methodsThatPay } from '../payment-methods/resolve.ts';
import { savedMethods } from '../payment-methods/sandbox.ts';
import { staleCharges } from '../payments/in-flight.ts';
import {
  chargesInProcess,
  chargeStoredMethod,
  leaseFrom,
  payersOf,
  type ChargeResult,
  type Charger,
  type CollectOptions,
  type CollectOutcome,
  type Scope,
} from './charge.ts';
import type { Billed } from './hooks.ts';
import {
  chargerFrom,
  inFlight,
  insertPending,
  notCollectible,
  pendingPayment,
  staleMethod,
  writePending,
  type PendingCharge,
  type PendingWrite,
} from './pending.ts';
import { providerOperations, runProviderOperation } from '../../providers/operation.ts';
import { reconcile, reconcileCharges } from './reconcile.ts';
import { providersIn } from './offsession.ts';

export function collectInvoice(scope: Scope, invoiceId: string, o: CollectOptions & { at?: Date } = {}) {
  return runProviderOperation<PendingWrite, ChargeResult, CollectOutcome>({
    name: providerOperations.offSessionCharge,
    pending: async () => {
      const pending = await tenantTx(scopeOf(scope), (sql) => writePending(sql, scope, invoiceId, o.at));
      return pending.outcome === 'write' ? { pending } : { done: pending };
    },
    call: (p) => chargeStoredMethod(p.charger.value, p.payment, p.charger.saved, { scope, payer: p.payer }),
    // chargeAtProvider turns a provider's refusal into an answer (offsession.ts): what reaches here is not one.
    refused: (_p, e) => Promise.reject(e),
    answer: (p, result) => reconcileInTx(scope, p.payment.id, result, p.at, o),
  });
}

/**
 * `reconcile` in its own tenant transaction, a Prisma one: a provider's money for an invoice no
 * longer payable reserves its refund there (`refundLateCharge`).
 */
export const reconcileInTx = (scope: Scope, paymentId: string, result: ChargeResult, at: Date, o: CollectOptions) =>
  inTenant({ workspaceId: scope.workspaceId, modes: [scope.mode] }, (tx) =>
    reconcile(prismaSql(tx), scope, paymentId, result, at, { ...o, tx }),
  );

/**
 * Charges locked invoices from their subscriptions' methods in the caller's transaction (a renewal
 * batch, a batch of due attempts), with the same checks as `writePending`:
 * - a method charged in process: charged, then `reconcileCharges` writes the payments with their
 *   outcomes, so a crash rolls the whole batch back and nothing is left pending;
 * - a provider-held method: its payment written `pending` (`remote`), the attempt counted and
 *   `nextAttemptAt` moved to `attemptLease`; the caller sends them after its commit
 *   (dunning.ts `sendPendingCharges`), so no provider is called inside the transaction;
 * - a charge already in flight: left untouched (`twoPhase`); when `staleBefore` is given (a batch of
 *   due attempts) and a crashed worker left it pending since then, it is sent again with the batch's
 *   (`remote`, resumed: payments/in-flight.ts `staleCharges`).
 * The saved methods and the adapters' provider clients of all those charges are read once, here.
 * `subs`: the invoices' subscriptions, locked by the caller; `fresh`: the invoices were created in
 * this transaction (no charge can be in flight). Returns each charged or skipped invoice's outcome.
 */
export async function chargeLocked(
  sql: Sql,
  scope: Scope,
  invoices: InvoiceRow[],
  subs: Map<string, Billed>,
  at: Date,
  o: CollectOptions & { fresh?: boolean; attemptLease: Date; staleBefore?: Date },
): Promise<{ outcomes: CollectOutcome[]; twoPhase: string[]; remote: PendingCharge[] }> {
  const outcomes: CollectOutcome[] = [];
  const twoPhase: string[] = [];
  const charge: { inv: InvoiceRow; payment: Payment; charger: Charger }[] = [];
  const remote: { inv: InvoiceRow; payment: Payment; charger: Charger }[] = [];
  const flying =
    invoices.length && !o.fresh
      ? await inFlight(
          sql,
          scope,
          invoices.map((i) => i.id),
        )
      : new Set<string>();
  const stale = o.staleBefore ? await staleCharges(sql, scope, [...flying], o.staleBefore) : [];
  // The methods that pay the subscriptions and the saved rows among them (and the stale charges'),
  // read before anything is written.
  const billed = invoices.flatMap((i) =>
    i.subscriptionId && subs.has(i.subscriptionId) ? [subs.get(i.subscriptionId)!] : [],
  );
  const paying = await methodsThatPay(sql, scope, billed);
  const saved = await savedMethods(sql, scope, [...paying.values(), ...stale.map(staleMethod)]);
  const chargerOf = chargerFrom(paying, saved);
  const lease = leaseFrom(clock.now());
  for (const inv of invoices) {
    const sub = inv.subscriptionId ? subs.get(inv.subscriptionId) : undefined;
    const charger = chargerOf(sub);
    const refused = notCollectible(scope, inv) ?? (charger ? null : 'no_payment_method');
    if (refused || !charger)
      outcomes.push({ outcome: 'skipped', invoice: inv, reason: refused ?? 'no_payment_method' });
    else if (flying.has(inv.id)) twoPhase.push(inv.id);
    else if (!chargesInProcess(charger))
      remote.push({
        inv,
        charger,
        payment: { ...pendingPayment(scope, inv, sub!.id, charger, at), leaseUntil: lease },
      });
    else charge.push({ inv, charger, payment: pendingPayment(scope, inv, sub!.id, charger, at) });
  }
  const written = await insertPending(
    sql,
    scope,
    remote.map((r) => r.payment),
    at,
    o.attemptLease,
  );
  // Not written: a charge of the invoice got in flight meanwhile (the partial unique index).
  twoPhase.push(...remote.filter((r) => !written.has(r.payment.id)).map((r) => r.inv.id));
  const sent = remote.filter((r) => written.has(r.payment.id));
  const payers = await payersOf(
    sql,
    scope,
    sent.map((r) => r.inv.customerId),
  );
  const chargers = [
    ...sent.map(({ inv, payment, charger }) => ({ payment, charger, payer: payers.get(inv.customerId)! })),
    ...stale.map(({ payer, ...payment }) => ({
      payment,
      charger: { value: staleMethod(payment), saved: saved.get(staleMethod(payment)) ?? null },
      payer,
      resume: true,
    })),
  ];
  const providers = await providersIn(
    sql,
    scope,
    chargers.map((c) => c.charger.saved?.adapter ?? ''),
  );
  const pending = chargers.map((c): PendingCharge => ({ ...c, at, providers }));
  if (!charge.length) return { outcomes, twoPhase, remote: pending };
  const items = await Promise.all(
    charge.map(async ({ inv, payment, charger }) => ({
      // This attempt counted (written by the move that settles or fails the invoice).
      inv: { ...inv, collectionAttempts: inv.collectionAttempts + 1, updatedAt: at },
      payment,
      result: await chargeStoredMethod(charger.value, payment, charger.saved),
    })),
  );
  outcomes.push(...(await reconcileCharges(sql, scope, items, at, o, false)));
  return { outcomes, twoPhase, remote: pending };
}
