// Objects a provider's report should have had (docs/reconciliation.md, Exceptions): captured payments and
// succeeded refunds of the import's adapter, in the file's currencies, captured inside its period, that no row names.
import { exceptionAmounts, type ExceptionAmounts } from './exceptions.ts';

export interface ExpectedObject {
  kind: 'payment' | 'refund';
  id: string;
  adapter: string;
  currency: string;
  /** As stored (> 0). */
  amount: number;
  /** Captured payment, or succeeded refund, per its machine (passed in). */
  captured: boolean;
  capturedAt: Date;
}

export interface ImportScope {
  adapter: string;
  /** The currencies present in the file. */
  currencies: readonly string[];
  /** [periodStart, periodEnd): end exclusive. */
  periodStart: Date;
  periodEnd: Date;
}

export interface MissingAtProvider extends ExceptionAmounts {
  category: 'missing_at_provider';
  object: { type: 'payment' | 'refund'; id: string };
  details: Record<string, never>;
}

/**
 * The `missing_at_provider` exceptions of an import: every in-scope object no row names. `named` holds the ids
 * every row names, claimed or in an exception (an object a row names is never missing). The expected amount is
 * signed as the provider's balance sees it (a refund's is negative), so the difference is -expected.
 */
export function missingAtProvider(
  objects: readonly ExpectedObject[],
  scope: ImportScope,
  named: ReadonlySet<string>,
): MissingAtProvider[] {
  const from = scope.periodStart.getTime();
  const to = scope.periodEnd.getTime();
  return objects
    .filter(
      (o) =>
        o.captured &&
        o.adapter === scope.adapter &&
        scope.currencies.includes(o.currency) &&
        o.capturedAt.getTime() >= from &&
        o.capturedAt.getTime() < to &&
        !named.has(o.id),
    )
    .map((o) => ({
      category: 'missing_at_provider' as const,
      object: { type: o.kind, id: o.id },
      ...exceptionAmounts({ category: 'missing_at_provider', expected: o.kind === 'payment' ? o.amount : -o.amount }),
      details: {},
    }));
}
