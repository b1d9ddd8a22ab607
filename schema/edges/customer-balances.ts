// Customer balance edges (docs/architecture.md, "Edges").
import { manyBy } from '../../src/core/loaders.ts';
import { sql } from '../../src/core/db/sql.ts';
import { builder } from '../../src/graphql/builder.ts';
import { Customer } from '../../src/modules/customers/schema.ts';
import { CustomerBalance } from '../../src/modules/customer-balances/schema.ts';

/** Every customer's balances in one statement per document place (a customers page asks once, not per row). */
const balancesOf = manyBy<{ currency: string; amount: bigint }>(
  { table: 'customer_balances', scope: 'svc:customer_balance:read' },
  { column: 'customerId', orderBy: sql`t.currency` },
);

builder.objectFields(Customer, (t) => ({
  balance: t.field({
    type: CustomerBalance,
    resolve: async (r, _, ctx, info) => ({
      customerId: r.id,
      balances: (await balancesOf(ctx, r.id, info)).map((b) => ({ currency: b.currency, amount: b.amount })),
    }),
  }),
}));
