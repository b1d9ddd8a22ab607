import { DomainError, type Resource } from './errors.ts';

/** spec Shared conventions: metadata is at most 50 string pairs, keys <= 40, values <= 500. */
export function validateMetadata(value: unknown, field = 'metadata', resource?: Resource): Record<string, string> {
  const fail = (why: string) => new DomainError('validation_error', `${field} ${why}`, { field, resource });
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw fail('must be an object of strings');
  const entries = Object.entries(value);
  if (entries.length > 50) throw fail('has more than 50 keys');
  for (const [k, v] of entries) {
    if (k.length === 0 || k.length > 40) throw fail('keys must be 1-40 characters');
    if (typeof v !== 'string') throw fail('values must be strings');
    if (v.length > 500) throw fail('values must be at most 500 characters');
  }
  return value as Record<string, string>;
}

export function checkLength(value: string, field: string, min: number, max: number, resource?: Resource) {
  if (value.length < min || value.length > max) {
    throw new DomainError('validation_error', `${field} must be ${min}-${max} characters`, { field, resource });
  }
  return value;
}

export function oneOf<T extends string>(value: string, allowed: readonly T[], field: string, resource?: Resource): T {
  if (!allowed.includes(value as T)) {
    throw new DomainError('validation_error', `${field} must be one of ${allowed.join(', ')}`, { field, resource });
  }
  return value as T;
}
