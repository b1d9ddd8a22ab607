// JSON Schemas of GraphQL input types and selection sets, as the REST routes carry them, and the
// samples the document shows for them.
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { prefixes, type IdKind } from '../../src/core/ids.ts';

export type Schema = Record<string, unknown>;

export const nullable = (s: Schema): Schema => ({ anyOf: [s, { type: 'null' }] });

/**
 * A status field or filter lists its values: its state machine's statuses, which the field
 * declares (`statusesOf` in src/graphql/fields.ts), so no list of statuses is written here.
 */
export function withStatuses(s: Schema, extensions: { statuses?: unknown } | null | undefined): Schema {
  const statuses = extensions?.statuses;
  if (!Array.isArray(statuses)) return s;
  if (s.anyOf) return nullable({ ...(s.anyOf as Schema[])[0], enum: [...statuses] });
  return { ...s, enum: [...statuses] };
}

/** JSON Schema of a GraphQL scalar, as it travels on the wire (src/graphql/scalars.ts). */
export function scalarSchema(name: string): Schema {
  switch (name) {
    case 'ID':
    case 'String':
      return { type: 'string' };
    case 'Int':
      return { type: 'integer', format: 'int32' };
    case 'Float':
      return { type: 'number' };
    case 'Boolean':
      return { type: 'boolean' };
    case 'Money':
      return { type: 'integer', description: 'Smallest currency unit.' };
    case 'DateTime':
      return { type: 'string', format: 'date-time' };
    case 'Metadata':
      return { $ref: '#/components/schemas/Metadata' };
    default:
      return {};
  }
}

/**
 * A sample value for a schema built here: the examples of every request and response. `owner` is
 * the component the value sits in (its `id` gets that resource's prefix).
 */
export function sample(s: Schema, components: Record<string, Schema>, name = '', owner = ''): unknown {
  if (s.$ref) {
    const ref = String(s.$ref).replace('#/components/schemas/', '');
    return ref === 'Metadata' ? { orderRef: 'A-1001' } : sample(components[ref] ?? {}, components, name, ref);
  }
  if (s.anyOf) return sample((s.anyOf as Schema[])[0], components, name, owner);
  if (s.enum) return (s.enum as unknown[])[0];
  switch (s.type) {
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, sample(v, components, k, owner)]));
    }
    case 'array':
      return [sample(s.items as Schema, components, name, owner)];
    case 'integer':
      return name === 'limit' ? 20 : 1000;
    case 'number':
      return 1.5;
    case 'boolean':
      return false;
    case 'string':
      if (s.format === 'date-time') return '2026-01-15T08:30:00.000Z';
      return sampleString(name, owner);
    default:
      return null;
  }
}

/** Any valid ULID (src/core/ids.ts): examples carry ids a server would accept by shape. */
export const SAMPLE_ULID = '01JCKZ3V6Q8Y2X4W5T7R9P0M1N';
/** Field and component names that are not an id kind's own name (src/core/ids.ts prefixes). */
export const idKindOf: Record<string, IdKind> = {
  charge: 'payment',
  endpoint: 'webhookEndpoint',
  auditLogEntry: 'auditLog',
  billingSubscription: 'subscription',
  receiptSummary: 'receipt',
  // a ledger transaction and an event's object are the resource that caused them, e.g. a payment
  tx: 'payment',
  source: 'payment',
  aggregate: 'payment',
  object: 'payment',
  target: 'customer',
  actorKey: 'apiKey',
  actorMember: 'member',
  ledgerTransaction: 'ledgerEntry',
  balanceTransaction: 'customerBalanceTransaction',
  // reconciliation: an import's run, a row's import, batch and match, a batch's bank rows
  run: 'reconciliationRun',
  import: 'reconciliationImport',
  batch: 'settlementBatch',
  match: 'reconciliationMatch',
  exception: 'reconciliationException',
  bankRow: 'reconciliationRow',
  row: 'reconciliationRow',
};
export const sampleId = (kind: string): string | undefined => {
  const k = idKindOf[kind] ?? (kind in prefixes ? (kind as IdKind) : undefined);
  if (k) return `${prefixes[k]}_${SAMPLE_ULID}`;
  // `latestInvoice`, `pendingPrice`: the kind after the first word
  const rest = /^[a-z]+([A-Z].*)$/.exec(kind)?.[1];
  return rest && sampleId(rest.charAt(0).toLowerCase() + rest.slice(1));
};
/** `CreateRefundInput`, `CustomerRest`, `ApiKey2` -> `refund`, `customer`, `apiKey`. */
export const kindOfComponent = (component: string) => {
  const base = component
    .replace(/\d+$/, '')
    .replace(/(Rest|Input)$/, '')
    .replace(/^(Create|Update)(?=[A-Z])/, '');
  return base.charAt(0).toLowerCase() + base.slice(1);
};

/** A readable string for a field, by its name (and, for `id`, the resource it belongs to). */
export function sampleString(name: string, owner = ''): string {
  if (name === 'currency') return 'IDR';
  if (name === 'email' || name === 'to') return 'jane@example.com';
  if (name === 'methods') return 'qris';
  if (name === 'reason') return 'requested_by_customer';
  if (/Url$/.test(name) || name === 'url') return `https://example.com/${name.replace(/Url$/, '')}`;
  if (name === 'keyId') return 'pk_test_0123456789ab';
  // Adapter credentials, not our ids.
  if (name === 'merchantId') return 'G123456789';
  if (name === 'clientId') return 'client-123';
  if (name === 'subAccountId') return 'SA-123456';
  if (name === 'merchantTaxId') return '01.234.567.8-901.000';
  // A provider's ids in a reconciliation row, not ours.
  if (name === 'transactionId') return 'txn_8fa2c1';
  if (name === 'settlementId') return 'SET-20261122-01';
  // The merchant's own keys: a customer's external id, a usage event's id (its idempotency key).
  if (name === 'externalId' || name === 'externalCustomerId') return 'acme-42';
  if (name === 'id' && /^UsageEvent/.test(owner)) return 'acme-req-0001';
  const id =
    name === 'id' ? sampleId(kindOfComponent(owner)) : /Ids?$/.test(name) && sampleId(name.replace(/Ids?$/, ''));
  if (id) return id;
  return name || 'string';
}

