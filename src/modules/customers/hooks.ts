/**
 * What modules above customers do when a customer changes, in its transaction (src/core/reactions.ts;
 * docs/architecture.md, Layers). Registered by src/modules/<module>/reactions.ts.
 */
import type { Tx } from '../../core/db/client.ts';
import { reaction } from '../../core/reactions.ts';
import type { RowScope } from '../../core/resource.ts';

/**
 * A new `defaultPaymentMethodId` (null: none) on the locked customer row: checked (an active method of
 * this customer, else the customer's 422) and flagged, before the customer row is written.
 */
export const defaultMethodSet = reaction<
  (
    tx: Tx,
    scope: RowScope,
    customerId: string,
    methodId: string | null,
    o: { accountId: string; requestId?: string; source?: string; at: Date },
  ) => Promise<void>
>('customer default method set', ['payment-methods: check and flag the default']);
