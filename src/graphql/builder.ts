import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import type PrismaTypes from '../generated/pothos-types.ts';
import { getDatamodel } from '../generated/pothos-types.ts';
import { db } from '../core/db/client.ts';
import type { Context } from '../core/context.ts';

export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  Connection: { limit: number };
  Scalars: {
    Money: { Input: number; Output: number | bigint };
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
    Metadata: { Input: Record<string, string>; Output: unknown };
  };
}>({
  plugins: [PrismaPlugin, RelayPlugin],
  defaultFieldNullability: false,
  prisma: {
    // Resolvers run inside tenant transactions and load rows themselves; the client here is
    // only used by the plugin for relation fields, which go through the RLS-bound pool too.
    client: () => db().prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
  },
  relay: {
    cursorType: 'String',
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    clientMutationId: 'omit',
  },
});

/** The builder's resolved schema types, for helpers that take a field builder (graphql/fields.ts). */
export type SchemaTypesOf = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});

// REST's `meta.page.limit` comes from here, so one generic function can build it.
builder.globalConnectionField('limit', (t) => t.int({ resolve: (parent) => parent.limit }));
