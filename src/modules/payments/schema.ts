import { builder } from '../../graphql/builder.ts';
import { admission } from '../../graphql/operation.ts';
import { exposeFields, statusesOf, type ListArgs } from '../../graphql/fields.ts';
import { paymentFields } from './fields.ts';
import { getPayment, listPayments } from './service.ts';
import { paymentMachine } from './states.ts';

export const Payment = builder.prismaObject('Payment', {
  description: 'A captured payment (DECISIONS §3): one per completed checkout session or paid invoice.',
  fields: (t) => exposeFields(t, paymentFields),
});

export const listArgs = builder.args((t) => ({
  status: t.string(statusesOf(paymentMachine)),
  customerId: t.string(),
  checkoutSessionId: t.string(),
  order: t.string(),
}));
export type ListPaymentsArgs = ListArgs<typeof listArgs>;

builder.queryFields((t) => ({
  payment: t.field({
    ...admission({ resource: 'payment', scope: 'svc:payment:read' }),
    type: Payment,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getPayment(ctx, String(id)),
  }),
  payments: t.connection({
    ...admission({ resource: 'payment', scope: 'svc:payment:read' }),
    type: Payment,
    args: listArgs,
    resolve: (_, args, ctx) => listPayments(ctx, args),
  }),
}));
