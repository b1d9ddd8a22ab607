// Customer balance edges (docs/architecture.md, "Edges").
import { builder } from '../../graphql/builder.ts';
import { Customer } from '../customers/schema.ts';
import { CustomerBalance } from './schema.ts';
import { getCustomerBalance } from './service.ts';

builder.objectFields(Customer, (t) => ({
  // One read per customer selected: a customer page asks for balances rarely (list it per customer).
  balance: t.field({ type: CustomerBalance, resolve: (r, _, ctx) => getCustomerBalance(ctx, r.id) }),
}));
