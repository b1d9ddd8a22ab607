/**
 * Customer balances (docs/credit-notes.md, Customer balance): read per customer and currency, the
 * transactions listed with cursors, and merchant adjustments. Every change goes through post.ts.
 */
import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant, type Tx } from '../../core/db/client.ts';
import { errorsFor } from '../../core/errors.ts';
import { isCurrency } from '../../core/money.ts';
import { keysetList } from '../../core/pagination.ts';
import { scoped, type RowScope } from '../../core/resource.ts';
import { checkCurrency, validateMetadata } from '../../core/validation.ts';
import { clockTimeFor } from '../../core/business-time.ts';
import { changeBalance } from './post.ts';
import { balanceTransactionList } from './list.ts';
import type { CreateBalanceTransactionInput, ListBalanceTransactionsArgs } from './schema.ts';

const err = errorsFor('customer_balance');

async function customerOf(tx: Tx, scope: RowScope, id: string) {
  const c = await tx.customer.findFirst({ where: { ...scoped(scope), id }, select: { id: true, testClockId: true } });
  if (!c) throw err.notFound('customer');
  return c;
}

export interface CustomerBalanceView {
  customerId: string;
  balances: { currency: string; amount: bigint }[];
}

/** GET /v1/customers/:id/balance: every currency the customer ever held credit in (amount ≥ 0). */
export async function getCustomerBalance(ctx: Context, customerId: string): Promise<CustomerBalanceView> {
  const auth = authorize(ctx, 'svc:customer_balance:read');
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    await customerOf(tx, scope, customerId);
    const rows = await tx.customerBalance.findMany({
      where: { ...scoped(scope), customerId },
      orderBy: { currency: 'asc' },
    });
    return { customerId, balances: rows.map((r) => ({ currency: r.currency, amount: r.amount })) };
  });
}

export async function listBalanceTransactions(ctx: Context, args: ListBalanceTransactionsArgs) {
  const auth = authorize(ctx, 'svc:customer_balance:read');
  const scope = tenant(auth);
  balanceTransactionList.check(args);
  if (args.customerId) await inTenant(scope, (tx) => customerOf(tx, scope, String(args.customerId)));
  const filters = balanceTransactionList.values(args);
  return keysetList(
    {
      args: balanceTransactionList.paged(args),
      workspaceId: auth.workspaceId,
      filters,
      limit: balanceTransactionList.limit,
      column: balanceTransactionList.position,
    },
    (ks) =>
      inTenant(scope, (tx) =>
        tx.customerBalanceTransaction.findMany({
          where: { ...scoped(auth), AND: [...balanceTransactionList.prisma(args), ks.where] },
          orderBy: ks.orderBy,
          take: ks.take,
        }),
      ),
  );
}

export async function getBalanceTransaction(ctx: Context, id: string, customerId?: string | null) {
  const auth = authorize(ctx, 'svc:customer_balance:read');
  const scope = tenant(auth);
  const row = await inTenant(scope, (tx) =>
    tx.customerBalanceTransaction.findFirst({
      where: { ...scoped(scope), id, ...(customerId ? { customerId } : {}) },
    }),
  );
  if (!row) throw err.notFound('customer_balance_transaction');
  return row;
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

/**
 * POST /v1/customers/:id/balance-transactions: a merchant adjustment (+ credit, − debit), posted
 * D `revenue:adjustments` / C `customer_credit` or the reverse; a debit past 0 is 409 `insufficient_balance`.
 */
export async function createBalanceTransaction(ctx: Context, customerId: string, input: CreateBalanceTransactionInput) {
  const auth = authorize(ctx, 'svc:customer_balance:write');
  if (!isInt(input.amount) || input.amount === 0)
    throw err.validation(
      'amount',
      'amount must be a non-zero integer in the smallest currency unit (+ credit, - debit)',
    );
  const currency = checkCurrency(input.currency, 'currency', 'customer_balance');
  if (!isCurrency(currency)) throw err.of('unsupported_currency', `Currency ${currency} is not supported`, 'currency');
  if (input.description != null && (typeof input.description !== 'string' || input.description.length > 500))
    throw err.validation('description', 'description must be a string of at most 500 characters');
  const metadata = input.metadata == null ? null : validateMetadata(input.metadata, 'metadata', 'customer_balance');
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    const customer = await customerOf(tx, scope, customerId);
    const at = await clockTimeFor(tx, { ...scope, testClockId: customer.testClockId });
    return changeBalance(
      tx,
      scope,
      {
        customerId,
        currency,
        amount: BigInt(input.amount as number),
        type: 'adjustment',
        description: input.description ?? null,
        metadata,
        at,
        counterpart: { code: 'revenue:adjustments', sourceType: 'adjustment' },
      },
      { requestId: ctx.requestId, source: 'api' },
    );
  });
}
