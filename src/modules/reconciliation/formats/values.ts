// Cell values shared by the formats: amounts in minor units, currencies, dates and instants, and the row error.
import { currencyExponent } from '../../../core/money.ts';
import { ReconFileError } from './types.ts';

export function rowError(field: string, line: number, message: string): ReconFileError {
  return new ReconFileError('invalid_row', field, `line ${line}: ${message}`, line);
}

const signedMinor = /^-?[0-9]{1,18}$/;

/** A signed integer of minor units (`^-?[0-9]{1,18}$`, |x| <= 2^53 - 1), else null. */
export function parseMinor(text: string): number | null {
  if (!signedMinor.test(text)) return null;
  const n = Number(text);
  if (!Number.isSafeInteger(n)) return null;
  return n === 0 ? 0 : n;
}

export function isKnownCurrency(code: string): boolean {
  return Object.hasOwn(currencyExponent, code);
}

/**
 * A decimal amount of a native export (`1,234,567.00`, or `1234,50` with `comma` decimals) in minor units of
 * `currency`: digits beyond the currency's exponent must be zero. Null when it is not such a number.
 */
export function parseDecimal(text: string, currency: string, comma = false): number | null {
  const m = (comma ? /^([0-9]{1,18})(?:,([0-9]*))?$/ : /^([0-9]{1,3}(?:,[0-9]{3})*|[0-9]{1,18})(?:\.([0-9]*))?$/).exec(
    text,
  );
  if (!m) return null;
  const exponent = currencyExponent[currency] ?? 2;
  const decimals = m[2] ?? '';
  if (/[^0]/.test(decimals.slice(exponent))) return null;
  const digits = m[1].replaceAll(',', '') + decimals.slice(0, exponent).padEnd(exponent, '0');
  const n = Number(digits);
  return digits.length <= 18 && Number.isSafeInteger(n) ? n : null;
}

export function isCalendarDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

const isoDate = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;

/** `YYYY-MM-DD` of a real calendar day, else null. */
export function parseIsoDate(text: string): [number, number, number] | null {
  const m = isoDate.exec(text);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return isCalendarDate(y, mo, d) ? [y, mo, d] : null;
}

const instant =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,9}))?)?(Z|[+-][0-9]{2}:?[0-9]{2})$/;

/** An ISO 8601 instant with `Z` or an offset, as epoch milliseconds (fractions past the millisecond dropped). */
export function parseInstant(text: string): number | null {
  const m = instant.exec(text);
  if (!m) return null;
  const [y, mo, d, h, mi] = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5])];
  const s = m[6] ? Number(m[6]) : 0;
  if (!isCalendarDate(y, mo, d) || h > 23 || mi > 59 || s > 59) return null;
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  let offset = 0;
  if (m[8] !== 'Z') {
    const digits = m[8].replace(':', '');
    const oh = Number(digits.slice(1, 3));
    const om = Number(digits.slice(3, 5));
    if (oh > 23 || om > 59) return null;
    offset = (digits[0] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  return Date.UTC(y, mo - 1, d, h, mi, s, ms) - offset;
}

/** Whether `zone` is an IANA time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Local midnights of one zone, memoised per day (a file holds few distinct days). */
export class ZoneMidnights {
  private readonly format: Intl.DateTimeFormat;
  private readonly days = new Map<string, number>();

  constructor(zone: string) {
    this.format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }

  /** Epoch milliseconds of 00:00 of the day in the zone (`key` is the day as written, for the memo). */
  at(key: string, y: number, m: number, d: number): number {
    let t = this.days.get(key);
    if (t === undefined) {
      const wall = Date.UTC(y, m - 1, d);
      t = wall - this.offsetAt(wall);
      const second = wall - this.offsetAt(t);
      if (second !== t && this.offsetAt(second) === wall - second) t = second;
      this.days.set(key, t);
    }
    return t;
  }

  /** The zone's offset from UTC at instant `t`, in milliseconds. */
  private offsetAt(t: number): number {
    const p: Record<string, number> = {};
    for (const part of this.format.formatToParts(t)) if (part.type !== 'literal') p[part.type] = Number(part.value);
    return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(t / 1000) * 1000;
  }
}

/** A provider date cell: an instant, or `YYYY-MM-DD` read as 00:00 in the workspace's zone. */
export function parseProviderDate(text: string, midnights: ZoneMidnights): number | null {
  if (text.length === 10) {
    const day = parseIsoDate(text);
    return day ? midnights.at(text, day[0], day[1], day[2]) : null;
  }
  return parseInstant(text);
}

/** Length in code points (a surrogate pair is one character). */
export function charLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** The first `max` characters (code points) of `text`. */
export function truncateChars(text: string, max: number): string {
  if (text.length <= max) return text;
  let n = 0;
  let i = 0;
  for (const ch of text) {
    if (n === max) break;
    n++;
    i += ch.length;
  }
  return text.slice(0, i);
}
