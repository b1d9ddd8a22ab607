// The value readers under the formats: the exact id set, zone midnights across daylight saving, instants, amounts.
import { describe, expect, it } from 'vitest';
import { IdSet } from '../../../src/modules/reconciliation/formats/id-set.ts';
import {
  ZoneMidnights,
  parseDecimal,
  parseInstant,
  parseMinor,
  truncateChars,
} from '../../../src/modules/reconciliation/formats/values.ts';

describe('IdSet', () => {
  it('is exact over many ids, empty and non-ASCII ones included, across its growth', () => {
    const set = new IdSet();
    const ids = Array.from({ length: 50_000 }, (_, i) => `txn_${i.toString(36)}`);
    expect(ids.every((id) => set.add(id))).toBe(true);
    expect(ids.every((id) => !set.add(id))).toBe(true);
    expect(set.add('')).toBe(true);
    expect(set.add('')).toBe(false);
    expect(set.add('é😀')).toBe(true);
    expect(set.add('é😀')).toBe(false);
    // Prefixes and extensions of a known id are other ids.
    expect(set.add('txn_1')).toBe(false);
    expect(set.add('txn_1!')).toBe(true);
    expect(set.add('txn_')).toBe(true);
    expect(set.size).toBe(50_004);
  });
});

describe('values', () => {
  it('puts 00:00 of a day in the zone, on and around daylight saving changes', () => {
    const ny = new ZoneMidnights('America/New_York');
    expect(new Date(ny.at('2026-03-08')!).toISOString()).toBe('2026-03-08T05:00:00.000Z');
    expect(new Date(ny.at('2026-03-09')!).toISOString()).toBe('2026-03-09T04:00:00.000Z');
    expect(new Date(ny.at('2026-11-01')!).toISOString()).toBe('2026-11-01T04:00:00.000Z');
    expect(new Date(ny.at('2026-11-02')!).toISOString()).toBe('2026-11-02T05:00:00.000Z');
    expect(new Date(new ZoneMidnights('Asia/Kolkata').at('2026-01-01')!).toISOString()).toBe(
      '2025-12-31T18:30:00.000Z',
    );
    expect(ny.at('2026-02-29')).toBeNull();
    expect(ny.at('2028-02-29')).not.toBeNull();
  });

  it('reads instants with Z or an offset, with or without seconds and fractions, and nothing else', () => {
    expect(parseInstant('2026-01-02T03:04:05Z')).toBe(Date.UTC(2026, 0, 2, 3, 4, 5));
    expect(parseInstant('2026-01-02T03:04Z')).toBe(Date.UTC(2026, 0, 2, 3, 4));
    expect(parseInstant('2026-01-02T03:04:05.1234+07:00')).toBe(Date.UTC(2026, 0, 1, 20, 4, 5, 123));
    expect(parseInstant('2026-01-02T03:04:05-0130')).toBe(Date.UTC(2026, 0, 2, 4, 34, 5));
    for (const bad of [
      '2026-01-02T03:04:05',
      '2026-01-02 03:04:05Z',
      '2026-01-02T24:00:00Z',
      '2026-01-02T03:04:05.Z',
      '2026-01-02T03:04:05+7',
      '2026-01-02T03:04:60Z',
      '2026-01-02T03:04:05Zx',
    ])
      expect(parseInstant(bad), bad).toBeNull();
  });

  it('reads integer and decimal amounts within their bounds', () => {
    expect(parseMinor('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
    expect(parseMinor('-9007199254740991')).toBe(-Number.MAX_SAFE_INTEGER);
    for (const bad of ['9007199254740992', '', '-', '+5', '1.0', '1e3', ' 1', '0000000000000000001'])
      expect(parseMinor(bad), bad).toBeNull();
    expect(parseMinor('-0')).toBe(0);
    expect(parseDecimal('1,234,567.00', 'IDR')).toBe(1234567);
    expect(parseDecimal('.00', 'IDR')).toBe(0);
    expect(parseDecimal('12.5', 'USD')).toBe(1250);
    expect(parseDecimal('12.500', 'USD')).toBe(1250);
    expect(parseDecimal('12.505', 'USD')).toBeNull();
    expect(parseDecimal('1,23', 'USD')).toBeNull();
    expect(parseDecimal('1234,5', 'USD', true)).toBe(123450);
    expect(parseDecimal('', 'IDR')).toBeNull();
  });

  it('cuts text at a character, never inside a surrogate pair', () => {
    expect(truncateChars('a😀b', 2)).toBe('a😀');
    expect(truncateChars('abc', 5)).toBe('abc');
  });
});
