import {
  GraphQLNonNull,
  getNamedType,
  getNullableType,
  getOperationAST,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  typeFromAST,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { routes, type Route } from './routes.ts';
import { loadOperations } from './plugin.ts';
import { spell, statusOf, type ErrorCode, type Resource } from '../src/core/errors.ts';
import { edgeRoutes } from '../src/server/edge-routes.ts';
import type { EdgeRoute } from '../src/server/edge-route.ts';
import { operationOf } from '../src/graphql/operation.ts';
import { prefixes, type IdKind } from '../src/core/ids.ts';

/**
 * OpenAPI 3.1 of the REST surface, derived from the route table and each operation (its
 * variables, its selection set: the response contract) over the GraphQL schema. Nothing here
 * names a route: a new entry in routes.ts appears by itself (docs/decisions.md, OpenAPI).
 */
type Schema = Record<string, unknown>;

const nullable = (s: Schema): Schema => ({ anyOf: [s, { type: 'null' }] });

/**
 * A status field or filter lists its values: its state machine's statuses, which the field
 * declares (`statusesOf` in src/graphql/fields.ts), so no list of statuses is written here.
 */
function withStatuses(s: Schema, extensions: { statuses?: unknown } | null | undefined): Schema {
  const statuses = extensions?.statuses;
  if (!Array.isArray(statuses)) return s;
  if (s.anyOf) return nullable({ ...(s.anyOf as Schema[])[0], enum: [...statuses] });
  return { ...s, enum: [...statuses] };
}

/** JSON Schema of a GraphQL scalar, as it travels on the wire (src/graphql/scalars.ts). */
function scalarSchema(name: string): Schema {
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
function sample(s: Schema, components: Record<string, Schema>, name = '', owner = ''): unknown {
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
const SAMPLE_ULID = '01JCKZ3V6Q8Y2X4W5T7R9P0M1N';
/** Field and component names that are not an id kind's own name (src/core/ids.ts prefixes). */
const idKindOf: Record<string, IdKind> = {
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
};
const sampleId = (kind: string): string | undefined => {
  const k = idKindOf[kind] ?? (kind in prefixes ? (kind as IdKind) : undefined);
  if (k) return `${prefixes[k]}_${SAMPLE_ULID}`;
  // `latestInvoice`, `pendingPrice`: the kind after the first word
  const rest = /^[a-z]+([A-Z].*)$/.exec(kind)?.[1];
  return rest && sampleId(rest.charAt(0).toLowerCase() + rest.slice(1));
};
/** `CreateRefundInput`, `CustomerRest`, `ApiKey2` -> `refund`, `customer`, `apiKey`. */
const kindOfComponent = (component: string) => {
  const base = component
    .replace(/\d+$/, '')
    .replace(/(Rest|Input)$/, '')
    .replace(/^(Create|Update)(?=[A-Z])/, '');
  return base.charAt(0).toLowerCase() + base.slice(1);
};

/** A readable string for a field, by its name (and, for `id`, the resource it belongs to). */
function sampleString(name: string, owner = ''): string {
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
  const id =
    name === 'id' ? sampleId(kindOfComponent(owner)) : /Ids?$/.test(name) && sampleId(name.replace(/Ids?$/, ''));
  if (id) return id;
  return name || 'string';
}

interface Builder {
  schema: GraphQLSchema;
  components: Record<string, Schema>;
  /** Output shapes already named: JSON text -> component name. */
  shapes: Map<string, string>;
  responses: Record<string, Schema>;
  examples: Record<string, Schema>;
}

/** Input types become components (one definition each); unknown fields are refused (spec Conventions). */
function inputSchema(b: Builder, type: GraphQLInputType): Schema {
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
const inputField = (b: Builder, type: GraphQLInputType): Schema =>
  isNonNullType(type) ? inputSchema(b, type) : nullable(inputSchema(b, type));

/** The JSON a selection set produces over a type: every selected key is present (null when nullable). */
function selectionSchema(
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
function nameShape(b: Builder, typeName: string, s: Schema): Schema {
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

function objectSchema(
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

function findField(schema: GraphQLSchema, typeName: string, field: string) {
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

const isConnection = (t: GraphQLOutputType) => {
  const n = getNullableType(t);
  return isObjectType(n) && 'edges' in n.getFields() && 'pageInfo' in n.getFields();
};

/** `/v1/x/:id` as OpenAPI spells it. */
export const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

interface Probed {
  /** Query parameter name -> the variable it fills. */
  query: Map<string, string>;
  /** `metadata[<key>]` filters. */
  metadataQuery: boolean;
  path: Map<string, string>;
  /** The variable that receives the whole body, or the body fields picked one by one. */
  bodyVariable?: string;
  bodyFields: Map<string, string>;
  emptyBody: boolean;
}

/**
 * What a route reads: its pure `variables()` is run over recording inputs. Each query name it
 * looks up is then given alone, and the variable that changes is the one it fills.
 */
function probe(route: Route): Probed {
  const queryNames: string[] = [];
  let iteratesQuery = false;
  const pathNames = new Set<string>();
  const bodyNames: string[] = [];
  let iteratesBody = false;
  const recorder = (names: string[] | Set<string>, onKeys: () => void) =>
    new Proxy({} as Record<string, unknown>, {
      get(_, k) {
        if (typeof k === 'string' && k !== 'then' && k !== 'toJSON') {
          if (Array.isArray(names)) {
            if (!names.includes(k)) names.push(k);
          } else names.add(k);
        }
        return undefined;
      },
      ownKeys() {
        onKeys();
        return [];
      },
    });
  const params = recorder(pathNames, () => {});
  const body = recorder(bodyNames, () => {
    iteratesBody = true;
  });
  const baseline = route.variables({
    params: params as Record<string, string>,
    query: recorder(queryNames, () => {
      iteratesQuery = true;
    }) as Record<string, string>,
    body,
  }) as Record<string, unknown>;
  const bodyVariable = Object.entries(baseline).find(([, v]) => v === body)?.[0];
  const changed = (out: Record<string, unknown>, base: Record<string, unknown>) =>
    Object.keys(out).find((k) => out[k] !== undefined && JSON.stringify(out[k]) !== JSON.stringify(base[k]));
  const quiet = { params: {}, query: {}, body: {} };
  const base = route.variables(quiet) as Record<string, unknown>;
  const query = new Map<string, string>();
  for (const name of queryNames) {
    for (const value of ['2026-01-01T00:00:00Z', 'true', '7']) {
      try {
        const v = changed(route.variables({ ...quiet, query: { [name]: value } }) as Record<string, unknown>, base);
        if (v) {
          query.set(name, v);
          break;
        }
      } catch {
        /* the value is not of the parameter's kind: try the next */
      }
    }
  }
  const path = new Map<string, string>();
  for (const name of pathNames) {
    const v = changed(route.variables({ ...quiet, params: { [name]: 'x' } }) as Record<string, unknown>, base);
    if (v) path.set(name, v);
  }
  const bodyFields = new Map<string, string>();
  if (!bodyVariable) {
    for (const name of bodyNames) {
      const v = changed(route.variables({ ...quiet, body: { [name]: 'x' } }) as Record<string, unknown>, base);
      if (v) bodyFields.set(name, v);
    }
  }
  let metadataQuery = false;
  if (iteratesQuery) {
    const out = route.variables({ ...quiet, query: { 'metadata[k]': 'v' } }) as Record<string, unknown>;
    metadataQuery = JSON.stringify(out.metadata) === JSON.stringify({ k: 'v' });
  }
  return {
    query,
    metadataQuery,
    path,
    bodyVariable,
    bodyFields,
    emptyBody: iteratesBody && !bodyVariable && bodyFields.size === 0,
  };
}

/** The envelope around a route's `data` (spec Shared conventions). */
function envelopeOf(data: Schema, page: boolean): Schema {
  return {
    type: 'object',
    required: ['data', 'error', 'meta'],
    properties: {
      data,
      error: { type: 'null' },
      meta: { $ref: `#/components/schemas/${page ? 'ListMeta' : 'Meta'}` },
    },
  };
}

/**
 * The error codes a route can answer, from what it is: every route is signed and rate limited,
 * reads input, may fail internally; an `{id}` can be unknown; a list takes cursors; a mutation
 * takes an Idempotency-Key (and requires it when its field says so).
 */
function errorCodesOf(
  route: { path: string; resource: Resource; errors?: readonly ErrorCode[] },
  opts: { list: boolean; requiresKey: boolean; mutation: boolean; hasBody: boolean },
) {
  const codes: ErrorCode[] = ['validation_error', 'invalid_signature', 'invalid_key', 'insufficient_scope'];
  if (route.path.includes(':')) codes.push('not_found');
  if (opts.list) codes.push('invalid_limit', 'invalid_cursor');
  if (opts.hasBody) codes.push('invalid_json', 'payload_too_large');
  if (opts.requiresKey) codes.push('idempotency_required');
  if (opts.mutation) codes.push('idempotency_conflict', 'idempotency_in_flight');
  codes.push(...(route.errors ?? []));
  codes.push('rate_limited', 'internal_error', 'service_unavailable');
  // One entry per (status, spelled code): spellings may merge two canonical codes.
  const byStatus = new Map<number, Set<string>>();
  for (const c of codes) {
    const status = statusOf[c];
    if (!byStatus.has(status)) byStatus.set(status, new Set());
    byStatus.get(status)!.add(spell(c, route.resource));
  }
  return [...byStatus.entries()].sort(([a], [b]) => a - b);
}

const reasons: Record<number, string> = {
  400: 'Bad request',
  401: 'Not authenticated',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Unprocessable',
  429: 'Rate limited (honour Retry-After)',
  500: 'Internal error',
  502: 'Upstream provider error',
  503: 'Database unavailable (honour Retry-After)',
};

/** One response component per (status, codes) and one example per code, shared by the routes. */
function errorResponse(b: Builder, status: number, codes: string[]): string {
  const name = `E${status}.${codes.join('.')}`;
  for (const c of codes)
    b.examples[c] ??= {
      value: {
        data: null,
        error: { code: c, message: c.replace(/_/g, ' ').toLowerCase() },
        meta: { requestId: `${prefixes.request}_${SAMPLE_ULID}`, timestamp: '2026-01-15T08:30:00.000Z' },
      },
    };
  b.responses[name] ??= {
    description: `${reasons[status] ?? 'Error'}: ${codes.join(', ')}`,
    ...(status === 429 || status === 503
      ? { headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } }
      : {}),
    content: {
      'application/json': {
        schema: {
          allOf: [
            { $ref: '#/components/schemas/ErrorEnvelope' },
            {
              type: 'object',
              properties: {
                error: { type: 'object', properties: { code: { type: 'string', enum: codes } } },
              },
            },
          ],
        },
        examples: Object.fromEntries(codes.map((c) => [c, { $ref: `#/components/examples/${c}` }])),
      },
    },
  };
  return name;
}

/**
 * A route outside GraphQL (src/server/edge-route.ts) that declares its API entry: a document
 * or a redirect, with the errors derived as for a table route.
 */
function addEdgeRoute(
  b: Builder,
  paths: Record<string, Record<string, unknown>>,
  route: EdgeRoute,
  api: NonNullable<EdgeRoute['api']>,
) {
  const parameters: Schema[] = [];
  for (const name of openApiPath(route.url).match(/\{[^}]+\}/g) ?? [])
    parameters.push({ name: name.slice(1, -1), in: 'path', required: true, schema: { type: 'string' } });
  for (const [name, q] of Object.entries(api.query ?? {}))
    parameters.push({
      name,
      in: 'query',
      required: q.required ?? false,
      schema: { type: 'string' },
      description: q.description,
    });
  if (route.auth === 'key') parameters.push({ $ref: '#/components/parameters/OnBehalfOf' });
  const { status, contentType, description } = api.response;
  const responses: Record<string, unknown> = {
    [status]: contentType
      ? {
          description,
          content: { [contentType]: { schema: { type: 'string', contentMediaType: contentType } } },
        }
      : {
          description,
          headers: {
            Location: { required: true, schema: { type: 'string', format: 'uri' }, description: 'Where to go.' },
          },
        },
  };
  for (const [code, spelled] of errorCodesOf(
    { path: route.url, resource: route.resource, errors: api.errors },
    { list: false, requiresKey: false, mutation: false, hasBody: route.method === 'POST' },
  ))
    responses[code] = { $ref: `#/components/responses/${errorResponse(b, code, [...spelled])}` };
  paths[openApiPath(route.url)] ??= {};
  paths[openApiPath(route.url)][route.method.toLowerCase()] = {
    operationId: api.id,
    tags: [route.resource],
    summary: api.summary,
    description: 'Served outside GraphQL (docs/architecture.md, Routes outside GraphQL).',
    parameters,
    responses,
    ...(route.auth === 'key' ? {} : { security: [] }),
    'x-svc-rate-class': route.rateClass,
  };
}

/** The document: `GET /v1/openapi.json` and `npm run openapi` (schema/openapi.json). */
export function buildOpenApi(schema: GraphQLSchema, edge: readonly EdgeRoute[] = edgeRoutes): Record<string, unknown> {
  const docs = loadOperations(schema);
  const b: Builder = { schema, components: {}, shapes: new Map(), responses: {}, examples: {} };
  b.components.Metadata = {
    type: 'object',
    additionalProperties: { type: 'string', maxLength: 500 },
    maxProperties: 50,
    propertyNames: { maxLength: 40 },
    description: 'String-to-string pairs: at most 50 keys, keys up to 40 characters, values up to 500.',
  };
  b.components.Error = {
    type: 'object',
    required: ['code', 'message'],
    properties: {
      code: { type: 'string', description: 'Spelled as the route documents it (spec Errors).' },
      message: { type: 'string' },
      field: { type: 'string', description: 'The offending input, on validation errors.' },
    },
  };
  b.components.Meta = {
    type: 'object',
    required: ['requestId', 'timestamp'],
    properties: { requestId: { type: 'string', pattern: '^req_' }, timestamp: { type: 'string', format: 'date-time' } },
  };
  b.components.Page = {
    type: 'object',
    required: ['limit', 'hasMore', 'nextCursor'],
    properties: {
      limit: { type: 'integer' },
      hasMore: { type: 'boolean' },
      nextCursor: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    },
  };
  b.components.ListMeta = {
    type: 'object',
    required: ['requestId', 'timestamp', 'page'],
    properties: {
      requestId: { type: 'string', pattern: '^req_' },
      timestamp: { type: 'string', format: 'date-time' },
      page: { $ref: '#/components/schemas/Page' },
    },
  };
  b.components.ErrorEnvelope = {
    type: 'object',
    required: ['data', 'error', 'meta'],
    properties: {
      data: { type: 'null' },
      error: { $ref: '#/components/schemas/Error' },
      meta: { $ref: '#/components/schemas/Meta' },
    },
  };

  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const doc = docs.get(route.id) as DocumentNode;
    const op = getOperationAST(doc, route.id) as OperationDefinitionNode;
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    const operation = operationOf(schema, doc, route.id, undefined)!;
    const rootType = schema.getRootType(op.operation)!;
    const rootSel = op.selectionSet.selections.find((s) => s.kind === Kind.FIELD)!;
    const rootField = rootType.getFields()[rootSel.kind === Kind.FIELD ? rootSel.name.value : ''];
    const varType = (name: string) => {
      const def = op.variableDefinitions?.find((v) => v.variable.name.value === name);
      return def ? (typeFromAST(schema, def.type as never) as GraphQLInputType) : undefined;
    };
    // The root field's argument a variable is passed to (its declared extensions).
    const argOf = (variable: string) => {
      const node =
        rootSel.kind === Kind.FIELD
          ? rootSel.arguments?.find((a) => a.value.kind === Kind.VARIABLE && a.value.name.value === variable)
          : undefined;
      return node ? rootField.args.find((a) => a.name === node.name.value) : undefined;
    };
    const p = probe(route);
    const list = isConnection(rootField.type);
    const mutation = op.operation === 'mutation';
    const requiresKey = operation.fields.some((f) => f.requiresIdempotencyKey);

    const parameters: Schema[] = [];
    for (const name of openApiPath(route.path).match(/\{[^}]+\}/g) ?? []) {
      const n = name.slice(1, -1);
      parameters.push({ name: n, in: 'path', required: true, schema: { type: 'string' } });
    }
    for (const [name, variable] of p.query) {
      const t = varType(variable);
      // listQuery reads limit and cursor everywhere; only an operation that declares them pages.
      if (!t) continue;
      const named = getNamedType(t);
      let s: Schema = inputSchema(b, named);
      if (name === 'limit') s = { type: 'integer', minimum: 1, maximum: 100 };
      if (named.name === 'DateTime') s = { type: 'string', description: 'ISO 8601 or epoch seconds.' };
      if (name === 'order') s = { type: 'string', enum: ['asc', 'desc'] };
      s = withStatuses(s, argOf(variable)?.extensions);
      parameters.push({
        name,
        in: 'query',
        // Required where the operation's variable is (a report's period): the same rule the server applies.
        required: isNonNullType(t),
        schema: s,
        ...(name === 'cursor' ? { description: 'meta.page.nextCursor of the previous page.' } : {}),
        ...(name !== variable && name !== 'limit' && name !== 'cursor' ? { description: `Fills ${variable}.` } : {}),
      });
    }
    if (p.metadataQuery)
      parameters.push({
        name: 'metadata',
        in: 'query',
        required: false,
        style: 'deepObject',
        explode: true,
        schema: { type: 'object', additionalProperties: { type: 'string' } },
        description: '`metadata[<key>]=<value>`, exact match on every pair given.',
      });
    if (mutation)
      parameters.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: requiresKey,
        // src/core/idempotency.ts keyShape
        schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
        description: requiresKey
          ? 'Required: a repeated key replays the first response; another body under it is a 409.'
          : 'Optional: a repeated key replays the first response; another body under it is a 409.',
      });
    parameters.push({ $ref: '#/components/parameters/OnBehalfOf' });

    let requestBody: Schema | undefined;
    const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
    if (hasBody && p.bodyVariable) {
      const t = varType(p.bodyVariable)!;
      const ref = inputSchema(b, t);
      requestBody = {
        required: isNonNullType(t),
        content: { 'application/json': { schema: ref, example: sample(ref, b.components) } },
      };
    } else if (hasBody && p.bodyFields.size) {
      const properties: Record<string, Schema> = {};
      for (const [name, variable] of p.bodyFields) properties[name] = inputField(b, varType(variable)!);
      requestBody = {
        required: false,
        content: { 'application/json': { schema: { type: 'object', properties, additionalProperties: false } } },
      };
    } else if (hasBody) {
      requestBody = {
        required: false,
        description: 'Empty, or `{}`: any field is 400 validation_error.',
        content: { 'application/json': { schema: { type: 'object', maxProperties: 0 } } },
      };
    }

    const status = route.status ?? 200;
    const responses: Record<string, unknown> = {};
    if (route.download) {
      responses[status] = {
        description: 'The document itself (its content type and a Content-Disposition filename).',
        content: {
          'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
        },
      };
    } else if (status === 204) {
      responses[status] = { description: 'Done; no body.' };
    } else {
      let data: Schema;
      if (list) {
        const conn = getNullableType(rootField.type) as GraphQLObjectType;
        const edges = conn.getFields().edges;
        const edgeSel = rootSel.kind === Kind.FIELD ? rootSel.selectionSet : undefined;
        const edgesSel = edgeSel?.selections.find((s) => s.kind === Kind.FIELD && s.name.value === 'edges');
        const nodeSel =
          edgesSel?.kind === Kind.FIELD
            ? edgesSel.selectionSet?.selections.find((s) => s.kind === Kind.FIELD && s.name.value === 'node')
            : undefined;
        const edgeType = getNamedType(edges.type) as GraphQLObjectType;
        const nodeType = edgeType.getFields().node.type;
        data = {
          type: 'array',
          items: selectionSchema(
            b,
            new GraphQLNonNull(getNullableType(nodeType)) as GraphQLOutputType,
            nodeSel?.kind === Kind.FIELD ? nodeSel.selectionSet : undefined,
            fragments,
          ),
        };
      } else {
        data = selectionSchema(
          b,
          rootField.type,
          rootSel.kind === Kind.FIELD ? rootSel.selectionSet : undefined,
          fragments,
        );
      }
      // Route.shape (docs/architecture.md, REST shapes that are not the selection set): the one
      // declared exception omits null fields, so none of them is required.
      if (route.shape && typeof data.$ref === 'string') {
        const name = data.$ref.split('/').pop()!;
        const { required: _, ...rest } = b.components[name];
        b.components[`${name}Rest`] = { ...rest, description: 'Fields that would be null are omitted.' };
        data = { $ref: `#/components/schemas/${name}Rest` };
      }
      const body = envelopeOf(data, list);
      const meta = { requestId: `${prefixes.request}_${SAMPLE_ULID}`, timestamp: '2026-01-15T08:30:00.000Z' };
      responses[status] = {
        description: 'OK',
        headers: { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } },
        content: {
          'application/json': {
            schema: body,
            example: {
              data: sample(data, b.components),
              error: null,
              meta: list ? { ...meta, page: { limit: 20, hasMore: false, nextCursor: null } } : meta,
            },
          },
        },
      };
    }
    const resource = operation.fields[0].resource;
    for (const [code, spelled] of errorCodesOf({ ...route, resource }, { list, requiresKey, mutation, hasBody })) {
      responses[code] = { $ref: `#/components/responses/${errorResponse(b, code, [...spelled])}` };
    }

    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      operationId: route.id,
      tags: [resource],
      summary: rootField.description ?? `${route.id} (GraphQL ${op.operation} ${rootField.name})`,
      description: `Runs the GraphQL ${op.operation} \`${route.id}\` (field \`${rootField.name}\`); its selection set is this response.`,
      parameters,
      ...(requestBody ? { requestBody } : {}),
      responses,
      'x-svc-rate-class': operation.fields[0].rateClass,
    };
  }

  for (const route of edge) if (route.api) addEdgeRoute(b, paths, route, route.api);

  const sorted = (o: Record<string, Schema>) =>
    Object.fromEntries(Object.entries(o).sort(([a], [c]) => a.localeCompare(c)));
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc payments and billing REST API',
      version: 'v1',
      description:
        'Every JSON response is the envelope `{data, error, meta}`. Requests are signed (Svc-HMAC-SHA256): ' +
        'see the `SvcSignature` security scheme. GraphQL (POST /graphql) is the same service with the same rules.',
    },
    servers: [{ url: '/', description: 'The host serving this document.' }],
    security: [{ SvcSignature: [], SvcTimestamp: [] }],
    paths,
    components: {
      schemas: sorted(b.components),
      responses: sorted(b.responses),
      examples: sorted(b.examples),
      securitySchemes: {
        SvcSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description:
            '`Svc-HMAC-SHA256 keyId=<keyId>, scope=*, signature=<hex>`. signature = hex(HMAC-SHA256(key, canonical)) ' +
            'where key = SHA-256(secret as UTF-8) and canonical = `<X-Svc-Timestamp>\\n<METHOD>\\n<path and query as sent>' +
            '\\n<hex(SHA-256(body bytes))>` (no trailing newline; an empty body hashes the empty string). ' +
            'The timestamp must be within 300 seconds of the server clock.',
        },
        SvcTimestamp: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Svc-Timestamp',
          description: 'Epoch seconds; part of the signed canonical string.',
        },
      },
      parameters: {
        OnBehalfOf: {
          name: 'X-Svc-On-Behalf-Of',
          in: 'header',
          required: false,
          schema: { type: 'string', pattern: '^acc_' },
          description: 'Platform-admin keys only: the merchant account to act on. Ignored for other keys.',
        },
      },
      headers: {
        RequestId: { schema: { type: 'string' }, description: 'The request id, also meta.requestId.' },
        RetryAfter: { schema: { type: 'integer' }, description: 'Seconds to wait before retrying.' },
      },
    },
  };
}
