import { builder } from '../../graphql/builder.ts';
import { exposeFields, statusesOf, type ListArgs } from '../../graphql/fields.ts';
import { admission } from '../../graphql/operation.ts';
import { paymentMethodFields, type PaymentMethodRow } from './fields.ts';
import {
  createPaymentMethod,
  detachPaymentMethod,
  getPaymentMethod,
  listPaymentMethods,
  simulatePaymentMethod,
  updatePaymentMethod,
} from './service.ts';
import { paymentMethodMachine } from './states.ts';

export const PaymentMethod = builder.objectRef<PaymentMethodRow>('PaymentMethod').implement({
  description: "A customer's card, e-wallet, direct-debit or PayPal account saved at a provider: display fields only.",
  fields: (t) => exposeFields(t, paymentMethodFields),
});

const CreatePaymentMethodInput = builder.inputType('CreatePaymentMethodInput', {
  description: 'Test mode only: a sandbox method from a scenario (docs/guides/payment-methods.md).',
  fields: (t) => ({
    // Checked by the service, so a missing one is 400 validation_error naming the field.
    customerId: t.string(),
    type: t.string({ description: 'card (default), ewallet, direct_debit, paypal' }),
    scenario: t.string({ description: 'success (default), setup_declined, charge_declined, ...' }),
    ewalletProvider: t.string(),
    bank: t.string(),
    expMonth: t.int(),
    expYear: t.int(),
    setDefault: t.boolean(),
    metadata: t.field({ type: 'Metadata' }),
  }),
});
export type CreatePaymentMethodInput = typeof CreatePaymentMethodInput.$inferInput;

const UpdatePaymentMethodInput = builder.inputType('UpdatePaymentMethodInput', {
  description: 'metadata replaces the stored object (null clears it).',
  fields: (t) => ({ metadata: t.field({ type: 'Metadata' }) }),
});
export type UpdatePaymentMethodInput = typeof UpdatePaymentMethodInput.$inferInput;

const SimulatePaymentMethodInput = builder.inputType('SimulatePaymentMethodInput', {
  fields: (t) => ({ event: t.string({ description: 'expire, revoke, require_action, reactivate' }) }),
});
export type SimulatePaymentMethodInput = typeof SimulatePaymentMethodInput.$inferInput;

export const listArgs = builder.args((t) => ({
  customerId: t.string(),
  type: t.string(),
  status: t.string(statusesOf(paymentMethodMachine)),
  order: t.string(),
}));
export type ListPaymentMethodsArgs = ListArgs<typeof listArgs>;

const read = admission({ resource: 'payment_method', scope: 'svc:payment_method:read' });
const write = admission({ resource: 'payment_method', scope: 'svc:payment_method:write' });

builder.queryFields((t) => ({
  paymentMethod: t.field({
    ...read,
    type: PaymentMethod,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getPaymentMethod(ctx, String(id)),
  }),
  paymentMethods: t.connection({
    ...read,
    type: PaymentMethod,
    args: listArgs,
    resolve: (_, args, ctx) => listPaymentMethods(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createPaymentMethod: t.field({
    ...write,
    type: PaymentMethod,
    args: { input: t.arg({ type: CreatePaymentMethodInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => createPaymentMethod(ctx, input),
  }),
  updatePaymentMethod: t.field({
    ...write,
    type: PaymentMethod,
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: UpdatePaymentMethodInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_, { id, input }, ctx) => updatePaymentMethod(ctx, String(id), input),
  }),
  detachPaymentMethod: t.field({
    ...admission({ resource: 'payment_method', scope: 'svc:payment_method:write', idempotencyKey: 'required' }),
    type: PaymentMethod,
    args: { id: t.arg.id({ required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { id }, ctx) => detachPaymentMethod(ctx, String(id)),
  }),
  simulatePaymentMethodEvent: t.field({
    ...write,
    type: PaymentMethod,
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: SimulatePaymentMethodInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_, { id, input }, ctx) => simulatePaymentMethod(ctx, String(id), input),
  }),
}));
