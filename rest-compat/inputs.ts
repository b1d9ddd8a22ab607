import { DomainError } from '../src/core/errors.ts';

/** What a route's variables function sees. */
export interface Input {
  params: Record<string, string>;
  query: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

type Kind = 'string' | 'boolean' | 'int' | 'instant';
type Spec = Record<string, Kind | { as: string; kind: Kind }>;

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[v.length - 1] : v);

function convert(name: string, raw: string, kind: Kind): unknown {
  switch (kind) {
    case 'string':
      return raw;
    case 'boolean':
      if (raw === 'true' || raw === 'false') return raw === 'true';
      throw new DomainError('validation_error', `${name} must be true or false`, { field: name });
    case 'int':
      if (/^-?\d+$/.test(raw)) return Number(raw);
      throw new DomainError('validation_error', `${name} must be an integer`, { field: name });
    case 'instant':
      // ISO 8601 or epoch seconds (spec Conventions); the DateTime scalar takes both.
      if (/^\d{1,12}$/.test(raw)) return Number(raw);
      if (!Number.isNaN(Date.parse(raw))) return raw;
      throw new DomainError('validation_error', `${name} must be ISO 8601 or epoch seconds`, { field: name });
  }
}

/** Query string of a list route: `limit` and `cursor` become `first` and `after`. */
export function listQuery(req: Input, spec: Spec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const limit = one(req.query.limit);
  if (limit !== undefined) {
    if (!/^\d{1,4}$/.test(limit))
      throw new DomainError('invalid_limit', 'limit must be an integer from 1 to 100', { field: 'limit' });
    out.first = Number(limit);
  }
  const cursor = one(req.query.cursor);
  if (cursor !== undefined) out.after = cursor;
  for (const [name, s] of Object.entries(spec)) {
    const raw = one(req.query[name]);
    if (raw === undefined) continue;
    const { as, kind } = typeof s === 'string' ? { as: name, kind: s } : s;
    out[as] = convert(name, raw, kind);
  }
  return out;
}

/** spec Conventions: `metadata[<key>]=<value>` query parameters, as one exact-match object. */
export function metadataQuery(req: Input): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.query)) {
    const m = /^metadata\[(.*)\]$/.exec(name);
    if (!m) continue;
    const v = one(value);
    if (v !== undefined) out[m[1]] = v;
  }
  return Object.keys(out).length ? out : undefined;
}

/** Routes whose spec body is empty: any field sent is 400 validation_error naming it (never silently ignored). */
export function noBody(req: Input): Record<string, never> {
  const extra = Object.keys(req.body ?? {})[0];
  if (extra !== undefined)
    throw new DomainError('validation_error', `${extra} is not a field of this request (the body is empty)`, {
      field: extra,
    });
  return {};
}
