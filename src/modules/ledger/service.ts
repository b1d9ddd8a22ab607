/**
 * The ledger is read-only over the API (spec Ledger and reports). Reads are raw SQL on the tenant
 * role (the hot-read rule: docs/decisions.md, Performance): entries page by keyset on (postedAt, id), so a
 * deep page costs what the first does; balances come from the per-day totals (period.ts).
 */
import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { tenantQuery } from '../../core/db/client.ts';
import { sql } from '../../core/db/sql-template.ts';
import { errorsFor } from '../../core/errors.ts';
import { checkOrder, keysetSql, pageRequest, toConnection, listPageSize } from '../../core/pagination.ts';
import { checkCurrency } from '../../core/validation.ts';
import type { BalanceRow, EntryRow } from './fields.ts';
import type { ListEntriesArgs } from './schema.ts';

const err = errorsFor('ledger');
export const sourceTypes = ['checkout_session', 'invoice', 'refund', 'payout', 'adjustment', 'dispute'] as const;

export async function listLedgerEntries(ctx: Context, args: ListEntriesArgs) {
  const auth = authorize(ctx, 'svc:ledger:read');
  checkOrder(args.order, 'ledger');
  if (args.sourceType && !(sourceTypes as readonly string[]).includes(args.sourceType))
    throw err.validation('sourceType', `sourceType must be one of ${sourceTypes.join(', ')}`);
  const filters = {
    txId: args.txId ?? null,
    code: args.code ?? null,
    sourceType: args.sourceType ?? null,
    sourceId: args.sourceId ?? null,
  };
  const page = pageRequest(args, auth.workspaceId, filters, listPageSize.ledgerEntries);
  // One condition per filter given: the statement text depends only on which filters are set.
  const where = Object.entries(filters)
    .filter(([, value]) => value !== null)
    .reduce((acc, [column, value]) => sql`${acc} AND ${sql.id(column)} = ${value}`, sql.empty);
  const ks = keysetSql(page, sql`"postedAt"`);
  const rows = await tenantQuery<Omit<EntryRow, 'amount' | 'accountId'> & { amount: string }>(
    tenant(auth),
    sql`SELECT id, "txId", code, direction, amount::text AS amount, currency, "sourceType", "sourceId", memo, "postedAt"
       FROM ledger_entries WHERE "workspaceId" = ${auth.workspaceId} AND mode = ${auth.mode}${where}${ks.where}${ks.tail}`,
  );
  const entries: EntryRow[] = rows.map((r) => ({ ...r, amount: BigInt(r.amount), accountId: auth.accountId }));
  return toConnection(entries, page, auth.workspaceId, filters, (r) => r.postedAt);
}

/** Balance rows per code and currency, all time: balance = credits - debits (spec). */
export async function ledgerBalances(ctx: Context, currency?: string | null): Promise<BalanceRow[]> {
  const auth = authorize(ctx, 'svc:ledger:read');
  if (currency != null) checkCurrency(currency, 'currency', 'ledger');
  const rows = await tenantQuery<{ code: string; currency: string; debits: string; credits: string }>(
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