export interface Builder {
  schema: GraphQLSchema;
  components: Record<string, Schema>;
  /** Output shapes already named: JSON text -> component name. */
  shapes: Map<string, string>;
  responses: Record<string, Schema>;
  examples: Record<string, Schema>;
}

/** Input types become components (one definition each); unknown fields are refused (spec Conventions). */
export function inputSchema(b: Builder, type: GraphQLInputType): Schema {
  if (isNonNullType(type)) return inputSchema(b, type.ofType);
  if (isListType(type)) return { type: 'array', items: inputField(b, type.ofType) };
  if (isEnumType(type)) return { type: 'string', enum: type.getValues().map((v) => v.name) };
  if (isScalarType(type)) return scalarSchema(type.name);
  if (!b.components[type.name]) {
    b.components[type.name] = {}; // claimed first: an input that contains itself
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    for (const f of Object.values(type.getFields())) {
      properties[f.name] = { ...inputField(b, f.type), ...(f.description ? { description: f.description } : {}) };
      if (isNonNullType(f.type) && f.defaultValue === undefined) required.push(f.name);
    }
    b.components[type.name] = {
      type: 'object',
      properties,
      ...(required.length ? { required } : {}),
      additionalProperties: false,
      ...(type.description ? { description: type.description } : {}),
    };
  }
  return { $ref: `#/components/schemas/${type.name}` };
}

/** A nullable input field (GraphQL's default) accepts null as well. */
export const inputField = (b: Builder, type: GraphQLInputType): Schema =>
  isNonNullType(type) ? inputSchema(b, type) : nullable(inputSchema(b, type));

/** The JSON a selection set produces over a type: every selected key is present (null when nullable). */
export function selectionSchema(
  b: Builder,
  type: GraphQLOutputType,
  set: SelectionSetNode | undefined,
  fragments: Map<string, FragmentDefinitionNode>,
): Schema {
  const inner = getNullableType(type) as GraphQLOutputType;
  let s: Schema;
  if (isListType(inner)) s = { type: 'array', items: selectionSchema(b, inner.ofType, set, fragments) };
  else {
    const named = getNamedType(inner);
    if (isEnumType(named)) s = { type: 'string', enum: named.getValues().map((v) => v.name) };
    else if (isScalarType(named)) s = scalarSchema(named.name);
    else s = nameShape(b, named.name, objectSchema(b, named.name, set, fragments));
  }
  return isNonNullType(type) ? s : nullable(s);
}

/**
 * An object shape becomes a named component (`Payment`, or `Payment2` for another selection of
 * the same type), so generated clients get one type per resource shape.
 */
export function nameShape(b: Builder, typeName: string, s: Schema): Schema {
  const text = JSON.stringify(s);
  let n = b.shapes.get(text);
  if (!n) {
    let i = 1;
    n = typeName;
    while (b.components[n]) n = `${typeName}${++i}`;
    b.components[n] = s;
    b.shapes.set(text, n);
  }
  return { $ref: `#/components/schemas/${n}` };
}

export function objectSchema(
  b: Builder,
  typeName: string,
  set: SelectionSetNode | undefined,
  fragments: Map<string, FragmentDefinitionNode>,
): Schema {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  const walk = (s: SelectionSetNode | undefined, on: string, conditional: boolean) => {
    for (const sel of s?.selections ?? []) {
      if (sel.kind === Kind.FRAGMENT_SPREAD) {
        const f = fragments.get(sel.name.value)!;
        walk(f.selectionSet, f.typeCondition.name.value, conditional || f.typeCondition.name.value !== on);
        continue;
      }
      if (sel.kind === Kind.INLINE_FRAGMENT) {
        const cond = sel.typeCondition?.name.value ?? on;
        walk(sel.selectionSet, cond, conditional || cond !== on);
        continue;
      }
      const key = (sel.alias ?? sel.name).value;
      if (sel.name.value === '__typename') {
        properties[key] = { type: 'string' };
      } else {
        const parent = b.schema.getType(on);
        const field = parent && isObjectType(parent) ? parent.getFields()[sel.name.value] : undefined;
        // A field of a union member or interface implementation: looked up on that type.
        const def = field ?? findField(b.schema, on, sel.name.value);
        if (!def) continue;
        const fieldSchema = withStatuses(selectionSchema(b, def.type, sel.selectionSet, fragments), def.extensions);
        properties[key] = def.description ? { ...fieldSchema, description: def.description } : fieldSchema;
      }
      if (!conditional && !required.includes(key)) required.push(key);
    }
  };
  walk(set, typeName, false);
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

export function findField(schema: GraphQLSchema, typeName: string, field: string) {
  const t = schema.getType(typeName);
  if (t && 'getFields' in t)
    return (
      t.getFields() as Record<
        string,
        { type: GraphQLOutputType; description?: string | null; extensions?: { statuses?: unknown } }
      >
    )[field];
  return undefined;
}

export const isConnection = (t: GraphQLOutputType) => {
  const n = getNullableType(t);
  return isObjectType(n) && 'edges' in n.getFields() && 'pageInfo' in n.getFields();
};
