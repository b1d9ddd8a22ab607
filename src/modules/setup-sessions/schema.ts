import { builder } from '../../graphql/builder.ts';
import { exposeFields, statusesOf, type ListArgs } from '../../graphql/fields.ts';
import { admission } from '../../graphql/operation.ts';
import { setupSessionFields, type SetupSessionRow } from './fields.ts';
import { cancelSetupSession, createSetupSession, getSetupSession, listSetupSessions } from './service.ts';
import { setupSessionMachine } from './states.ts';

export const SetupSession = builder.objectRef<SetupSessionRow>('SetupSession').implement({
  description: "Saving a customer's payment method without a charge, on a hosted page (docs/guides/setup-sessions.md).",
  fields: (t) => exposeFields(t, setupSessionFields),
});

const CreateSetupSessionInput = builder.inputType('CreateSetupSessionInput', {
  fields: (t) => ({
    // Checked by the service, so a missing one is 400 VALIDATION_ERROR naming the field.
    customerId: t.string(),
    types: t.stringList({ description: 'card, ewallet, direct_debit, paypal (default: every type an adapter saves)' }),
    currency: t.string({ description: "the currency future charges use (default: the workspace's)" }),
    successUrl: t.string(),
    cancelUrl: t.string(),
    setDefault: t.boolean(),
    subscriptionId: t.string(),
    expiresInSec: t.int(),
    metadata: t.field({ type: 'Metadata' }),
  }),
});
export type CreateSetupSessionInput = typeof CreateSetupSessionInput.$inferInput;

export const listArgs = builder.args((t) => ({
  customerId: t.string(),
  status: t.string(statusesOf(setupSessionMachine)),
  order: t.string(),
}));
export type ListSetupSessionsArgs = ListArgs<typeof listArgs>;

const read = admission({ resource: 'setup_session', scope: 'svc:payment_method:read' });

builder.queryFields((t) => ({
  setupSession: t.field({
    ...read,
    type: SetupSession,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getSetupSession(ctx, String(id)),
  }),
  setupSessions: t.connection({
    ...read,
    type: SetupSession,
    args: listArgs,
    resolve: (_, args, ctx) => listSetupSessions(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createSetupSession: t.field({
    ...admission({ resource: 'setup_session', scope: 'svc:payment_method:write', idempotencyKey: 'required' }),
    type: SetupSession,
    args: { input: t.arg({ type: CreateSetupSessionInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => createSetupSession(ctx, input),
  }),
  cancelSetupSession: t.field({
    ...admission({ resource: 'setup_session', scope: 'svc:payment_method:write', idempotencyKey: 'required' }),
    type: SetupSession,
    args: { id: t.arg.id({ required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { id }, ctx) => cancelSetupSession(ctx, String(id)),
  }),
}));
