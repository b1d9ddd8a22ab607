/**
 * Report periods and the per-day, per-code sums they are computed from. Whole UTC days come from
 * `ledger_daily` (kept by a trigger in every posting's transaction); the partial days at either
 * edge of an instant range come from `ledger_entries` through the (workspace, mode, postedAt)
 * index. Either way a year costs a few thousand rows, whatever the volume of entries. Reports only:
 * they read through the reader (a replica within SVC_READ_MAX_LAG_MS, src/core/db/reader.ts).
 */
import { DomainError, type Resource } from '../../core/errors.ts';
import { readerQuery } from '../../core/db/reader.ts';
import { sql } from '../../core/db/sql-template.ts';
import type { RowScope } from '../../core/resource.ts';

const DAY = 86_400_000;
const dateOnly = /^\d{4}-\d{2}-\d{2}$/;

export interface Period {
  from: Date;
  /** Exclusive end: `to` is inclusive on the wire (a date-only `to` covers that whole day). */
  until: Date;
}

/** `from` and `to` (ISO 8601 date or instant, or epoch seconds), both inclusive; `to >= from`. */
export function parsePeriod(from: unknown, to: unknown, resource: Resource): Period {
  const one = (v: unknown, field: string, end: boolean): Date => {
    if (typeof v !== 'string' || !v)
      throw new DomainError('validation_error', `${field} is required (ISO 8601)`, { field, resource });
    if (dateOnly.test(v)) {
      const d = new Date(`${v}T00:00:00.000Z`);
      if (!Number.isNaN(d.getTime())) return end ? new Date(d.getTime() + DAY) : d;
    } else {
      const d = /^\d{1,12}$/.test(v) ? new Date(Number(v) * 1000) : new Date(v);
      if (!Number.isNaN(d.getTime())) return end ? new Date(d.getTime() + 1) : d;
    }
    throw new DomainError('validation_error', `${field} must be an ISO 8601 date or instant`, { field, resource });
  };
  const p = { from: one(from, 'from', false), until: one(to, 'to', true) };
  if (p.until <= p.from)
    throw new DomainError('validation_error', 'to must be at or after from', { field: 'to', resource });
  return p;
}

export const startOfDay = (d: Date) => new Date(Math.floor(d.getTime() / DAY) * DAY);
const ceilDay = (d: Date) => new Date(Math.ceil(d.getTime() / DAY) * DAY);
export const isoDay = (d: Date) => d.toISOString().slice(0, 10);

export interface DaySum {
  day: string;
  code: string;
  debits: bigint;
  credits: bigint;
}

/** Sums per UTC day and code in [from, until), for one currency; `codeLike` narrows the codes (SQL LIKE). */
export async function daySums(
  scope: RowScope,
  currency: string,
  p: Period,
  codeLike: string | null = null,
): Promise<DaySum[]> {
  const firstDay = ceilDay(p.from);
  const lastDay = startOfDay(p.until);
  const whole = firstDay < lastDay;
  // Edges read from entries: [from, firstDay) and [lastDay, until), or the whole range when it has no full day.
  const edges = whole ? [p.from, firstDay, lastDay, p.until] : [p.from, p.until, p.until, p.until];
  const codeMatch = sql`(${codeLike}::text IS NULL OR code LIKE ${codeLike})`;
  const rows = await readerQuery<{ day: string; code: string; debits: string; credits: string }>(
    { workspaceId: scope.workspaceId, modes: [scope.mode] },
    sql`SELECT day::text AS day, code, sum(debits)::text AS debits, sum(credits)::text AS credits FROM (
       SELECT day, code, debits, credits FROM ledger_daily
        WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode} AND currency = ${currency}
          AND day >= ${isoDay(firstDay)}::date AND day < ${whole ? isoDay(lastDay) : isoDay(firstDay)}::date
          AND ${codeMatch}
       UNION ALL
       SELECT ("postedAt" AT TIME ZONE 'UTC')::date, code,
              CASE direction WHEN 'debit' THEN amount ELSE 0 END, CASE direction WHEN 'credit' THEN amount ELSE 0 END
         FROM ledger_entries
        WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode} AND currency = ${currency} AND ${codeMatch}
          AND (("postedAt" >= ${edges[0]} AND "postedAt" < ${edges[1]})
            OR ("postedAt" >= ${edges[2]} AND "postedAt" < ${edges[3]}))
     ) s GROUP BY day, code ORDER BY day, code`,
  );
  return rows.map((r) => ({ day: r.day, code: r.code, debits: BigInt(r.debits), credits: BigInt(r.credits) }));
}
