import { builder } from '../../graphql/builder.ts';
import { exposeFields, type FieldSpec, type ListArgs } from '../../graphql/fields.ts';
import type { Event as Row } from '../../generated/prisma/client.ts';
import { getEvent, listEvents, subscribeEvents } from './service.ts';
import { replayEvents, type EventReplay as ReplayRow } from './replay.ts';
import { triggerEvent } from './trigger.ts';
import { admission } from '../../graphql/operation.ts';

export const eventFields: FieldSpec<Row> = {
  id: { kind: 'id' },
  type: { kind: 'string' },
  occurredAt: { kind: 'date' },
  createdAt: { kind: 'date' },
  publishedAt: { kind: 'date', nullable: true },
  mode: { kind: 'string', nullable: true },
  workspaceId: { kind: 'string' },
  sequence: { kind: 'int' },
  data: { kind: 'json' },
  metadata: { kind: 'json' },
};

export const Event = builder.prismaObject('Event', {
  fields: (t) => exposeFields(t, eventFields),
});

const listArgs = builder.args((t) => ({
  type: t.string(),
  occurredAfter: t.field({ type: 'DateTime' }),
  occurredBefore: t.field({ type: 'DateTime' }),
  objectId: t.string(),
  workspaceId: t.string(),
  order: t.string(),
}));
export type ListEventsArgs = ListArgs<typeof listArgs>;

builder.queryFields((t) => ({
  event: t.field({
    ...admission({ resource: 'event', scope: 'svc:event:read' }),
    type: Event,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getEvent(ctx, String(id)),
  }),
  events: t.connection({
    ...admission({ resource: 'event', scope: 'svc:event:read' }),
    type: Event,
    args: listArgs,
    resolve: (_, args, ctx) => listEvents(ctx, args),
  }),
}));

const EventReplay = builder.objectRef<ReplayRow>('EventReplay').implement({
  description: 'spec POST /v1/events/replay: how many events were re-emitted, and their new ids in request order.',
  fields: (t) => ({
    count: t.exposeInt('count'),
    eventIds: t.exposeIDList('eventIds'),
  }),
});

const ReplayEventsInput = builder.inputType('ReplayEventsInput', {
  fields: (t) => ({ eventIds: t.idList() }),
});
export type ReplayEventsInput = typeof ReplayEventsInput.$inferInput;

const TriggerEventInput = builder.inputType('TriggerEventInput', {
  fields: (t) => ({ type: t.string(), aggregateId: t.string(), data: t.field({ type: 'JSON' }) }),
});
export type TriggerEventInput = typeof TriggerEventInput.$inferInput;

builder.mutationFields((t) => ({
  replayEvents: t.field({
    ...admission({
      resource: 'event',
      scope: 'svc:event:write',
      rateClass: 'mutating_heavy',
      idempotencyKey: 'required',
    }),
    type: EventReplay,
    args: { input: t.arg({ type: ReplayEventsInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => replayEvents(ctx, input),
  }),
  triggerEvent: t.field({
    ...admission({ resource: 'event', scope: 'svc:event:trigger', idempotencyKey: 'required' }),
    type: Event,
    args: { input: t.arg({ type: TriggerEventInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => triggerEvent(ctx, input),
  }),
}));

builder.subscriptionField('events', (t) =>
  t.field({
    ...admission({ resource: 'event', scope: 'svc:event:read' }),
    type: Event,
    args: { types: t.arg.stringList(), objectId: t.arg.id(), after: t.arg.id() },
    subscribe: (_, args, ctx) =>
      subscribeEvents(ctx, {
        ...args,
        objectId: args.objectId ? String(args.objectId) : null,
        after: args.after ? String(args.after) : null,
      }),
    // The stream reads raw rows (bigint positions as text); the type is the Prisma model.
    resolve: ({ position, publishedPosition, ...row }) => ({
      ...row,
      position: BigInt(position),
      publishedPosition: BigInt(publishedPosition),
    }),
  }),
);
