import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant } from '../../core/db/client.ts';
import { errorsFor } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { clock } from '../../core/clock.ts';
import { audit } from '../../core/audit.ts';
import { keysetList } from '../../core/pagination.ts';
import { scoped } from '../../core/resource.ts';
import type { WebhookDelivery } from '../../generated/prisma/client.ts';
import { findEndpoint } from './service.ts';
import { nextState } from '../../core/state-machine.ts';
import { endpointActive, webhookDeliveryMachine } from './states.ts';
import type { ListDeliveriesArgs } from './schema.ts';
import { deliveryList, shownSince } from './list.ts';

const err = errorsFor('webhook_endpoint');

/** spec GET /v1/webhook-endpoints/:id/deliveries: newest first. */
export async function listWebhookDeliveries(ctx: Context, endpointId: string, args: ListDeliveriesArgs) {
  const auth = authorize(ctx, 'svc:webhook:read');
  const all = { ...args, endpointId };
  deliveryList.check(all);
  return keysetList(
    {
      args: deliveryList.paged(all),
      workspaceId: auth.workspaceId,
      filters: deliveryList.values(all),
      limit: deliveryList.limit,
      column: deliveryList.position,
    },
    (ks) =>
      inTenant(tenant(auth), async (tx) => {
        await findEndpoint(tx, auth, endpointId);
        return tx.webhookDelivery.findMany({
          where: {
            ...scoped(auth),
            AND: [...deliveryList.prisma(all), { createdAt: { gte: shownSince(args) } }, ks.where],
          },
          orderBy: ks.orderBy,
          take: ks.take,
        });
      }),
  );
}

/**
 * spec POST .../deliveries/:deliveryId/retry (202): a new pending row (retryCount + 1) with one
 * attempt of its own, beside the automatic schedule, which goes on unchanged. The row waits for
 * the relay to enqueue it (`enqueuedAt` NULL), woken by the notification this transaction sends at
 * commit, so the retry is queued exactly when it commits.
 */
export async function retryWebhookDelivery(
  ctx: Context,
  endpointId: string,
  deliveryId: string,
): Promise<WebhookDelivery> {
  const auth = authorize(ctx, 'svc:webhook:write');
  return inTenant(tenant(auth), async (tx) => {
    const endpoint = await findEndpoint(tx, auth, endpointId);
    const source = await tx.webhookDelivery.findFirst({
      where: { id: deliveryId, endpointId, createdAt: { gte: shownSince({}) } },
    });
    if (!source) throw err.notFound('webhook_delivery');
    if (endpoint.status !== endpointActive)
      throw err.of('endpoint_disabled', `The endpoint is ${endpoint.status}; enable it before retrying`);
    const delivered = await tx.webhookDelivery.findFirst({
      where: { endpointId, eventId: source.eventId, status: webhookDeliveryMachine.moves.succeeded.to },
      select: { id: true },
    });
    if (delivered)
      throw err.of(
        'already_succeeded',
        `Event ${source.eventId} was already delivered to this endpoint (${delivered.id})`,
      );
    const row = await tx.webhookDelivery.create({
      data: {
        id: newId('webhookDelivery'),
        workspaceId: auth.workspaceId,
        mode: auth.mode,
        endpointId,
        eventId: source.eventId,
        eventType: source.eventType,
        status: nextState(webhookDeliveryMachine, null, 'create').to,
        retryCount: source.retryCount + 1,
        manual: true,
        createdAt: clock.now(),
      },
    });
    await tx.$executeRaw`SELECT pg_notify('svc_events', '')`;
    await audit(tx, auth, 'webhook_delivery.retried', row.id, ctx.requestId);
    return row;
  });
}
