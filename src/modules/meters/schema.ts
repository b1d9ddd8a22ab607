import { builder } from '../../graphql/builder.ts';
import { exposeFields, type ListArgs } from '../../graphql/fields.ts';
import { admission } from '../../graphql/operation.ts';
import { meterFields } from './fields.ts';
import { archiveMeter, createMeter, getMeter, listMeters, updateMeter } from './service.ts';

export const Meter = builder.prismaObject('Meter', {
  description: 'What usage events count and how (docs/guides/meters.md).',
  fields: (t) => exposeFields(t, meterFields),
});

// Fields are optional in the schema and checked by the service: a missing one is 400 naming it.
const CreateMeterInput = builder.inputType('CreateMeterInput', {
  fields: (t) => ({
    key: t.string({ description: '^[a-z0-9][a-z0-9_]{0,63}$, unique per workspace and mode' }),
    name: t.string(),
    description: t.string(),
    eventName: t.string(),
    aggregation: t.string({
      description: 'count, unique_count, sum, min, max, average, latest or time_weighted_sum',
    }),
    valueProperty: t.string({ description: 'the property counted; null exactly for count' }),
    filters: t.field({ type: 'JSON', description: 'property -> list of 1-100 accepted string forms' }),
    groupBy: t.stringList({ description: 'at most 3 property names' }),
    unit: t.string(),
    metadata: t.field({ type: 'Metadata' }),
  }),
});
export type CreateMeterInput = typeof CreateMeterInput.$inferInput;

const UpdateMeterInput = builder.inputType('UpdateMeterInput', {
  description: 'Only name, description, unit and metadata change; null clears all but name.',
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    unit: t.string(),
    metadata: t.field({ type: 'Metadata' }),
  }),
});
export type UpdateMeterInput = typeof UpdateMeterInput.$inferInput;

const listArgs = builder.args((t) => ({
  eventName: t.string(),
  archived: t.boolean({ description: 'false (default): active meters; true: archived meters.' }),
  order: t.string(),
}));
export type ListMetersArgs = ListArgs<typeof listArgs>;

builder.queryFields((t) => ({
  meter: t.field({
    ...admission({ resource: 'meter', scope: 'svc:meter:read' }),
    type: Meter,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getMeter(ctx, String(id)),
  }),
  meters: t.connection({
    ...admission({ resource: 'meter', scope: 'svc:meter:read' }),
    type: Meter,
    args: listArgs,
    resolve: (_, args, ctx) => listMeters(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createMeter: t.field({
    ...admission({ resource: 'meter', scope: 'svc:meter:write', idempotencyKey: 'required' }),
    type: Meter,
    args: { input: t.arg({ type: CreateMeterInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => createMeter(ctx, input),
  }),
  updateMeter: t.field({
    ...admission({ resource: 'meter', scope: 'svc:meter:write', idempotencyKey: 'required' }),
    type: Meter,
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateMeterInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_, { id, input }, ctx) => updateMeter(ctx, String(id), input),
  }),
  archiveMeter: t.field({
    ...admission({ resource: 'meter', scope: 'svc:meter:write', idempotencyKey: 'required' }),
    type: Meter,
    args: { id: t.arg.id({ required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { id }, ctx) => archiveMeter(ctx, String(id)),
  }),
}));
