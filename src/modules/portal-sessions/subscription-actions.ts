// The customer's actions on a subscription from the portal: cancel, keep, pause, resume, payment method,
// plan change; each checked against `portalActions` and done by the API's service function.
import { tenantTx } from '../../core/db/sql.ts';
import { errorsFor } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import { testPaymentMethods } from '../collection/charge.ts';
import { refusePastDueChange } from '../subscriptions/past-due.ts';
import {
  cancelSubscription,
  pauseSubscription,
  resumeSubscription,
  updateSubscription,
} from '../subscriptions/service.ts';
import { verifyPortalToken } from './token.ts';
import { actionsOf, forbidden, optionsFor } from './permissions.ts';
import {
  type OptionRow,
  type SessionRow,
  type SubRow,
  checkSession,
  optionsSql,
  scopeOf,
  sessionSql,
  subscriptionsSql,
} from './reads.ts';
import { portalContext } from './caller.ts';
import { assertOwnMethod } from './payment-method-actions.ts';
import { portalState } from './portal.ts';

const err = errorsFor('portal_session');

export const portalActionNames = ['cancel', 'keep', 'pause', 'resume', 'payment-method', 'change'] as const;
export type PortalActionName = (typeof portalActionNames)[number];

/** The one body field each action takes (any other field is a 400). */
const bodyFields: Partial<Record<PortalActionName, readonly string[]>> = {
  'payment-method': ['paymentMethod', 'paymentMethodId'],
  change: ['priceId'],
};

/**
 * `POST /portal/<ps_id>/api/subscriptions/<sub_id>/<action>`: checks that the subscription is the
 * customer's and that the action is allowed now, then calls the API's service function; answers the
 * page's new state.
 */
export async function portalAction(
  sessionId: string,
  token: unknown,
  subscriptionId: string,
  action: string,
  body: Record<string, unknown>,
  requestId: string,
) {
  const g = verifyPortalToken(sessionId, token);
  if (!(portalActionNames as readonly string[]).includes(action)) throw err.notFound('portal action');
  const name = action as PortalActionName;
  for (const k of Object.keys(body))
    if (!bodyFields[name]?.includes(k)) throw err.validation(k, `${k} is not a field of ${action}`);
  // Another customer's subscription, or another tenant's, reads as unknown.
  if (!isId('subscription', subscriptionId)) throw err.notFound('subscription');
  const { ws, sub, target } = await tenantTx(scopeOf(g), async (sql) => {
    const ws = checkSession((await sql.query<SessionRow>(sessionSql(g)))[0]);
    const [sub] = await sql.query<SubRow>(subscriptionsSql(g, subscriptionId));
    if (!sub) throw err.notFound('subscription');
    const target =
      name === 'change' ? (await sql.query<OptionRow>(optionsSql(g))).find((p) => p.id === body.priceId) : undefined;
    return { ws, sub, target };
  });
  const actions = actionsOf(sub, ws.portalSettings);
  const ctx = portalContext(g, ws, requestId);
  switch (name) {
    case 'cancel':
      if (!actions.cancel) throw forbidden('canceling');
      await cancelSubscription(ctx, sub.id, { atPeriodEnd: true });
      break;
    case 'keep':
      if (!actions.keep) throw forbidden('keeping a canceled subscription');
      await updateSubscription(ctx, sub.id, { cancelAtPeriodEnd: false });
      break;
    case 'pause':
      if (!actions.pause) throw forbidden('pausing');
      await pauseSubscription(ctx, sub.id);
      break;
    case 'resume':
      if (!actions.resume) throw forbidden('resuming');
      await resumeSubscription(ctx, sub.id);
      break;
    case 'payment-method': {
      if (!actions.updatePaymentMethod) throw forbidden('updating the payment method');
      // A saved method of this customer (`paymentMethodId`), or in test mode a fixed test token (`paymentMethod`).
      const pm = body.paymentMethodId ?? body.paymentMethod;
      const saved = typeof pm === 'string' && isId('paymentMethod', pm);
      if (saved) await assertOwnMethod(g, pm);
      else if (g.mode !== 'test' || typeof pm !== 'string' || !(testPaymentMethods as readonly string[]).includes(pm))
        throw err.validation(
          'paymentMethodId',
          g.mode === 'test'
            ? `paymentMethodId must be a saved method of yours or one of ${testPaymentMethods.join(', ')}`
            : 'paymentMethodId must be a saved payment method of yours',
        );
      await updateSubscription(ctx, sub.id, { paymentMethod: pm as string });
      break;
    }
    case 'change': {
      if (typeof body.priceId !== 'string') throw err.validation('priceId', 'priceId is required');
      refusePastDueChange(sub, { priceId: body.priceId });
      const option = target && optionsFor(sub, actions, [target])[0];
      if (!option) {
        if (!target) throw err.notFound('price');
        throw forbidden('this plan change');
      }
      await updateSubscription(ctx, sub.id, { priceId: option.priceId });
      break;
    }
  }
  return portalState(sessionId, token);
}
