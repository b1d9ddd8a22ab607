// The subscriptions' reactions to the modules below them (src/core/reactions.ts), registered when this
// file loads: src/modules/reactions.ts imports it for every process.
import type { Subscription } from '../../generated/prisma/client.ts';
import { canMove } from '../../core/state-machine.ts';
import { chargeFailed, dunningExhausted, failedChargeDunned, invoicesCharging } from '../collection/hooks.ts';
import { invoicesPaid } from '../invoices/hooks.ts';
import { methodMoving } from '../payment-methods/hooks.ts';
import { lockSubscription, lockSubscriptions, moveSubscription, onSubscriptionInvoicesPaid } from './moves.ts';
import { subscriptionIncomplete, subscriptionLive, subscriptionMachine, type SubscriptionStatus } from './states.ts';
import { scopedRow, sqlOf } from '../../core/db/sql.ts';

// The one place a paid invoice activates its subscription (moves.ts), its rows locked first.
invoicesPaid.register('subscriptions: activate', async (tx, scope, ids) => {
  const subs = await lockSubscriptions(tx, scope, ids);
  return (o) => onSubscriptionInvoicesPaid(tx, scope, subs, o);
});

// A method leaving `active` is cleared from every live subscription naming it, so no later attempt picks it.
methodMoving.register('subscriptions: clear the method', async (tx, scope, ids) => {
  const subs = await lockSubscriptions(tx, scope, ids);
  return async (o) => {
    for (const sub of subs)
      if ((subscriptionLive as readonly string[]).includes(sub.status))
        await moveSubscription(tx, scope, sub, null, { paymentMethod: null } as Partial<Subscription>, o);
  };
});

// What an invoice's charge reads (its method, else the customer's default), locked after the invoices.
invoicesCharging.register('subscriptions: lock what the invoices bill', lockSubscriptions);

// A failed charge of a renewal's invoice moves its subscription past_due; an incomplete subscription's
// first invoice stays open (docs/billing.md, First charge).
chargeFailed.register('subscriptions: past due', async (tx, scope, id) => {
  const sub = await lockSubscription(tx, scope, id);
  const pastDue = !!sub && canMove(subscriptionMachine, sub.status as SubscriptionStatus, 'payment_failed');
  return {
    pastDue,
    after: async (o) => {
      if (sub && pastDue) await moveSubscription(tx, scope, sub, 'payment_failed', {}, o);
    },
  };
});

// A failed waiting charge is dunned unless it was an incomplete subscription's first invoice.
failedChargeDunned.register('subscriptions: dunned unless incomplete', async (tx, scope, id) => {
  const sub = await scopedRow<Subscription>(sqlOf(tx), 'subscriptions', scope, id);
  return !!sub && sub.status !== subscriptionIncomplete;
});

// The dunning policy's final action ends the subscription the invoice bills (never the customer's others).
dunningExhausted.register('subscriptions: cancel', async (tx, scope, id, o) => {
  const sub = await lockSubscription(tx, scope, id);
  if (sub && canMove(subscriptionMachine, sub.status as SubscriptionStatus, 'dunning_exhausted'))
    await moveSubscription(tx, scope, sub, 'dunning_exhausted', { canceledAt: o.at }, o);
});
