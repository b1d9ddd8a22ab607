/**
 * What modules above payment methods do when a method changes, in its transaction
 * (src/core/reactions.ts; docs/architecture.md, Layers). Registered by src/modules/<module>/reactions.ts.
 */
import type { AnyTx } from '../../core/db/sql.ts';
import { reaction } from '../../core/reactions.ts';
import type { RowScope } from '../../core/resource.ts';

/**
 * A method about to move: a reaction locks its rows naming the method (`subscriptionIds`, after the
 * customer and before the method: lock order) and returns what to do if the method leaves `active`.
 */
export const methodMoving = reaction<
  (
    tx: AnyTx,
    scope: RowScope,
    subscriptionIds: string[],
  ) => Promise<(o: { requestId?: string; source?: string; at: Date }) => Promise<void>>
>('payment method moving', ['subscriptions: clear the method']);
