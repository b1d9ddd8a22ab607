// OpenAPI 3.1 of the REST surface, derived from the route table and each operation (its variables,
// its selection set: the response contract) over the GraphQL schema. Nothing here names a route: a
// new entry in routes.ts appears by itself (docs/decisions.md, OpenAPI). The parts are in openapi/.
import type { DocumentNode, GraphQLSchema } from 'graphql';
import { routes } from './routes.ts';
import { loadOperations } from './plugin.ts';
import { edgeRoutes } from '../src/server/edge-routes.ts';
import type { EdgeRoute } from '../src/server/edge-route.ts';

import { addEdgeRoute } from './openapi/edge.ts';
import { addUploadRoute } from './openapi/upload.ts';
import { envelopeMembers } from './openapi/responses.ts';
import { addRoute } from './openapi/route.ts';
import type { Builder, Schema } from './openapi/schemas.ts';

export { openApiPath } from './openapi/probe.ts';

/** The components every route refers to: metadata, the envelope's parts, errors. */
function addBaseComponents(b: Builder) {
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
    required: envelopeMembers,
    properties: {
      data: { type: 'null' },
      error: { $ref: '#/components/schemas/Error' },
      meta: { $ref: '#/components/schemas/Meta' },
    },
  };
}

/** The document: `GET /v1/openapi.json` and `npm run openapi` (schema/openapi.json). */
export function buildOpenApi(schema: GraphQLSchema, edge: readonly EdgeRoute[] = edgeRoutes): Record<string, unknown> {
  const docs = loadOperations(schema);
  const b: Builder = { schema, components: {}, shapes: new Map(), responses: {}, examples: {} };
  addBaseComponents(b);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) addRoute(b, paths, docs.get(route.id) as DocumentNode, route);
  for (const route of edge) if (route.api) addEdgeRoute(b, paths, route, route.api);
  addUploadRoute(b, paths);
  return documentOf(b, paths);
}

/** The document around the paths: info, security schemes, shared parameters and headers. */
function documentOf(b: Builder, paths: Record<string, Record<string, unknown>>): Record<string, unknown> {
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
