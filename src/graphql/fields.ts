import type { FieldKind, FieldSpec } from '../core/wire.ts';
import type { Context } from '../core/context.ts';
import type { FieldRef, InputFieldMap, InputShapeFromFields } from '@pothos/core';
import type { PageArgs } from '../core/pagination.ts';
import type { SchemaTypesOf } from './builder.ts';

export type { FieldKind, FieldSpec } from '../core/wire.ts';

// The GraphQL type of each kind. One union-typed `t.field` serves them all: JSON's output shape is
// `unknown`, so the union of outputs accepts whatever the spec's row yields, without a cast.
const graphqlType = {
  id: 'ID',
  string: 'String',
  int: 'Int',
  float: 'Float',
  money: 'Money',
  bool: 'Boolean',
  date: 'DateTime',
  json: 'JSON',
  metadata: 'Metadata',
  strings: ['String'],
  ints: ['Int'],
} as const satisfies Record<FieldKind, string | [string]>;

/**
 * A status field's or filter's values, from its state machine (states.ts): read by the OpenAPI
 * document (rest-compat/openapi.ts), which lists them as the enum. GraphQL keeps `String`.
 */
export const statusesOf = (machine: { readonly statuses: readonly string[] }) => ({
  extensions: { statuses: machine.statuses },
});

/** Pothos fields for a spec, on an object type (`objectRef`) or a Prisma model (`prismaObject`). */
export function exposeFields<Row, Kind extends 'Object' | 'PrismaObject'>(
  t: PothosSchemaTypes.RootFieldBuilder<SchemaTypesOf, Row, Kind>,
  spec: FieldSpec<Row>,
) {
  const out: Record<string, FieldRef<SchemaTypesOf, unknown, Kind>> = {};
  for (const [name, f] of Object.entries(spec)) {
    out[name] = t.field<(typeof graphqlType)[FieldKind], Row, unknown, boolean>({
      // A named object type (registered by its module's schema.ts) overrides the kind's scalar.
      type: (f.graphql ?? graphqlType[f.kind]) as (typeof graphqlType)[FieldKind],
      nullable: f.nullable ?? false,
      ...(f.states ? statusesOf(f.states) : {}),
      resolve: (row: Row, _args: unknown, ctx: Context) => {
        const value = (f.from ? f.from(row) : (row as Record<string, unknown>)[name]) ?? null;
        if (f.secret && typeof value === 'string') ctx.replay?.secrets.add(value);
        return value;
      },
    });
  }
  return out;
}

/** What a list resolver's service receives: its filter arguments (declared once, with `builder.args`) and the page. */
export type ListArgs<Args extends InputFieldMap> = InputShapeFromFields<Args> & PageArgs;
