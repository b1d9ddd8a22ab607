import { builder, type SchemaTypesOf } from '../../graphql/builder.ts';
import { admission } from '../../graphql/operation.ts';
import { exposeFields, type ListArgs } from '../../graphql/fields.ts';
import { customerFields } from './fields.ts';
import { createCustomer, getCustomer, listCustomers, updateCustomer } from './service.ts';

export const Customer = builder.prismaObject('Customer', {
  fields: (t) => exposeFields(t, customerFields),
});

const baseFields = (t: PothosSchemaTypes.InputFieldBuilder<SchemaTypesOf, 'InputObject'>) => ({
  name: t.string(),
  email: t.string(),
  phone: t.string(),
  externalId: t.string({
    description: '1-128 printable ASCII characters, unique per workspace and mode; null clears.',
  }),
  metadata: t.field({ type: 'Metadata' }),
});
const CreateCustomerInput = builder.inputType('CreateCustomerInput', {
  description: 'Every field is optional.',
  fields: (t) => ({
    ...baseFields(t),
    // Immutable, so on create only (docs/billing.md, Test clocks).
    testClockId: t.string({ description: 'Test mode only: the test clock the customer lives on.' }),
  }),
});
const UpdateCustomerInput = builder.inputType('UpdateCustomerInput', {
  description: 'Send only changes; null clears a field. metadata replaces the stored object (null clears it).',
  fields: (t) => ({
    ...baseFields(t),
    defaultPaymentMethodId: t.string({
      description: 'An active pm_ of this customer, charged when a subscription names none; null clears.',
    }),
  }),
});
export type CustomerInput = typeof CreateCustomerInput.$inferInput;
export type CustomerPatch = typeof UpdateCustomerInput.$inferInput;

const listArgs = builder.args((t) => ({
  email: t.string(),
  since: t.field({ type: 'DateTime', description: 'Created at or after.' }),
  until: t.field({ type: 'DateTime', description: 'Created before.' }),
  metadata: t.field({ type: 'Metadata', description: 'Exact match on every given key.' }),
  order: t.string(),
}));
export type ListCustomersArgs = ListArgs<typeof listArgs>;

builder.queryFields((t) => ({
  customer: t.field({
    ...admission({ resource: 'customer', scope: 'svc:customer:read' }),
    type: Customer,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getCustomer(ctx, String(id)),
  }),
  customers: t.connection({
    ...admission({ resource: 'customer', scope: 'svc:customer:read' }),
    type: Customer,
    args: listArgs,
    resolve: (_, args, ctx) => listCustomers(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createCustomer: t.field({
    ...admission({ resource: 'customer', scope: 'svc:customer:write' }),
    type: Customer,
    args: { input: t.arg({ type: CreateCustomerInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => createCustomer(ctx, input),
  }),
  updateCustomer: t.field({
    ...admission({ resource: 'customer', scope: 'svc:customer:write' }),
    type: Customer,
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateCustomerInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_, { id, input }, ctx) => updateCustomer(ctx, String(id), input),
  }),
}));
