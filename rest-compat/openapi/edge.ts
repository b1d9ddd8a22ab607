// Routes outside GraphQL in the document.
import type { EdgeRoute } from '../../src/server/edge-route.ts';

import type { Builder, Schema } from './schemas.ts';
import { openApiPath } from './probe.ts';
import { errorCodesOf, errorResponse } from './responses.ts';

/**
 * A route outside GraphQL (src/server/edge-route.ts) that declares its API entry: a document
 * or a redirect, with the errors derived as for a table route.
 */
export function addEdgeRoute(
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
