import { builder } from '../../graphql/builder.ts';
import { admission } from '../../graphql/operation.ts';
import { exposeFields } from '../../graphql/fields.ts';
import { portalSessionFields, type PortalSessionRow } from './fields.ts';
import { createPortalSession } from './service.ts';

export const PortalSession = builder.objectRef<PortalSessionRow>('PortalSession').implement({
  description: "A customer's 15-minute link to the hosted billing portal (the token is in the URL's fragment).",
  fields: (t) => exposeFields(t, portalSessionFields),
});

const CreatePortalSessionInput = builder.inputType('CreatePortalSessionInput', {
  fields: (t) => ({
    // Checked by the service, so a missing one is a VALIDATION_ERROR naming it.
    customerId: t.string(),
    returnUrl: t.string(),
  }),
});
export type CreatePortalSessionInput = typeof CreatePortalSessionInput.$inferInput;

builder.mutationFields((t) => ({
  createPortalSession: t.field({
    ...admission({ resource: 'portal_session', scope: 'svc:portal:create' }),
    type: PortalSession,
    description: 'spec Portal sessions: the only operation (no retrieve, list or delete).',
    args: { input: t.arg({ type: CreatePortalSessionInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => createPortalSession(ctx, input),
  }),
}));
