import { builder } from '../../graphql/builder.ts';
import { admission } from '../../graphql/operation.ts';
import { exposeFields, type ListArgs } from '../../graphql/fields.ts';
import { testClockFields } from './fields.ts';
import { advanceTestClock, createTestClock, deleteTestClock, getTestClock, listTestClocks } from './service.ts';

export const TestClock = builder.prismaObject('TestClock', {
  description:
    'DECISIONS §3 (test mode only): the business time of the customers created on it; advancing it runs ' +
    'everything that falls due on the way, in order.',
  fields: (t) => exposeFields(t, testClockFields),
});

const CreateTestClockInput = builder.inputType('CreateTestClockInput', {
  fields: (t) => ({
    frozenTime: t.field({ type: 'DateTime', description: "The clock's starting time (ISO 8601 or epoch seconds)." }),
    name: t.string({ description: '1-255 characters.' }),
  }),
});
const AdvanceTestClockInput = builder.inputType('AdvanceTestClockInput', {
  fields: (t) => ({
    frozenTime: t.field({ type: 'DateTime', description: 'Later than the current frozenTime, at most 5 years on.' }),
  }),
});
export type TestClockInput = typeof CreateTestClockInput.$inferInput;

const listArgs = builder.args((t) => ({ order: t.string() }));
export type ListTestClocksArgs = ListArgs<typeof listArgs>;

builder.queryFields((t) => ({
  testClock: t.field({
    ...admission({ resource: 'test_clock', scope: 'svc:subscription:read' }),
    type: TestClock,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getTestClock(ctx, String(id)),
  }),
  testClocks: t.connection({
    ...admission({ resource: 'test_clock', scope: 'svc:subscription:read' }),
    type: TestClock,
    args: listArgs,
    resolve: (_, args, ctx) => listTestClocks(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createTestClock: t.field({
    ...admission({ resource: 'test_clock', scope: 'svc:subscription:write' }),
    type: TestClock,
    args: { input: t.arg({ type: CreateTestClockInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => createTestClock(ctx, input),
  }),
  advanceTestClock: t.field({
    ...admission({ resource: 'test_clock', scope: 'svc:subscription:write' }),
    type: TestClock,
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: AdvanceTestClockInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_, { id, input }, ctx) => advanceTestClock(ctx, String(id), input),
  }),
  deleteTestClock: t.field({
    ...admission({ resource: 'test_clock', scope: 'svc:subscription:write' }),
    type: 'Boolean',
    args: { id: t.arg.id({ required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { id }, ctx) => deleteTestClock(ctx, String(id)),
  }),
}));
