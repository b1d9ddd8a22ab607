// The caller the portal's actions run as (a Context for the API's service functions).
import type { Auth } from '../../core/auth/authenticate.ts';
import type { Context } from '../../core/context.ts';
import type { PortalGrant } from './token.ts';
import type { WorkspaceRow } from './reads.ts';

/**
 * The caller the portal's actions run as: the session's customer acting in its workspace and mode,
 * with exactly the scopes the portal needs (no API key, no member). Services authorize it like a key.
 */
export function portalContext(g: PortalGrant, ws: WorkspaceRow, requestId: string): Context {
  const auth: Auth = {
    apiKeyId: g.sessionId,
    keyId: g.sessionId,
    mode: g.mode,
    role: 'restricted',
    scopes: [
      'svc:subscription:read',
      'svc:subscription:write',
      'svc:invoice:read',
      'svc:customer:write',
      'svc:payment_method:read',
      'svc:payment_method:write',
    ],
    memberId: null,
    memberRole: null,
    keyWorkspaceId: g.workspaceId,
    isPlatformAdmin: false,
    workspaceId: g.workspaceId,
    accountId: ws.accountId,
    tier: ws.tier,
    onBehalfOf: false,
  };
  return { requestId, auth, source: 'portal' };
}
