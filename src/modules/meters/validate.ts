import { errorsFor } from '../../core/errors.ts';
import { checkLength, oneOf, validateMetadata } from '../../core/validation.ts';
import type { CreateMeterInput, UpdateMeterInput } from './schema.ts';

const err = errorsFor('meter');

/** Shapes shared with usage events (docs/guides/usage-events.md, Event as sent). */
export const eventNameShape = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;
export const propertyNameShape = /^[A-Za-z_][A-Za-z0-9_]{0,39}$/;
const keyShape = /^[a-z0-9][a-z0-9_]{0,63}$/;

export const aggregations = [
  'count',
  'unique_count',
  'sum',
  'min',
  'max',
  'average',
  'latest',
  'time_weighted_sum',
] as const;
export type Aggregation = (typeof aggregations)[number];

/** docs/guides/meters.md, Limits. */
export const meterLimits = { activePerEventName: 10, perWorkspace: 500, filterProperties: 10, groupBy: 3 } as const;

export interface MeterDraft {
  key: string;
  name: string;
  description: string | null;
  eventName: string;
  aggregation: Aggregation;
  valueProperty: string | null;
  filters: Record<string, string[]>;
  groupBy: string[];
  unit: string | null;
  metadata: Record<string, string> | null;
}

const required = <T>(v: T | null | undefined, field: string): T => {
  if (v === undefined || v === null) throw err.validation(field, `${field} is required`);
  return v;
};

function checkFilters(value: unknown): Record<string, string[]> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw err.validation('filters', 'filters must be an object');
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > meterLimits.filterProperties)
    throw err.validation('filters', `filters holds at most ${meterLimits.filterProperties} properties`);
  for (const [k, v] of entries) {
    const field = `filters.${k}`;
    if (!propertyNameShape.test(k))
      throw err.validation(field, 'a filter names a property: ^[A-Za-z_][A-Za-z0-9_]{0,39}$');
    const ok =
      Array.isArray(v) && v.length >= 1 && v.length <= 100 && v.every((x) => typeof x === 'string' && x.length <= 256);
    if (!ok) throw err.validation(field, `${field} must be 1-100 strings of at most 256 characters`);
  }
  return value as Record<string, string[]>;
}

function checkGroupBy(value: readonly string[] | null | undefined): string[] {
  const names = value ?? [];
  if (names.length > meterLimits.groupBy || new Set(names).size !== names.length)
    throw err.validation('groupBy', `groupBy holds at most ${meterLimits.groupBy} distinct property names`);
  names.forEach((n, i) => {
    if (!propertyNameShape.test(n)) throw err.validation(`groupBy[${i}]`, 'groupBy names properties');
  });
  return [...names];
}

const optionalText = (v: string | null | undefined, field: string, max: number) =>
  v === undefined || v === null ? null : checkLength(v, field, 0, max, 'meter');

export function validateCreate(input: CreateMeterInput): MeterDraft {
  const key = required(input.key, 'key');
  if (!keyShape.test(key)) throw err.validation('key', 'key must match ^[a-z0-9][a-z0-9_]{0,63}$');
  const name = checkLength(required(input.name, 'name'), 'name', 1, 255, 'meter');
  const eventName = required(input.eventName, 'eventName');
  if (!eventNameShape.test(eventName))
    throw err.validation('eventName', 'eventName must match ^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$');
  const aggregation = oneOf(required(input.aggregation, 'aggregation'), aggregations, 'aggregation', 'meter');
  const valueProperty = input.valueProperty ?? null;
  if (aggregation === 'count' && valueProperty !== null)
    throw err.validation('valueProperty', 'a count meter takes no valueProperty');
  if (aggregation !== 'count' && valueProperty === null)
    throw err.validation('valueProperty', `valueProperty is required for ${aggregation}`);
  if (valueProperty !== null && !propertyNameShape.test(valueProperty))
    throw err.validation('valueProperty', 'valueProperty must match ^[A-Za-z_][A-Za-z0-9_]{0,39}$');
  return {
    key,
    name,
    description: optionalText(input.description, 'description', 1024),
    eventName,
    aggregation,
    valueProperty,
    filters: checkFilters(input.filters),
    groupBy: checkGroupBy(input.groupBy),
    unit: optionalText(input.unit, 'unit', 64),
    metadata: input.metadata ? validateMetadata(input.metadata, 'metadata', 'meter') : null,
  };
}

/** Only name, description, unit and metadata change; null clears all but name. */
export function validateUpdate(input: UpdateMeterInput) {
  const out: Partial<Pick<MeterDraft, 'name' | 'description' | 'unit' | 'metadata'>> = {};
  if (input.name !== undefined) out.name = checkLength(required(input.name, 'name'), 'name', 1, 255, 'meter');
  if (input.description !== undefined) out.description = optionalText(input.description, 'description', 1024);
  if (input.unit !== undefined) out.unit = optionalText(input.unit, 'unit', 64);
  if (input.metadata !== undefined)
    out.metadata = input.metadata === null ? null : validateMetadata(input.metadata, 'metadata', 'meter');
  return out;
}
