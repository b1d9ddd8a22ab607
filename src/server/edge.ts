import type { FastifyRequest } from 'fastify';
import { DomainError } from '../core/errors.ts';

/** Raw body bytes: HMAC and idempotency fingerprints are computed over exactly what was sent. */
export const rawBody = (req: FastifyRequest): Buffer => (Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));

const header = (req: FastifyRequest, name: string) => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

export const idempotencyKeyOf = (req: FastifyRequest) => header(req, 'idempotency-key');

const utf8 = new TextDecoder('utf-8', { fatal: true });
const unstorable = /[\0\uD800-\uDFFF]/u;

/** JSON object body: invalid UTF-8, malformed JSON or a non-object is a 400, never a 500. */
export function parseJsonBody(body: Buffer, opts: { allowEmpty: boolean }): Record<string, unknown> {
  if (body.length === 0) {
    if (opts.allowEmpty) return {};
    throw new DomainError('validation_error', 'A JSON object body is required', { field: 'body' });
  }
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new DomainError('invalid_json', 'Body is not valid UTF-8', { field: 'body' });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DomainError('invalid_json', 'Body is not valid JSON', { field: 'body' });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new DomainError('validation_error', 'Body must be a JSON object', { field: 'body' });
  }
  assertStorable(value as Record<string, unknown>);
  return value as Record<string, unknown>;
}

/**
 * Text that parses but cannot be stored is a 400 naming the top-level field: NUL (PostgreSQL
 * text refuses it, which would otherwise surface as a 500) and unpaired surrogates (not Unicode).
 * Iterative, so a deeply nested body cannot overflow the stack.
 */
export function assertStorable(fields: Record<string, unknown>) {
  for (const [field, value] of Object.entries(fields)) {
    const stack: unknown[] = [field, value];
    while (stack.length) {
      const x = stack.pop();
      if (typeof x === 'string') {
        if (unstorable.test(x))
          throw new DomainError('validation_error', `${field} must be valid Unicode without NUL characters`, { field });
      } else if (x && typeof x === 'object') {
        for (const [k, v] of Object.entries(x)) stack.push(k, v);
      }
    }
  }
}
