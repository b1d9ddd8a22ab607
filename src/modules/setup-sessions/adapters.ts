/**
 * Who can save what (docs/guides/setup-sessions.md, Adapter choice): merchant-connected adapters
 * first, in the order provider_a, provider_b, provider_c, each offering what its provider client says
 * it can tokenize and charge off session in the currency (`savableTypes`); then, in test mode only,
 * the managed sandbox, which saves every type in IDR and USD. Live managed tokenization waits for the
 * platform client (as live managed refunds do), so live sessions offer merchant-connected adapters only.
 */
import type { AnyTx } from '../../core/db/sql.ts';
import type { RowScope } from '../../core/resource.ts';
import { logger } from '../../core/logger.ts';
import type { Adapter } from '../../generated/prisma/client.ts';
import type { SavedMethodType } from '../../providers/types.ts';
import { enabledAdapters } from '../adapters/service.ts';
import { adapterRows, isOnline, providerFor, type OnlineKind } from '../adapters/providers.ts';
import { SANDBOX_ADAPTER } from '../payment-methods/service.ts';
import { paymentMethodTypes } from '../payment-methods/states.ts';

export interface SetupAdapter {
  /** The adapter name a session and its method carry (`provider_a_platform` for the sandbox). */
  name: OnlineKind | typeof SANDBOX_ADAPTER;
  types: SavedMethodType[];
  /** The stored adapter (its credentials); null for the sandbox. */
  row: Adapter | null;
}

const order: readonly OnlineKind[] = ['provider_a', 'provider_b', 'provider_c'];
/** The sandbox's currencies (docs/guides/payment-methods.md). */
const sandboxCurrencies: readonly string[] = ['IDR', 'USD'];

/** The adapters that can save methods in `currency` for this workspace and mode, best first. */
export async function setupAdapters(tx: AnyTx, scope: RowScope, currency: string): Promise<SetupAdapter[]> {
  const enabled = await enabledAdapters(tx, scope);
  const kinds = order.filter((k) => enabled.some((a) => a.configured && a.kind === k));
  const rows = await adapterRows(tx, scope, kinds);
  const out: SetupAdapter[] = [];
  for (const kind of kinds) {
    const row = rows.find((r) => r.kind === kind && isOnline(r.kind));
    if (!row) continue;
    let types: SavedMethodType[] = [];
    try {
      types = providerFor(row).savableTypes?.(currency) ?? [];
    } catch (e) {
      logger.warn({ adapter: kind, err: (e as Error).message }, 'adapter without a usable client: saves nothing');
    }
    if (types.length) out.push({ name: kind, types, row });
  }
  if (scope.mode === 'test' && sandboxCurrencies.includes(currency))
    out.push({ name: SANDBOX_ADAPTER, types: [...paymentMethodTypes], row: null });
  return out;
}

/** The adapter that saves `type` (the first that can), or undefined. */
export const adapterFor = (adapters: readonly SetupAdapter[], type: string) =>
  adapters.find((a) => (a.types as string[]).includes(type));

/** The types any of `adapters` saves, in the canonical order. */
export const savableOf = (adapters: readonly SetupAdapter[]) =>
  paymentMethodTypes.filter((t) => adapters.some((a) => (a.types as string[]).includes(t)));
