/**
 * The query parameters of an upload (docs/reconciliation.md, Import pipeline), checked before a byte of the body
 * is read: a parameter of the other source, an unknown one or a bad value is 400 naming it.
 */
import { errorsFor } from '../../core/errors.ts';
import type { BankFormat, ProviderFormat, ReconSource } from './formats/types.ts';
import { adapters, bankFormats, providerFormats, sources, type ReconAdapter } from './vocabulary.ts';

const err = errorsFor('reconciliation');
const MAX_PERIOD_DAYS = 366;
const DAY_MS = 86_400_000;

export interface UploadParams {
  source: ReconSource;
  adapter: ReconAdapter | null;
  bankAccountNumber: string | null;
  format: ProviderFormat | BankFormat;
  filename: string | null;
  periodStart: Date | null;
  periodEnd: Date | null;
}

const common = ['source', 'format', 'filename', 'periodStart', 'periodEnd'];
const allowed: Record<ReconSource, readonly string[]> = {
  provider_report: [...common, 'adapter'],
  bank_statement: [...common, 'bankAccountNumber'],
};

type Query = (name: string) => string | undefined;

export function checkUploadParams(names: readonly string[], query: Query): UploadParams {
  const source = query('source');
  if (source === undefined) throw err.validation('source', 'source is required');
  if (!(sources as readonly string[]).includes(source))
    throw err.validation('source', `source must be one of ${sources.join(', ')}`);
  const src = source as ReconSource;
  const stray = names.find((n) => !allowed[src].includes(n));
  if (stray) throw err.validation(stray, `${stray} is not a parameter of a ${src.replace('_', ' ')} upload`);
  const provider = src === 'provider_report';
  const format = query('format') ?? (provider ? 'generic' : 'generic_bank');
  const formats: readonly string[] = provider ? providerFormats : bankFormats;
  if (!formats.includes(format)) throw err.validation('format', `format must be one of ${formats.join(', ')}`);
  const filename = query('filename') ?? null;
  if (filename !== null && (filename.length === 0 || filename.length > 255))
    throw err.validation('filename', 'filename must be 1-255 characters');
  return {
    source: src,
    adapter: provider ? checkAdapter(query('adapter')) : null,
    bankAccountNumber: provider ? null : checkAccount(query('bankAccountNumber')),
    format: format as ProviderFormat | BankFormat,
    filename,
    ...checkPeriod(query('periodStart'), query('periodEnd')),
  };
}

function checkAdapter(v: string | undefined): ReconAdapter {
  if (v === undefined) throw err.validation('adapter', 'adapter is required for a provider report');
  if (!(adapters as readonly string[]).includes(v))
    throw err.validation('adapter', `adapter must be one of ${adapters.join(', ')}`);
  return v as ReconAdapter;
}

function checkAccount(v: string | undefined): string {
  if (v === undefined) throw err.validation('bankAccountNumber', 'bankAccountNumber is required for a bank statement');
  if (!/^[0-9A-Za-z]{5,34}$/.test(v))
    throw err.validation('bankAccountNumber', 'bankAccountNumber must be 5-34 letters or digits');
  return v;
}

/** An ISO 8601 instant with its zone, or `YYYY-MM-DD` (00:00 UTC). */
export function instant(v: string, field: string): Date {
  const date = /^\d{4}-\d{2}-\d{2}$/.test(v);
  const zoned = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/.test(v);
  const at = new Date(date ? `${v}T00:00:00Z` : v);
  if ((!date && !zoned) || Number.isNaN(at.getTime()))
    throw err.validation(field, `${field} must be an ISO 8601 instant or YYYY-MM-DD`);
  return at;
}

function checkPeriod(start: string | undefined, end: string | undefined) {
  if (start === undefined && end === undefined) return { periodStart: null, periodEnd: null };
  if (end === undefined) throw err.validation('periodEnd', 'periodEnd is required with periodStart');
  if (start === undefined) throw err.validation('periodStart', 'periodStart is required with periodEnd');
  const periodStart = instant(start, 'periodStart');
  const periodEnd = instant(end, 'periodEnd');
  if (periodEnd <= periodStart) throw err.validation('periodEnd', 'periodEnd must be after periodStart');
  if (periodEnd.getTime() - periodStart.getTime() > MAX_PERIOD_DAYS * DAY_MS)
    throw err.validation('periodEnd', `the period is at most ${MAX_PERIOD_DAYS} days`);
  return { periodStart, periodEnd };
}
