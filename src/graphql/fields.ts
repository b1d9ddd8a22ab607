import { moneyJson } from '../core/money.ts';
import type { Context } from '../core/context.ts';
import type { FieldRef, InputFieldMap, InputShapeFromFields } from '@pothos/core';
import type { PageArgs } from '../core/pagination.ts';
import type { SchemaTypesOf } from './builder.ts';

/**
 * One field list per resource serves both the GraphQL type and the event snapshot
 * (`data.object`), so the wire shape is written once.
 */
export type FieldKind = 'id' | 'string' | 'int' | 'float' | 'money' | 'bool' | 'date' | 'json' | 'metadata' | 'strings';
export type FieldSpec<Row> = Record<string, {
  kind: FieldKind;
  nullable?: boolean;
  from?: (row: Row) => unknown;
  /** A secret shown once (an API key, a signing secret): never kept in a stored idempotent response. */
  secret?: true;
}>;

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
} as const satisfies Record<FieldKind, string | [string]>;

/** Pothos fields for a spec, on an object type (`objectRef`) or a Prisma model (`prismaObject`). */
export function exposeFields<Row, Kind extends 'Object' | 'PrismaObject'>(
  t: PothosSchemaTypes.RootFieldBuilder<SchemaTypesOf, Row, Kind>,
  spec: FieldSpec<Row>,
) {
  const out: Record<string, FieldRef<SchemaTypesOf, unknown, Kind>> = {};
  for (const [name, f] of Object.entries(spec)) {
    out[name] = t.field<(typeof graphqlType)[FieldKind], Row, unknown, boolean>({
      type: graphqlType[f.kind],
      nullable: f.nullable ?? false,
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

/** The same fields as JSON, exactly as REST and GraphQL serialize them. */
export function toWire<Row>(row: Row, spec: FieldSpec<Row>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(spec)) {
    const v = f.from ? f.from(row) : (row as Record<string, unknown>)[name];
    out[name] = v instanceof Date ? v.toISOString() : typeof v === 'bigint' ? (f.kind === 'money' ? moneyJson(v) : Number(v)) : (v ?? null);
  }
  return out;
}

/** `previousAttributes` of an update event: the old wire values of the fields that changed. */
export function changedFrom(before: Record<string, unknown>, after: Record<string, unknown>, ignore: readonly string[] = ['updatedAt']): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(after)) {
    if (!ignore.includes(k) && JSON.stringify(before[k]) !== JSON.stringify(after[k])) out[k] = before[k] ?? null;
  }
  return out;
}
