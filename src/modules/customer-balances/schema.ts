import { builder } from '../../graphql/builder.ts';
import { exposeFields, type ListArgs } from '../../graphql/fields.ts';
import { admission } from '../../graphql/operation.ts';
import type { CustomerBalanceTransaction as TxnRow } from '../../generated/prisma/client.ts';
import { balanceTransactionFields } from './fields.ts';
import {
  createBalanceTransaction,
  getBalanceTransaction,
  getCustomerBalance,
  listBalanceTransactions,
  type CustomerBalanceView,
} from './service.ts';

export const CustomerBalanceTransaction = builder.objectRef<TxnRow>('CustomerBalanceTransaction').implement({
  description: "An immutable change of a customer's balance in one currency (+ credit, - use).",
  fields: (t) => exposeFields(t, balanceTransactionFields),
});

const CurrencyBalance = builder.objectRef<{ currency: string; amount: bigint }>('CurrencyBalance').implement({
  fields: (t) => ({
    currency: t.exposeString('currency'),
    amount: t.field({ type: 'Money', resolve: (r) => r.amount }),
  }),
});

export const CustomerBalance = builder.objectRef<CustomerBalanceView>('CustomerBalance').implement({
  description: 'The credit a customer holds, per currency (positive = credit the customer holds).',
  fields: (t) => ({
    customerId: t.exposeString('customerId'),
    balances: t.field({ type: [CurrencyBalance], resolve: (r) => r.balances }),
  }),
});

const CreateBalanceTransactionInput = builder.inputType('CreateCustomerBalanceTransactionInput', {
  fields: (t) => ({
    amount: t.field({ type: 'Money' }),
    currency: t.string(),
    description: t.string(),
    metadata: t.field({ type: 'Metadata' }),
  }),
});
export type CreateBalanceTransactionInput = typeof CreateBalanceTransactionInput.$inferInput;

export const listArgs = builder.args((t) => ({
  customerId: t.string(),
  currency: t.string(),
  type: t.string(),
}));
export type ListBalanceTransactionsArgs = ListArgs<typeof listArgs>;

builder.queryFields((t) => ({
  customerBalance: t.field({
    ...admission({ resource: 'customer_balance', scope: 'svc:customer_balance:read' }),
    type: CustomerBalance,
    args: { customerId: t.arg.string({ required: true }) },
    resolve: (_, { customerId }, ctx) => getCustomerBalance(ctx, customerId),
  }),
  customerBalanceTransactions: t.connection({
    ...admission({ resource: 'customer_balance', scope: 'svc:customer_balance:read' }),
    type: CustomerBalanceTransaction,
    args: listArgs,
    resolve: (_, args, ctx) => listBalanceTransactions(ctx, args),
  }),
  customerBalanceTransaction: t.field({
    ...admission({ resource: 'customer_balance', scope: 'svc:customer_balance:read' }),
    type: CustomerBalanceTransaction,
    args: { id: t.arg.id({ required: true }), customerId: t.arg.string() },
    resolve: (_, { id, customerId }, ctx) => getBalanceTransaction(ctx, String(id), customerId),
  }),
}));

builder.mutationFields((t) => ({
  createCustomerBalanceTransaction: t.field({
    ...admission({ resource: 'customer_balance', scope: 'svc:customer_balance:write', idempotencyKey: 'required' }),
    type: CustomerBalanceTransaction,
    args: {
      customerId: t.arg.string({ required: true }),
      input: t.arg({ type: CreateBalanceTransactionInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_, { customerId, input }, ctx) => createBalanceTransaction(ctx, customerId, input),
  }),
}));
