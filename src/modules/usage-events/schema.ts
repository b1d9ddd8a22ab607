import { builder } from '../../graphql/builder.ts';
import { exposeFields, type ListArgs } from '../../graphql/fields.ts';
import { admission, IDEMPOTENCY_KEY_IGNORED } from '../../graphql/operation.ts';
import { usageEventFields } from './fields.ts';
import { usageEventAccepted } from './states.ts';
import { getUsageEvent, ingestUsageEvents, listUsageEvents, voidUsageEvent } from './service.ts';

export const UsageEvent = builder.prismaObject('UsageEvent', {
  description: 'A usage event as accepted (docs/guides/usage-events.md).',
  fields: (t) => exposeFields(t, usageEventFields),
});

interface EventResultShape {
  index: number;
  id: string | null;
  status: string;
  code: string | null;
  field: string | null;
  message: string | null;
}
const UsageEventResult = builder.objectRef<EventResultShape>('UsageEventResult').implement({
  description: 'One answer per event, in request order.',
  fields: (t) => ({
    index: t.exposeInt('index'),
    id: t.exposeString('id', { nullable: true }),
    status: t.exposeString('status', { description: `${usageEventAccepted}, duplicate or rejected` }),
    code: t.exposeString('code', { nullable: true }),
    field: t.exposeString('field', { nullable: true }),
    message: t.exposeString('message', { nullable: true }),
  }),
});

const IngestResult = builder
  .objectRef<{ accepted: number; duplicates: number; rejected: number; results: EventResultShape[] }>('IngestResult')
  .implement({
    fields: (t) => ({
      // Counted by answer (the result vocabulary, not the stored event's status).
      accepted: t.int({ resolve: (r) => r.accepted }),
      duplicates: t.exposeInt('duplicates'),
      rejected: t.exposeInt('rejected'),
      results: t.field({ type: [UsageEventResult], resolve: (r) => r.results }),
    }),
  });

// JSON, not a typed input: one malformed event is answered on its own, never a coercion failure of the batch.
const IngestUsageEventsInput = builder.inputType('IngestUsageEventsInput', {
  fields: (t) => ({
    events: t.field({ type: 'JSON', required: true, description: '1-1,000 usage events' }),
  }),
});
export type IngestUsageEventsInput = typeof IngestUsageEventsInput.$inferInput;

const listArgs = builder.args((t) => ({
  customerId: t.string(),
  externalCustomerId: t.string(),
  eventName: t.string(),
  status: t.string({ description: 'accepted or voided' }),
  from: t.string({ description: 'timestamp at or after (ISO 8601)' }),
  to: t.string({ description: 'timestamp before (ISO 8601)' }),
  order: t.string({ description: 'desc (default) or asc, by timestamp then receipt' }),
}));
export type ListUsageEventsArgs = ListArgs<typeof listArgs>;

builder.queryFields((t) => ({
  usageEvent: t.field({
    ...admission({ resource: 'usage_event', scope: 'svc:usage:read' }),
    type: UsageEvent,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getUsageEvent(ctx, String(id)),
  }),
  usageEvents: t.connection({
    ...admission({ resource: 'usage_event', scope: 'svc:usage:read' }),
    type: UsageEvent,
    args: listArgs,
    resolve: (_, args, ctx) => listUsageEvents(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  ingestUsageEvents: t.field({
    ...admission({
      resource: 'usage_event',
      scope: 'svc:usage:write',
      rateClass: 'usage_ingest',
      idempotencyKey: IDEMPOTENCY_KEY_IGNORED,
    }),
    type: IngestResult,
    args: { input: t.arg({ type: IngestUsageEventsInput, required: true }) },
    resolve: (_, { input }, ctx) => ingestUsageEvents(ctx, input),
  }),
  voidUsageEvent: t.field({
    ...admission({ resource: 'usage_event', scope: 'svc:usage:write' }),
    type: UsageEvent,
    args: { id: t.arg.id({ required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { id }, ctx) => voidUsageEvent(ctx, String(id)),
  }),
}));
