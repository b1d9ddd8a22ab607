// The envelope, and the error responses a route can answer (one component per status and codes).
import { spell, statusOf, type ErrorCode, type Resource } from '../../src/core/errors.ts';
import { prefixes } from '../../src/core/ids.ts';

import { type Builder, SAMPLE_ULID, type Schema } from './schemas.ts';

/** The members of every envelope, a success's or an error's (spec Shared conventions). */
export const envelopeMembers = ['data', 'error', 'meta'];

/** The envelope around a route's `data` (spec Shared conventions). */
export function envelopeOf(data: Schema, page: boolean): Schema {
  return {
    type: 'object',
    required: envelopeMembers,
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
export function errorCodesOf(
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

export const reasons: Record<number, string> = {
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
export function errorResponse(b: Builder, status: number, codes: string[]): string {
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
