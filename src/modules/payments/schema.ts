import { builder } from '../../graphql/builder.ts';
import { admission } from '../../graphql/operation.ts';
import { exposeFields, statusesOf, type ListArgs } from '../../graphql/fields.ts';
import { paymentFields } from './fields.ts';
import { getPayment, listPayments, simulatePayment } from './service.ts';
import { paymentMachine } from './states.ts';

export const Payment = builder.prismaObject('Payment', {
  description: 'A captured payment (DECISIONS §3): one per completed checkout session or paid invoice.',
  fields: (t) => exposeFields(t, paymentFields),
});

const SimulatePaymentInput = builder.inputType('SimulatePaymentInput', {
  fields: (t) => ({ outcome: t.string({ description: 'success or failure' }) }),
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

builder.mutationFields((t) => ({
  simulatePayment: t.field({
    ...admission({ resource: 'payment', scope: 'svc:payment_method:write' }),
    type: Payment,
    description:
      'Test mode only: settles a pending or requires_action off-session charge (success or failure), as the provider or the customer would.',
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: SimulatePaymentInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_, { id, input }, ctx) => simulatePayment(ctx, String(id), input.outcome ?? ''),
  }),
}));
