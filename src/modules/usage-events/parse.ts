/**
 * Hand-written checks of an ingestion body, one pass, no database (docs/usage.md, The request): the
 * batch's shape (a whole-request 400), then each event's formats (its own `validation_error`),
 * canonicalised with its content hash.
 */
import { createHash } from 'node:crypto';
import { DomainError } from '../../core/errors.ts';
import { eventNameShape, propertyNameShape } from '../meters/validate.ts';

export const batchLimit = 1000;
const idShape = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const customerIdShape = /^cus_[0-9A-HJKMNP-TV-Z]{26}$/;
const externalIdShape = /^[\x21-\x7E]{1,128}$/;
const isoShape = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
const eventKeys = new Set(['id', 'eventName', 'customerId', 'externalCustomerId', 'timestamp', 'properties']);
const maxProperties = 32;
const maxPropertyBytes = 2048;

/** An event whose formats hold: what ingestion stores and dedupes. */
export interface CheckedEvent {
  index: number;
  id: string;
  eventName: string;
  customerId: string | null;
  externalCustomerId: string | null;
  /** Epoch milliseconds as sent, or null: the receive (or clock) time is filled in later. */
  timestampMs: number | null;
  properties: Record<string, string | number | boolean>;
  /** SHA-256 of the canonical content, first 16 bytes. */
  hash: Buffer;
}

export interface Rejection {
  index: number;
  id: string | null;
  code: string;
  field: string;
  message: string;
}

/** The body's `events`: a whole-request 400 when the batch itself is malformed. */
export function batchOf(input: Record<string, unknown>): unknown[] {
  const extra = Object.keys(input).find((k) => k !== 'events');
  if (extra)
    throw new DomainError('validation_error', `Unknown field ${extra}`, { field: extra, resource: 'usage_event' });
  const events = input.events;
  if (!Array.isArray(events) || events.length < 1 || events.length > batchLimit)
    throw new DomainError('validation_error', `events must be an array of 1-${batchLimit} events`, {
      field: 'events',
      resource: 'usage_event',
    });
  return events;
}

const reject = (index: number, id: string | null, field: string, message: string): Rejection => ({
  index,
  id,
  code: 'validation_error',
  field,
  message,
});

/** ISO 8601 with `Z` or an offset, or integer epoch seconds; kept to the millisecond (finer digits cut). */
export function timestampMs(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value * 1000 : null;
  if (typeof value !== 'string') return null;
  const m = isoShape.exec(value);
  if (!m) return null;
  const fraction = m[7] ? m[7].slice(0, 4).padEnd(4, '0') : '.000';
  const ms = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${fraction}${m[8]}`);
  // Date.parse rolls 2026-02-30 over: the calendar date must be one.
  const day = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  if (Number.isNaN(ms) || day.getUTCMonth() !== +m[2] - 1 || +m[4] > 23 || +m[5] > 59 || +m[6] > 59) return null;
  return ms;
}

function checkProperties(
  value: unknown,
): { ok: Record<string, string | number | boolean> } | { field: string; message: string } {
  if (value === undefined) return { ok: {} };
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { field: 'properties', message: 'properties must be an object' };
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > maxProperties)
    return { field: 'properties', message: `properties holds at most ${maxProperties} keys` };
  for (const [k, v] of entries) {
    if (!propertyNameShape.test(k))
      return { field: `properties.${k}`, message: 'property names match ^[A-Za-z_][A-Za-z0-9_]{0,39}$' };
    const fine =
      (typeof v === 'string' && v.length <= 256) ||
      typeof v === 'boolean' ||
      (typeof v === 'number' && Number.isFinite(v));
    if (!fine)
      return {
        field: `properties.${k}`,
        message: 'a property is a string of at most 256 characters, a boolean or a finite number',
      };
  }
  if (Buffer.byteLength(JSON.stringify(value)) > maxPropertyBytes)
    return { field: 'properties', message: `properties are at most ${maxPropertyBytes} bytes as compact JSON` };
  return { ok: value as Record<string, string | number | boolean> };
}

/** The content that decides duplicate against conflict: keys sorted, timestamps in milliseconds. */
function contentHash(e: Omit<CheckedEvent, 'hash' | 'index'>): Buffer {
  const props = Object.keys(e.properties)
    .sort()
    .map((k) => [k, e.properties[k]]);
  const content = JSON.stringify([e.eventName, e.customerId, e.externalCustomerId, e.timestampMs, props]);
  return createHash('sha256').update(content).digest().subarray(0, 16);
}

/** One event's formats, in the order the fields are listed (docs/guides/usage-events.md, Answers). */
export function checkEvent(raw: unknown, index: number): CheckedEvent | Rejection {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    return reject(index, null, 'id', 'an event is an object');
  const e = raw as Record<string, unknown>;
  const id = typeof e.id === 'string' ? e.id : null;
  if (id === null || !idShape.test(id))
    return reject(index, id, 'id', 'id must match ^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$');
  if (typeof e.eventName !== 'string' || !eventNameShape.test(e.eventName))
    return reject(index, id, 'eventName', 'eventName must match ^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$');
  const hasId = e.customerId !== undefined;
  const hasExternal = e.externalCustomerId !== undefined;
  if (hasId === hasExternal)
    return reject(index, id, 'customerId', 'exactly one of customerId and externalCustomerId is required');
  if (hasId && (typeof e.customerId !== 'string' || !customerIdShape.test(e.customerId)))
    return reject(index, id, 'customerId', 'customerId must be a cus_ id');
  if (hasExternal && (typeof e.externalCustomerId !== 'string' || !externalIdShape.test(e.externalCustomerId)))
    return reject(index, id, 'externalCustomerId', 'externalCustomerId is 1-128 printable ASCII characters');
  const ts = e.timestamp === undefined ? null : timestampMs(e.timestamp);
  if (e.timestamp !== undefined && ts === null)
    return reject(index, id, 'timestamp', 'timestamp is ISO 8601 with Z or an offset, or integer epoch seconds');
  const props = checkProperties(e.properties);
  if ('field' in props) return reject(index, id, props.field, props.message);
  for (const k of Object.keys(e)) if (!eventKeys.has(k)) return reject(index, id, k, `Unknown field ${k}`);
  const event = {
    id,
    eventName: e.eventName,
    customerId: hasId ? (e.customerId as string) : null,
    externalCustomerId: hasExternal ? (e.externalCustomerId as string) : null,
    timestampMs: ts,
    properties: props.ok,
  };
  return { ...event, index, hash: contentHash(event) };
}
