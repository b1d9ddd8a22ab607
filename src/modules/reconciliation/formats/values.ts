// Cell values shared by the formats: amounts in minor units, currencies, dates and instants, and the row error.
import { currencyExponent } from '../../../core/money.ts';
import { ReconFileError } from './types.ts';

export function rowError(field: string, line: number, message: string): ReconFileError {
  return new ReconFileError('invalid_row', field, `line ${line}: ${message}`, line);
}

/** A signed integer of minor units (`^-?[0-9]{1,18}$`, |x| <= 2^53 - 1), else null; read by character (hot path). */
export function parseMinor(text: string): number | null {
  const n = text.length;
  const negative = text.charCodeAt(0) === 45;
  let i = negative ? 1 : 0;
  if (n - i < 1 || n - i > 18) return null;
  let v = 0;
  for (; i < n; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return null;
    v = v * 10 + d;
  }
  if (v > Number.MAX_SAFE_INTEGER) return null;
  return negative && v !== 0 ? -v : v;
}

const currencies = new Set(Object.keys(currencyExponent));

export function isKnownCurrency(code: string): boolean {
  return currencies.has(code);
}

/**
 * A decimal amount of a native export (`1,234,567.00`, `.00`, or `1234,50` with `comma` decimals) in minor units of
 * `currency`: digits beyond the currency's exponent must be zero. Null when it is not such a number.
 */
export function parseDecimal(text: string, currency: string, comma = false): number | null {
  const m = (comma ? /^([0-9]{1,18})(?:,([0-9]*))?$/ : /^([0-9]{1,3}(?:,[0-9]{3})*|[0-9]{0,18})(?:\.([0-9]*))?$/).exec(
    text,
  );
  if (!m || (m[1] === '' && !m[2])) return null;
  const exponent = currencyExponent[currency] ?? 2;
  const decimals = m[2] ?? '';
  if (/[^0]/.test(decimals.slice(exponent))) return null;
  const digits = m[1].replaceAll(',', '') + decimals.slice(0, exponent).padEnd(exponent, '0');
  const n = Number(digits);
  return digits.length <= 18 && Number.isSafeInteger(n) ? n : null;
}

const monthDays = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function isCalendarDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const leap = m === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return d <= monthDays[m - 1] + (leap ? 1 : 0);
}

/** The two-digit number at `i`, else -1. */
function readTwoDigits(text: string, i: number): number {
  const a = text.charCodeAt(i) - 48;
  const b = text.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

const isoDate = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;

/** `YYYY-MM-DD` of a real calendar day, else null. */
export function parseIsoDate(text: string): [number, number, number] | null {
  const m = isoDate.exec(text);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return isCalendarDate(y, mo, d) ? [y, mo, d] : null;
}

/** UTC epoch milliseconds of 00:00 of the `YYYY-MM-DD` at the start of `text`, NaN when it is not a day. */
function readUtcDay(text: string): number {
  const c = readTwoDigits(text, 0);
  const y = readTwoDigits(text, 2);
  const m = readTwoDigits(text, 5);
  const d = readTwoDigits(text, 8);
  if (c < 0 || y < 0 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return Number.NaN;
  const year = c * 100 + y;
  return isCalendarDate(year, m, d) ? Date.UTC(year, m - 1, d) : Number.NaN;
}

/**
 * An ISO 8601 instant with `Z` or an offset (`+07:00`, `+0700`), as epoch milliseconds; seconds and a fraction
 * are optional, digits past the millisecond dropped. Read by character, as it runs once per row.
 */
export function parseInstant(text: string): number | null {
  const n = text.length;
  if (n < 17 || text.charCodeAt(10) !== 84 || text.charCodeAt(13) !== 58) return null;
  const day = readUtcDay(text);
  const h = readTwoDigits(text, 11);
  const mi = readTwoDigits(text, 14);
  if (Number.isNaN(day) || h < 0 || h > 23 || mi < 0 || mi > 59) return null;
  let i = 16;
  let s = 0;
  let ms = 0;
  if (text.charCodeAt(i) === 58) {
    s = readTwoDigits(text, i + 1);
    if (s < 0 || s > 59) return null;
    i += 3;
    if (text.charCodeAt(i) === 46) {
      let scale = 100;
      const start = ++i;
      for (let c = text.charCodeAt(i) - 48; c >= 0 && c <= 9; c = text.charCodeAt(++i) - 48) {
        ms += c * scale;
        scale /= 10;
      }
      if (i === start || i - start > 9) return null;
      ms = Math.floor(ms);
    }
  }
  const offset = parseZoneOffset(text, i);
  if (offset === null) return null;
  return day + h * 3_600_000 + mi * 60_000 + s * 1000 + ms - offset;
}

/** `Z`, `+hh:mm` or `+hhmm` filling the text from `i` to its end, in milliseconds; else null. */
function parseZoneOffset(text: string, i: number): number | null {
  const rest = text.length - i;
  const sign = text.charCodeAt(i);
  if (sign === 90) return rest === 1 ? 0 : null;
  if ((sign !== 43 && sign !== 45) || (rest !== 6 && rest !== 5)) return null;
  if (rest === 6 && text.charCodeAt(i + 3) !== 58) return null;
  const oh = readTwoDigits(text, i + 1);
  const om = readTwoDigits(text, rest === 6 ? i + 4 : i + 3);
  if (oh < 0 || oh > 23 || om < 0 || om > 59) return null;
  return (sign === 45 ? -1 : 1) * (oh * 60 + om) * 60_000;
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

  /** Epoch milliseconds of 00:00 of the `YYYY-MM-DD` day in the zone, else null. */
  at(text: string): number | null {
    let t = this.days.get(text);
    if (t === undefined) {
      const day = parseIsoDate(text);
      t = day ? this.midnight(Date.UTC(day[0], day[1] - 1, day[2])) : Number.NaN;
      if (this.days.size > 100_000) this.days.clear();
      this.days.set(text, t);
    }
    return Number.isNaN(t) ? null : t;
  }

  /** The instant whose wall time in the zone is `wall` (UTC fields read as local ones). */
  private midnight(wall: number): number {
    const first = wall - this.offsetAt(wall);
    const second = wall - this.offsetAt(first);
    return second !== first && this.offsetAt(second) === wall - second ? second : first;
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
  if (text.length === 10) return midnights.at(text);
  return parseInstant(text);
}

/** Length in code points (a surrogate pair is one character). */
export function countChars(text: string): number {
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

/** A copy of `text` that keeps no reference to a decoded chunk it was sliced from (for sets kept per file). */
export function copyString(text: string): string {
  return text.length < 13 ? text : Buffer.from(text, 'utf8').toString('utf8');
}
