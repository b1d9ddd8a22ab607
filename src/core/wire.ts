/**
 * The wire shape of a row: what REST and GraphQL serialize and what an event carries as
 * `data.object`. Here, not in src/graphql/, because events (src/core/outbox, jobs) use it too.
 */
import { moneyJson } from './money.ts';

/**
 * One field list per resource serves both the GraphQL type and the event snapshot
 * (`data.object`), so the wire shape is written once.
 */
export type FieldKind =
  | 'id'
  | 'string'
  | 'int'
  | 'float'
  | 'money'
  | 'bool'
  | 'date'
  | 'json'
  | 'metadata'
  | 'strings'
  | 'ints';
export type FieldSpec<Row> = Record<
  string,
  {
    kind: FieldKind;
    nullable?: boolean;
    from?: (row: Row) => unknown;
    /** A secret shown once (an API key, a signing secret): never kept in a stored idempotent response. */
    secret?: true;
    /**
     * The state machine (its module's states.ts) whose status this field holds: the field's
     * documented values (OpenAPI enum) are the machine's statuses, written once there.
     */
    states?: { readonly statuses: readonly string[] };
    /**
     * The GraphQL object type (by name) of a `json` field whose shape is a type of its own (a
     * subscription's `Discount`, an invoice's `[InvoiceDiscount]`); REST and events keep the JSON.
     */
    graphql?: string | readonly [string];
  }
>;

/** The same fields as JSON, exactly as REST and GraphQL serialize them. */
export function toWire<Row>(row: Row, spec: FieldSpec<Row>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(spec)) {
    const v = f.from ? f.from(row) : (row as Record<string, unknown>)[name];
    out[name] =
      v instanceof Date
        ? v.toISOString()
        : typeof v === 'bigint'
          ? f.kind === 'money'
            ? moneyJson(v)
            : Number(v)
          : (v ?? null);
  }
  return out;
}

/** `previousAttributes` of an update event: the old wire values of the fields that changed. */
export function changedFrom(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  ignore: readonly string[] = ['updatedAt'],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(after)) {
    if (!ignore.includes(k) && JSON.stringify(before[k]) !== JSON.stringify(after[k])) out[k] = before[k] ?? null;
  }
  return out;
}
