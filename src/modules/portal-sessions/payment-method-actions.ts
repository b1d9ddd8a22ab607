// The customer's saved payment methods from the portal: a setup session to add one, make one the default,
// detach one; under the workspace's `updatePaymentMethod` toggle.
import { tenantQuery } from '../../core/db/client.ts';
import { sql as q } from '../../core/db/sql.ts';
import { DomainError, errorsFor } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import { subscriptionLive } from '../subscriptions/states.ts';
import { portalUrl, verifyPortalToken, type PortalGrant } from './token.ts';
import { updateCustomer } from '../customers/service.ts';
import { detachPaymentMethod } from '../payment-methods/service.ts';
import { chargeable } from '../payment-methods/states.ts';
import { createSetupSessionIn } from '../setup-sessions/service.ts';
import { setupHostedUrlOf } from '../setup-sessions/fields.ts';
import { actionsOf, forbidden } from './permissions.ts';
import {
  type SessionRow,
  type SubRow,
  checkSession,
  methodsSql,
  same,
  scopeOf,
  sessionSql,
  subscriptionsSql,
} from './reads.ts';
import { portalContext } from './caller.ts';
import { portalState } from './portal.ts';

const err = errorsFor('portal_session');

/** The method `id` is the token's customer's (and not detached), else 404 as an unknown one. */
export async function assertOwnMethod(g: PortalGrant, id: string) {
  const [row] = await tenantQuery<{ id: string }>(
    scopeOf(g),
    q`SELECT id FROM (${methodsSql(g)}) m WHERE m.id = ${id}`,
  );
  if (!row) throw err.notFound('payment method');
}

/** The workspace's toggle for the customer-level payment-method actions (docs/billing.md, Portal). */
async function paymentMethodGrant(sessionId: string, token: unknown, requestId: string) {
  const g = verifyPortalToken(sessionId, token);
  const [row] = await tenantQuery<SessionRow>(scopeOf(g), sessionSql(g));
  const ws = checkSession(row);
  if (!ws.portalSettings.updatePaymentMethod)
    throw new DomainError('insufficient_scope', 'This portal does not allow managing payment methods', {
      resource: 'portal_session',
    });
  return { g, ws, ctx: portalContext(g, ws, requestId) };
}

/**
 * `POST /portal/<ps_id>/api/payment-methods/setup` `{subscriptionId?}`: a setup session for the token's
 * customer whose success and cancel URLs are this portal page (`consent.source: portal`); answers `{url}`.
 * With a subscription, that subscription must allow updating its method (plan flag AND toggle).
 */
export async function portalSetup(sessionId: string, token: unknown, body: Record<string, unknown>, requestId: string) {
  const { g, ws } = await paymentMethodGrant(sessionId, token, requestId);
  for (const k of Object.keys(body))
    if (k !== 'subscriptionId') throw err.validation(k, `${k} is not a field of payment-methods/setup`);
  const subscriptionId = body.subscriptionId ?? null;
  if (subscriptionId !== null) {
    if (typeof subscriptionId !== 'string' || !isId('subscription', subscriptionId)) throw err.notFound('subscription');
    const [sub] = await tenantQuery<SubRow>(scopeOf(g), subscriptionsSql(g, subscriptionId));
    if (!sub) throw err.notFound('subscription');
    if (!actionsOf(sub, ws.portalSettings).updatePaymentMethod) throw forbidden('updating the payment method');
  }
  const here = portalUrl(g);
  const created = await createSetupSessionIn(
    { workspaceId: g.workspaceId, mode: g.mode },
    { customerId: g.customerId, subscriptionId, successUrl: here, cancelUrl: here },
    { consentSource: 'portal', trustedUrls: true },
  );
  return { id: created.id, url: setupHostedUrlOf(created) };
}

export const portalMethodActions = ['default', 'detach'] as const;

/**
 * `POST /portal/<ps_id>/api/payment-methods/<pm_id>/default|detach`: the customer's default (updateCustomer) or a
 * detach (detachPaymentMethod). Detach is 409 `conflict` when it is the customer's last active method and a live
 * subscription collects automatically from it (the API's detach has no such guard).
 */
export async function portalMethodAction(
  sessionId: string,
  token: unknown,
  methodId: string,
  action: string,
  requestId: string,
) {
  const { g, ctx } = await paymentMethodGrant(sessionId, token, requestId);
  if (!(portalMethodActions as readonly string[]).includes(action)) throw err.notFound('portal action');
  if (!isId('paymentMethod', methodId)) throw err.notFound('payment method');
  await assertOwnMethod(g, methodId);
  if (action === 'default') {
    await updateCustomer(ctx, g.customerId, { defaultPaymentMethodId: methodId });
  } else {
    const [guard] = await tenantQuery<{ mine: number; others: number; collecting: number }>(
      scopeOf(g),
      q`SELECT
          (SELECT count(*)::int FROM payment_methods pm WHERE ${same('pm', g)} AND pm.id = ${methodId}
            AND pm.status = ${chargeable}) AS mine,
          (SELECT count(*)::int FROM payment_methods pm WHERE ${same('pm', g)} AND pm."customerId" = ${g.customerId}
            AND pm.status = ${chargeable} AND pm.id <> ${methodId}) AS others,
          (SELECT count(*)::int FROM subscriptions s WHERE ${same('s', g)} AND s."customerId" = ${g.customerId}
            AND s.status = ANY (${[...subscriptionLive]}::text[])
            AND (s."paymentMethod" = ${methodId} OR s."paymentMethod" IS NULL)) AS collecting`,
    );
    if (guard.mine === 1 && guard.others === 0 && guard.collecting > 0)
      throw err.conflict(
        'This is your only payment method and a subscription is charged from it; add another one first',
      );
    await detachPaymentMethod(ctx, methodId);
  }
  return portalState(sessionId, token);
}
