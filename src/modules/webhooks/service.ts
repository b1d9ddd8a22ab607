import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant, type Tx } from '../../core/db/client.ts';
import { errorsFor } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { clock } from '../../core/clock.ts';
import { audit } from '../../core/audit.ts';
import { seal } from '../../core/sealed.ts';
import { capOf } from '../../core/tiers.ts';
import { eventTypes } from '../../core/event-types.ts';
import { keysetList, listPageSize } from '../../core/pagination.ts';
import { findScoped, scoped } from '../../core/resource.ts';
import { checkLength, oneOf } from '../../core/validation.ts';
import { newSigningSecret, signatureFormats, type SignatureFormat } from '../../client/webhook-signing.ts';
import type { Auth } from '../../core/auth/authenticate.ts';
import type { EndpointRow } from './fields.ts';
import { canMove, nextState } from '../../core/state-machine.ts';
import { endpointStatuses, webhookEndpointMachine as endpoints, type EndpointStatus } from './states.ts';
import { checkWebhookUrl } from './url-policy.ts';
import type {
  CreateWebhookEndpointInput,
  ListEndpointsArgs,
  RotateSecretInput,
  UpdateWebhookEndpointInput,
} from './schema.ts';

const err = errorsFor('webhook_endpoint');

/** spec: `*` or omitted means every event; otherwise every type must be in the catalog. */
function checkEvents(events: string[] | null | undefined): string[] {
  if (events == null) return ['*'];
  if (!Array.isArray(events) || !events.length)
    throw err.validation('events', 'events must be a non-empty list of event types, or ["*"]');
  const unknown = events.find((e) => e !== '*' && !(e in eventTypes));
  if (unknown !== undefined)
    throw err.validation('events', `${JSON.stringify(unknown)} is not an event type (docs/events.md)`);
  return events.includes('*') ? ['*'] : [...new Set(events)];
}

const checkDescription = (d: string | null | undefined) =>
  d == null ? null : checkLength(d, 'description', 0, 200, 'webhook_endpoint');
const checkFormat = (f: string | null | undefined): SignatureFormat =>
  f == null ? 'svc' : oneOf(f, signatureFormats, 'signatureFormat', 'webhook_endpoint');

/** The caller's endpoint, row-locked for a change when `lock`; 404 for anyone else's. */
export async function findEndpoint(tx: Tx, auth: Auth, id: string, lock = false): Promise<EndpointRow> {
  if (lock)
    await tx.$executeRaw`SELECT 1 FROM webhook_endpoints
      WHERE id = ${id} AND "workspaceId" = ${auth.workspaceId} AND mode = ${auth.mode} FOR NO KEY UPDATE`;
  return findScoped(tx.webhookEndpoint, auth, id, () => err.notFound('webhook_endpoint'));
}

/** spec POST /v1/webhook-endpoints (201): the only answer, with rotate, that carries `signingSecret`. */
export async function createWebhookEndpoint(ctx: Context, input: CreateWebhookEndpointInput): Promise<EndpointRow> {
  const auth = authorize(ctx, 'svc:webhook:write');
  const events = checkEvents(input.events);
  const description = checkDescription(input.description);
  const signatureFormat = checkFormat(input.signatureFormat);
  const url = await checkWebhookUrl(input.url, auth.mode);
  const secret = newSigningSecret();
  return inTenant(tenant(auth, ['test', 'live']), async (tx) => {
    // The workspace row lock serialises concurrent creates, so the tier cap holds (both modes count).
    await tx.$queryRaw`SELECT id FROM workspaces WHERE id = ${auth.workspaceId} FOR UPDATE`;
    const cap = capOf(auth.tier, 'maxWebhookEndpoints');
    if ((await tx.webhookEndpoint.count({ where: { workspaceId: auth.workspaceId } })) >= cap) {
      throw err.of('tier_cap_exceeded', `This workspace's plan allows ${cap} webhook endpoints`);
    }
    const now = clock.now();
    const id = newId('webhookEndpoint');
    const row = await tx.webhookEndpoint.create({
      data: {
        id,
        workspaceId: auth.workspaceId,
        mode: auth.mode,
        url,
        events,
        description,
        status: nextState(endpoints, null, input.enabled === false ? 'create_disabled' : 'create').to,
        signatureFormat,
        secret: seal('webhook_endpoints', { id, workspaceId: auth.workspaceId }, Buffer.from(secret)),
        createdAt: now,
        updatedAt: now,
      },
    });
    await audit(tx, auth, 'webhook_endpoint.created', row.id, ctx.requestId);
    return { ...row, signingSecret: secret };
  });
}

export async function getWebhookEndpoint(ctx: Context, id: string): Promise<EndpointRow> {
  const auth = authorize(ctx, 'svc:webhook:read');
  return inTenant(tenant(auth), (tx) => findEndpoint(tx, auth, id));
}

