/**
 * `provider_events`: each verified provider callback recorded once, in the transaction that applies
 * it, keyed by the provider's event id and the state the provider confirmed, so two deliveries of
 * the same news (a retry, a duplicate sent at once) apply once: the second finds the row and changes
 * nothing.
 */
import { clock } from '../../core/clock.ts';
import type { Tx } from '../../core/db/client.ts';
import { newId } from '../../core/ids.ts';
import type { RowScope } from '../../core/resource.ts';

/** Records the callback; false when the same event in the same state was already recorded. */
export async function recordProviderEvent(
  tx: Tx,
  tenant: RowScope,
  e: { provider: string; providerEventId: string; status: string; type: string; objectId: string; payload: unknown },
): Promise<boolean> {
  const now = clock.now();
  const fresh = await tx.providerEvent.createMany({
    data: [
      {
        id: newId('providerEvent'),
        workspaceId: tenant.workspaceId,
        mode: tenant.mode,
        provider: e.provider,
        providerEventId: `${e.providerEventId}:${e.status}`,
        type: e.type,
        objectId: e.objectId,
        outcome: 'applied',
        payload: e.payload as object,
        receivedAt: now,
        processedAt: now,
      },
    ],
    skipDuplicates: true,
  });
  return fresh.count === 1;
}
