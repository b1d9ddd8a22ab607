/**
 * A customer's default payment method (docs/guides/payment-methods.md, Which method pays): the one
 * home of `customers.defaultPaymentMethodId` and its mirror `payment_methods.isDefault`, both written
 * in the caller's transaction. The customer row is locked first (lock order: customer, subscriptions,
 * payment methods).
 */
import { sql as q, sqlOf, updateRow, type AnyTx } from '../../core/db/sql.ts';
import { emit } from '../../core/outbox.ts';
import type { RowScope } from '../../core/resource.ts';
import { changedFrom, toWire } from '../../core/wire.ts';
import type { Customer, PaymentMethod } from '../../generated/prisma/client.ts';
import { customerFields } from '../customers/fields.ts';
import { lockCustomer } from '../customers/rows.ts';
import { paymentMethodFields } from './fields.ts';
import { editState } from '../../core/state-machine.ts';
import { paymentMethodMachine, type PaymentMethodStatus } from './states.ts';

export interface EventOptions {
  accountId: string;
  requestId?: string;
  source?: string;
  at: Date;
}

export const methodSnapshot = (row: PaymentMethod, accountId: string) =>
  toWire({ ...row, accountId }, paymentMethodFields);

/**
 * Flags `methodId` (null: none) as the customer's default and unflags the previous one, emitting
 * `payment_method.updated` for a method whose `isDefault` changed and that the caller does not
 * announce itself (`quiet`). Returns nothing about the customer row: the caller writes it. The one
 * writer of `isDefault`: the partial unique index (one flagged method per customer) is checked row
 * by row and cannot be deferred, so the old default is unflagged before the new one is flagged, and
 * under the customer's lock (taken again here, at no cost when the caller holds it) so two moves
 * of one customer's default run one after the other.
 */
export async function flagDefault(
  tx: AnyTx,
  scope: RowScope,
  customerId: string,
  methodId: string | null,
  o: EventOptions & { quiet?: readonly string[] },
) {
  await lockCustomer(tx, scope, customerId);
  const db = sqlOf(tx);
  const ofCustomer = q`"workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode} AND "customerId" = ${customerId}`;
  const changed = await db.query<PaymentMethod>(
    q`UPDATE payment_methods SET "isDefault" = false, "updatedAt" = ${o.at}::timestamptz
      WHERE ${ofCustomer} AND "isDefault" AND id IS DISTINCT FROM ${methodId}::text RETURNING *`,
  );
  if (methodId !== null)
    changed.push(
      ...(await db.query<PaymentMethod>(
        q`UPDATE payment_methods SET "isDefault" = true, "updatedAt" = ${o.at}::timestamptz
          WHERE ${ofCustomer} AND id = ${methodId} AND NOT "isDefault" RETURNING *`,
      )),
    );
  for (const row of changed) {
    if (o.quiet?.includes(row.id)) continue;
    const after = methodSnapshot(row, o.accountId);
    // Only an active method is flagged or unflagged here (one leaving active is the caller's, quiet).
    for (const type of editState(paymentMethodMachine, row.status as PaymentMethodStatus, 'update').events)
      await emit(tx, scope, type, after, {
        requestId: o.requestId,
        source: o.source,
        occurredAt: o.at,
        previousAttributes: { isDefault: !row.isDefault },
      });
  }
}

/** Sets the customer's default (the locked `customer` row) and announces `customer.updated` when it changed. */
export async function setCustomerDefault(
  tx: AnyTx,
  scope: RowScope,
  customer: Customer,
  methodId: string | null,
  o: EventOptions & { quiet?: readonly string[] },
): Promise<Customer> {
  await flagDefault(tx, scope, customer.id, methodId, o);
  if (customer.defaultPaymentMethodId === methodId) return customer;
  const row = await updateRow<Customer>(
    sqlOf(tx),
    'customers',
    { id: customer.id, workspaceId: scope.workspaceId, mode: scope.mode },
    { defaultPaymentMethodId: methodId, updatedAt: o.at },
  );
  const after = toWire(row, customerFields);
  await emit(tx, scope, 'customer.updated', after, {
    requestId: o.requestId,
    source: o.source,
    occurredAt: o.at,
    previousAttributes: changedFrom(toWire(customer, customerFields), after),
  });
  return row;
}
