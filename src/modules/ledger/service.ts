/**
 * The ledger is read-only over the API (spec Ledger and reports). Reads are raw SQL on the tenant
 * role (the hot-read rule: docs/decisions.md, Performance): entries page by keyset on (postedAt, id), so a
 * deep page costs what the first does; balances come from the per-day totals (period.ts).
 */
import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { tenantQuery } from '../../core/db/client.ts';
import { readerQuery } from '../../core/db/reader.ts';
import { sql } from '../../core/db/sql-template.ts';
import { errorsFor } from '../../core/errors.ts';
import { keysetSql, pageRequest, toConnection } from '../../core/pagination.ts';
import { checkCurrency } from '../../core/validation.ts';
import type { BalanceRow, EntryRow } from './fields.ts';
import type { ListEntriesArgs } from './schema.ts';
import { entryList } from './list.ts';

const err = errorsFor('ledger');

export async function listLedgerEntries(ctx: Context, args: ListEntriesArgs) {
  const auth = authorize(ctx, 'svc:ledger:read');
  entryList.check(args);
  const filters = entryList.values(args);
  const page = pageRequest(args, auth.workspaceId, filters, entryList.limit);
  // One condition per filter given: the statement text depends only on which filters are set.
  const where = entryList.where(args, 'ledger_entries');
  const ks = keysetSql(page, sql`"postedAt"`);
  const rows = await tenantQuery<Omit<EntryRow, 'amount' | 'accountId'> & { amount: string }>(
    tenant(auth),
    sql`SELECT id, "txId", code, direction, amount::text AS amount, currency, "sourceType", "sourceId", memo, "postedAt"
       FROM ledger_entries WHERE "workspaceId" = ${auth.workspaceId} AND mode = ${auth.mode}${where}${ks.where}${ks.tail}`,
  );
  const entries: EntryRow[] = rows.map((r) => ({ ...r, amount: BigInt(r.amount), accountId: auth.accountId }));
  return toConnection(entries, page, auth.workspaceId, filters, (r) => r.postedAt);
}

/**
 * Balance rows per code and currency, all time: balance = credits - debits (spec). A report, so it
 * reads through the reader (a replica within SVC_READ_MAX_LAG_MS); money paths never call it.
 */
export async function ledgerBalances(ctx: Context, currency?: string | null): Promise<BalanceRow[]> {
  const auth = authorize(ctx, 'svc:ledger:read');
  if (currency != null) checkCurrency(currency, 'currency', 'ledger');
  const rows = await readerQuery<{ code: string; currency: string; debits: string; credits: string }>(
    tenant(auth),
    sql`SELECT code, currency, sum(debits)::text AS debits, sum(credits)::text AS credits FROM ledger_daily
      WHERE "workspaceId" = ${auth.workspaceId} AND mode = ${auth.mode}
        AND (${currency ?? null}::text IS NULL OR currency = ${currency ?? null})
      GROUP BY code, currency ORDER BY code, currency`,
  );
  return rows.map((r) => {
    const debits = BigInt(r.debits);
    const credits = BigInt(r.credits);
    return { code: r.code, currency: r.currency, debits, credits, balance: credits - debits };
  });
}
