// Calendar days in a workspace's IANA time zone, with Intl only: settlement lag, the bank pass's date window.

const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone);
  if (!f) {
    // en-CA writes ISO order; throws a RangeError for an unknown zone, which is what the caller should see.
    f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formats.set(timeZone, f);
  }
  return f;
}

/** The `YYYY-MM-DD` date `instant` falls on in `timeZone`. */
export function calendarDate(instant: Date, timeZone: string): string {
  const parts = formatFor(timeZone).formatToParts(instant);
  const of = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${of('year')}-${of('month')}-${of('day')}`;
}

const dateShape = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The day number of a `YYYY-MM-DD` date (days since 1970-01-01), for differences in whole calendar days. */
export function dayNumber(date: string): number {
  const m = dateShape.exec(date);
  if (!m) throw new RangeError(`${date} is not a YYYY-MM-DD date`);
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (new Date(ms).toISOString().slice(0, 10) !== date) throw new RangeError(`${date} is not a calendar date`);
  return ms / 86_400_000;
}

/** Whole calendar days from `from` to `to` (both `YYYY-MM-DD`): negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  return dayNumber(to) - dayNumber(from);
}
