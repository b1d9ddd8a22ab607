import { builder } from '../../graphql/builder.ts';
import { exposeFields, statusesOf, type ListArgs } from '../../graphql/fields.ts';
import { checkoutSessionFields, type SessionRow } from './fields.ts';
import {
  cancelCheckoutSession,
  confirmCheckoutSession,
  createCheckoutSession,
  getCheckoutSession,
  listCheckoutSessions,
} from './service.ts';
import { admission } from '../../graphql/operation.ts';
import { checkoutSessionMachine } from './states.ts';

export const CheckoutSession = builder.objectRef<SessionRow>('CheckoutSession').implement({
  description: 'A hosted one-time payment: amount, currency and the methods the customer may use.',
  fields: (t) => exposeFields(t, checkoutSessionFields),
});

const LineItemInput = builder.inputType('LineItemInput', {
  fields: (t) => ({
    // Checked by the service, so a missing one is named precisely (lineItems[n].name).
    name: t.string(),
    quantity: t.int(),
    unitAmount: t.field({ type: 'Money' }),
    description: t.string(),
    metadata: t.field({ type: 'Metadata' }),
  }),
});

const CreateCheckoutSessionInput = builder.inputType('CreateCheckoutSessionInput', {
  fields: (t) => ({
    amount: t.field({ type: 'Money', required: true }),
    currency: t.string({ required: true }),
    methods: t.stringList({ required: true }),
    successUrl: t.string({ required: true }),
    cancelUrl: t.string({ required: true }),
    customerId: t.string(),
    lineItems: t.field({ type: [LineItemInput] }),
    expiresInSec: t.int(),
    metadata: t.field({ type: 'Metadata' }),
    templateId: t.string(),
    /** `none` (default), `optional` or `required` (docs/guides/checkout-sessions.md, Saving the payment method). */
    savePaymentMethod: t.string(),
  }),
});
export type LineItemInput = typeof LineItemInput.$inferInput;
export type CreateSessionInput = typeof CreateCheckoutSessionInput.$inferInput;

export const listArgs = builder.args((t) => ({
  status: t.string(statusesOf(checkoutSessionMachine)),
  customerId: t.string(),
  mode: t.string(),
  createdAfter: t.field({ type: 'DateTime' }),
  createdBefore: t.field({ type: 'DateTime' }),
  order: t.string(),
}));
export type ListSessionsArgs = ListArgs<typeof listArgs>;

builder.queryFields((t) => ({
  checkoutSession: t.field({
    ...admission({ resource: 'checkout_session', scope: 'svc:checkout:read' }),
    type: CheckoutSession,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getCheckoutSession(ctx, String(id)),
  }),
  checkoutSessions: t.connection({
    ...admission({ resource: 'checkout_session', scope: 'svc:checkout:read' }),
    type: CheckoutSession,
    args: listArgs,
    resolve: (_, args, ctx) => listCheckoutSessions(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createCheckoutSession: t.field({
    ...admission({ resource: 'checkout_session', scope: 'svc:checkout:write', idempotencyKey: 'required' }),
    type: CheckoutSession,
    args: { input: t.arg({ type: CreateCheckoutSessionInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => createCheckoutSession(ctx, input),
  }),
  cancelCheckoutSession: t.field({
    ...admission({ resource: 'checkout_session', scope: 'svc:checkout:write', idempotencyKey: 'required' }),
    type: CheckoutSession,
    args: { id: t.arg.id({ required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { id }, ctx) => cancelCheckoutSession(ctx, String(id)),
  }),
  confirmCheckoutSession: t.field({
    ...admission({ resource: 'checkout_session', scope: 'svc:checkout:write' }),
    type: CheckoutSession,
    args: { id: t.arg.id({ required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { id }, ctx) => confirmCheckoutSession(ctx, String(id)),
  }),
}));
