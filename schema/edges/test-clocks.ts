// The clock a customer or subscription lives on (docs/architecture.md, "Edges"): batched, null when deleted.
import { builder } from '../../src/graphql/builder.ts';
import { Customer } from '../../src/modules/customers/schema.ts';
import { Subscription } from '../../src/modules/subscriptions/schema.ts';
import { testClockById } from '../../src/modules/test-clocks/loaders.ts';
import { TestClock } from '../../src/modules/test-clocks/schema.ts';

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
