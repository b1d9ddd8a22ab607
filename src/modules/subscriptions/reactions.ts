// The subscriptions' reactions to the modules below them (src/core/reactions.ts), registered when this
// file loads: src/modules/reactions.ts imports it for every process.
import type { Subscription } from '../../generated/prisma/client.ts';
import { invoicesPaid } from '../invoices/hooks.ts';
import { methodMoving } from '../payment-methods/hooks.ts';
import { paymentSimulated } from '../payments/hooks.ts';
import { lockSubscriptions, moveSubscription, onSubscriptionInvoicesPaid } from './moves.ts';
import { subscriptionLive } from './states.ts';
import { simulateWaiting } from './waiting.ts';

// The one place a paid invoice activates its subscription (moves.ts), its rows locked first.
invoicesPaid.register('subscriptions: activate', async (tx, scope, ids) => {
  const subs = await lockSubscriptions(tx, scope, ids);
  return (o) => onSubscriptionInvoicesPaid(tx, scope, subs, o);
});

// A waiting off-session charge is the subscription's collection (waiting.ts).
paymentSimulated.register('subscriptions: settle waiting charge', simulateWaiting);

// A method leaving `active` is cleared from every live subscription naming it, so no later attempt picks it.
methodMoving.register('subscriptions: clear the method', async (tx, scope, ids) => {
  const subs = await lockSubscriptions(tx, scope, ids);
  return async (o) => {
    for (const sub of subs)
      if ((subscriptionLive as readonly string[]).includes(sub.status))
        await moveSubscription(tx, scope, sub, null, { paymentMethod: null } as Partial<Subscription>, o);
  };
});
