// One table route's entry: its parameters, request body and responses, read from its operation over
// the schema (the selection set is the response contract).
import {
  GraphQLNonNull,
  getNamedType,
  getNullableType,
  getOperationAST,
  isNonNullType,
  Kind,
  typeFromAST,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { Route } from '../routes.ts';
import { operationOf } from '../../src/graphql/operation.ts';
import { prefixes } from '../../src/core/ids.ts';

import {
  type Builder,
  inputField,
  inputSchema,
  isConnection,
  sample,
  SAMPLE_ULID,
  type Schema,
  selectionSchema,
  withStatuses,
} from './schemas.ts';
import { openApiPath, probe } from './probe.ts';
import { envelopeOf, errorCodesOf, errorResponse } from './responses.ts';

/** A route's operation, its root field and selection, and what the route reads. */
function routeOperation(schema: GraphQLSchema, doc: DocumentNode, route: Route) {
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
  const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
  return {
    route,
    op,
    fragments,
    operation,
    rootSel,
    rootField,
    varType,
    argOf,
    p,
    list,
    mutation,
    requiresKey,
    hasBody,
  };
}

type RouteOperation = ReturnType<typeof routeOperation>;

/** Path, query (filters, paging, metadata) and header parameters. */
function parametersOf(b: Builder, { route, p, varType, argOf, mutation, requiresKey }: RouteOperation): Schema[] {
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
  return parameters;
}

function requestBodyOf(b: Builder, { p, varType, hasBody }: RouteOperation): Schema | undefined {
  let requestBody: Schema | undefined;
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
  return requestBody;
}

/** The success response: a document, nothing (204), or the enveloped selection set with an example. */
function successResponses(b: Builder, { route, rootField, rootSel, fragments, list }: RouteOperation) {
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
  return responses;
}

export function addRoute(b: Builder, paths: Record<string, Record<string, unknown>>, doc: DocumentNode, route: Route) {
  const o = routeOperation(b.schema, doc, route);
  const { op, operation, rootField, list, requiresKey, mutation, hasBody } = o;
  const parameters = parametersOf(b, o);
  const requestBody = requestBodyOf(b, o);
  const responses = successResponses(b, o);
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
