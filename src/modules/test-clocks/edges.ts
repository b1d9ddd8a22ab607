// The clock a customer or subscription lives on (docs/architecture.md, "Edges"): batched, null when deleted.
import { builder } from '../../graphql/builder.ts';
import { Customer } from '../customers/schema.ts';
import { Subscription } from '../subscriptions/schema.ts';
import { testClockById } from './loaders.ts';
import { TestClock } from './schema.ts';

builder.objectFields(Customer, (t) => ({
  testClock: t.field({
    type: TestClock,
    nullable: true,
    resolve: (c, _, ctx, info) => testClockById(ctx, c.testClockId, info),
  }),
}));

builder.objectFields(Subscription, (t) => ({
  testClock: t.field({
    type: TestClock,
    nullable: true,
    resolve: (s, _, ctx, info) => testClockById(ctx, s.testClockId, info),
  }),
}));
