/**
 * Which method pays (docs/guides/payment-methods.md, Which method pays): at each attempt, the
 * subscription's `paymentMethod`, else its customer's default (always an active method: a method
 * leaving `active` is cleared as default in the same transaction). One statement for a batch, none
 * when every subscription names its method.
 */
import { sql as q, sqlOf, type AnyTx } from '../../core/db/sql.ts';
import type { RowScope } from '../../core/resource.ts';
import type { Subscription } from '../../generated/prisma/client.ts';

export async function methodsThatPay(
  tx: AnyTx,
  scope: RowScope,
  subs: readonly Pick<Subscription, 'id' | 'customerId' | 'paymentMethod'>[],
): Promise<Map<string, string | null>> {
  const need = [...new Set(subs.filter((s) => s.paymentMethod === null).map((s) => s.customerId))];
  const defaults = need.length
    ? await sqlOf(tx).query<{ id: string; defaultPaymentMethodId: string }>(
        q`SELECT id, "defaultPaymentMethodId" FROM customers WHERE "workspaceId" = ${scope.workspaceId}
            AND mode = ${scope.mode} AND id = ANY (${need}::text[]) AND "defaultPaymentMethodId" IS NOT NULL`,
      )
    : [];
  const byCustomer = new Map(defaults.map((r) => [r.id, r.defaultPaymentMethodId]));
  return new Map(subs.map((s) => [s.id, s.paymentMethod ?? byCustomer.get(s.customerId) ?? null]));
}
