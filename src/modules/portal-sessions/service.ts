/**
 * spec Portal sessions: `POST /v1/portal-sessions` writes the session row (customer, returnUrl,
 * `expiresAt` = createdAt + 15 minutes) and answers its URL; no event (spec Events: none for
 * portal-session creation), no retrieve. The page and its calls are in portal.ts
 * (the page and its state), subscription-actions.ts and payment-method-actions.ts.
 */
import { clock } from '../../core/clock.ts';
import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { tenantTx, sql as q, insertRows } from '../../core/db/sql.ts';
import { errorsFor } from '../../core/errors.ts';
import { isId, newId } from '../../core/ids.ts';
import { checkRedirectUrl } from '../../core/validation.ts';
import type { PortalSession } from '../../generated/prisma/client.ts';
import type { PortalSessionRow } from './fields.ts';
import type { CreatePortalSessionInput } from './schema.ts';

const err = errorsFor('portal_session');
/** spec Portal session: "valid for 15 minutes from creation". */
export const PORTAL_SESSION_TTL_MS = 15 * 60 * 1000;

export async function createPortalSession(ctx: Context, input: CreatePortalSessionInput): Promise<PortalSessionRow> {
  const auth = authorize(ctx, 'svc:portal:create');
  if (typeof input.customerId !== 'string' || !input.customerId)
    throw err.validation('customerId', 'customerId is required: a cus_ customer id');
  if (typeof input.returnUrl !== 'string') throw err.validation('returnUrl', 'returnUrl is required');
  const returnUrl = checkRedirectUrl(input.returnUrl, 'returnUrl', 'portal_session');
  // A malformed id cannot name a customer: the same 404 as another workspace's.
  if (!isId('customer', input.customerId)) throw err.notFound('customer');
  const now = clock.now();
  return tenantTx(tenant(auth), async (sql) => {
    const [found] = await sql.query<{ accountId: string; customer: boolean }>(
      q`SELECT w."accountId", EXISTS (SELECT 1 FROM customers c WHERE c."workspaceId" = ${auth.workspaceId}
          AND c.mode = ${auth.mode} AND c.id = ${input.customerId}) AS customer
        FROM workspaces w WHERE w.id = ${auth.workspaceId}`,
    );
    if (!found?.customer) throw err.notFound('customer');
    const row: PortalSession = {
      id: newId('portalSession'),
      workspaceId: auth.workspaceId,
      mode: auth.mode,
      customerId: input.customerId as string,
      returnUrl,
      expiresAt: new Date(now.getTime() + PORTAL_SESSION_TTL_MS),
      createdAt: now,
    };
    await sql.query(q`${insertRows('portal_sessions', [row])}`);
    return { ...row, accountId: found.accountId };
  });
}
