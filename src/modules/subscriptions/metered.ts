/**
 * The metered prices a subscription bills besides `priceId` (docs/usage.md, Subscriptions and
 * metered prices): chosen at create, immutable after.
 */
import { sql as q, type Sql } from '../../core/db/sql.ts';
import type { RowScope } from '../../core/resource.ts';
import type { Price } from '../../generated/prisma/client.ts';
import { billsInArrears, isMetered } from '../plans/metered.ts';
import { err } from './checks.ts';

const field = 'meteredPriceIds';

/**
 * Default: every active metered price of the plan in `price`'s currency but `price` itself, in the
 * plan's price order. A given list must name only those (no repeats) and is kept in that order.
 */
export async function meteredPriceIdsFor(sql: Sql, scope: RowScope, price: Price, given: unknown): Promise<string[]> {
  const rows = await sql.query<{ id: string }>(
    q`SELECT id FROM prices WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
      AND "planId" = ${price.planId} AND currency = ${price.currency} AND active AND "meterId" IS NOT NULL
      AND id <> ${price.id} ORDER BY position, "createdAt", id`,
  );
  const candidates = rows.map((r) => r.id);
  if (given === undefined || given === null) return candidates;
  if (!Array.isArray(given) || !given.every((x) => typeof x === 'string'))
    throw err.validation(field, 'meteredPriceIds must be a list of pr_ price ids');
  if (new Set(given).size !== given.length) throw err.validation(field, 'meteredPriceIds names a price twice');
  const stranger = given.find((x) => !candidates.includes(x));
  if (stranger !== undefined)
    throw err.validation(
      field,
      `${stranger} is not an active metered price of the plan in ${price.currency} other than priceId`,
    );
  return candidates.filter((x) => given.includes(x));
}

/**
 * Renewal invoices do not bill meters yet (docs/usage.md, Not built yet): in live mode a subscription that
 * would bill a meter is refused rather than under-billed. Test mode takes it, for current usage.
 * `meteredPriceIds: []` opts a live subscription out of a plan's metered prices.
 */
export function refuseUnbilledMeters(scope: RowScope, price: Price, meteredPriceIds: string[]) {
  if (scope.mode !== 'live') return;
  const why = 'metered prices are not billed at renewal yet, so live subscriptions cannot bill them';
  if (isMetered(price)) throw err.validation('priceId', `${why}: choose a licensed price`);
  if (meteredPriceIds.length > 0) throw err.validation(field, `${why}: send meteredPriceIds: []`);
}

/** PATCH: the list is immutable; a price change may neither reach nor leave a metered price. */
export function refuseMeteredChange(sent: { meteredPriceIds?: unknown }) {
  if (sent.meteredPriceIds !== undefined) throw err.validation(field, 'meteredPriceIds cannot change');
}

/** Moving `priceId` to or from a metered price is refused (the metered period would need closing). */
export function refuseMeteredMove(current: Price, target: Price) {
  if (current.id !== target.id && (isMetered(current) || isMetered(target)))
    throw err.validation('priceId', 'a subscription cannot move its priceId to or from a metered price');
}

export { billsInArrears };
