import { DomainError, isDomainError, spell, type Resource } from '../core/errors.ts';
import { clock } from '../core/clock.ts';
import { logger } from '../core/logger.ts';
import { asUnavailable } from '../core/db/unavailable.ts';

export interface Page {
  limit: number;
  hasMore: boolean;
  nextCursor: string | null;
}

/** spec Shared conventions: every JSON response is `{data, error, meta}`. */
export function envelope(requestId: string, data: unknown, error: unknown = null, page?: Page): string {
  const meta: Record<string, unknown> = { requestId, timestamp: clock.now().toISOString() };
  if (page) meta.page = page;
  return JSON.stringify({ data, error, meta });
}

export interface ErrorReply {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/** A DomainError keeps its code; anything else is an internal error that leaks nothing. */
export function errorReply(e: unknown, requestId: string, resource: Resource = 'generic'): ErrorReply {
  e = asUnavailable(e) ?? e;
  if (isDomainError(e)) {
    // Spelled for the route's resource: core errors (auth, cursors) are thrown resource-agnostic.
    const code = resource === 'generic' ? (e.extensions.code as string) : spell(e.canonical, resource);
    const error = {
      code,
      message: e.message,
      ...(e.field ? { field: e.field } : {}),
      ...(e.line ? { line: e.line } : {}),
    };
    return { status: e.status, body: envelope(requestId, null, error), headers: e.headers ?? {} };
  }
  logger.error({ err: e, requestId }, 'unhandled error');
  return {
    status: 500,
    body: envelope(requestId, null, {
      code: 'internal_error',
      message: `Internal error; quote request id ${requestId}`,
    }),
    headers: {},
  };
}

export const validationError = (message: string, field?: string, resource?: Resource) =>
  new DomainError('validation_error', message, { field, resource });