export async function listWebhookEndpoints(ctx: Context, args: ListEndpointsArgs) {
  const auth = authorize(ctx, 'svc:webhook:read');
  if (args.status != null) oneOf(args.status, endpointStatuses, 'status', 'webhook_endpoint');
  const filters = { status: args.status ?? null };
  return keysetList(
    {
      args: { ...args, order: 'desc' },
      workspaceId: auth.workspaceId,
      filters,
      limit: listPageSize.webhookEndpoints,
      column: 'createdAt',
    },
    (ks) =>
      inTenant(tenant(auth), (tx) =>
        tx.webhookEndpoint.findMany({
          where: { ...scoped(auth), ...(args.status ? { status: args.status } : {}), ...ks.where },
          orderBy: ks.orderBy,
          take: ks.take,
        }),
      ),
  );
}

/** spec PATCH: only the fields sent change; `events` replaces the list; `description: null` clears it. */
export async function updateWebhookEndpoint(
  ctx: Context,
  id: string,
  input: UpdateWebhookEndpointInput,
): Promise<EndpointRow> {
  const auth = authorize(ctx, 'svc:webhook:write');
  const has = (k: keyof UpdateWebhookEndpointInput) => input[k] !== undefined;
  if (has('events') && input.events === null) throw err.validation('events', 'events cannot be null');
  if (has('enabled') && input.enabled === null) throw err.validation('enabled', 'enabled must be a boolean');
  const data: Record<string, unknown> = {};
  if (has('url')) data.url = await checkWebhookUrl(input.url, auth.mode);
  if (has('events')) data.events = checkEvents(input.events);
  if (has('description')) data.description = checkDescription(input.description);
  if (has('signatureFormat')) data.signatureFormat = checkFormat(input.signatureFormat);
  return inTenant(tenant(auth), async (tx) => {
    const current = await findEndpoint(tx, auth, id, true);
    if (has('enabled')) {
      const trigger = input.enabled ? 'enable' : 'disable';
      // Outside the table the update is a no-op, not an error (`enabled: true` on an active endpoint).
      if (canMove(endpoints, current.status as EndpointStatus, trigger)) {
        const { to } = nextState(endpoints, current.status as EndpointStatus, trigger);
        Object.assign(data, { status: to }, trigger === 'enable' ? { consecutiveFailures: 0 } : {});
      }
    }
    const row = await tx.webhookEndpoint.update({ where: { id }, data: { ...data, updatedAt: clock.now() } });
    await audit(tx, auth, 'webhook_endpoint.updated', id, ctx.requestId);
    return row;
  });
}

/** spec DELETE (204): the endpoint and its delivery history go; queued attempts find nothing and end. */
export async function deleteWebhookEndpoint(ctx: Context, id: string): Promise<boolean> {
  const auth = authorize(ctx, 'svc:webhook:write');
  return inTenant(tenant(auth), async (tx) => {
    await findEndpoint(tx, auth, id, true);
    await tx.webhookEndpoint.delete({ where: { id } });
    await audit(tx, auth, 'webhook_endpoint.deleted', id, ctx.requestId);
    return true;
  });
}

export const MAX_OVERLAP_SECONDS = 259_200;

/**
 * spec rotate-secret: a new secret; the current one keeps signing beside it for `overlapSeconds`
 * (default 86400, max 259200; 0 drops it at once). A rotation during an overlap ends the earlier
 * overlap: only the secret being replaced is kept.
 */
export async function rotateWebhookEndpointSecret(
  ctx: Context,
  id: string,
  input: RotateSecretInput,
): Promise<EndpointRow> {
  const auth = authorize(ctx, 'svc:webhook:write');
  const overlap = input.overlapSeconds ?? 86_400;
  if (!Number.isInteger(overlap) || overlap < 0 || overlap > MAX_OVERLAP_SECONDS) {
    throw err.validation('overlapSeconds', `overlapSeconds must be an integer from 0 to ${MAX_OVERLAP_SECONDS}`);
  }
  const secret = newSigningSecret();
  return inTenant(tenant(auth), async (tx) => {
    const current = await findEndpoint(tx, auth, id, true);
    const now = clock.now();
    const row = await tx.webhookEndpoint.update({
      where: { id },
      data: {
        // the previous secret stays in its row, so its ciphertext (bound to the row) moves as it is
        secret: seal('webhook_endpoints', { id, workspaceId: auth.workspaceId }, Buffer.from(secret)),
        previousSecret: overlap ? current.secret : null,
        previousSecretExpiresAt: overlap ? new Date(now.getTime() + overlap * 1000) : null,
        updatedAt: now,
      },
    });
    await audit(tx, auth, 'webhook_endpoint.secret_rotated', id, ctx.requestId);
    return { ...row, signingSecret: secret };
  });
}
