// Tolerances are per currency in the settings (amountTolerance, feeTolerance, transferFeeTolerance): a
// currency the map does not name has none (docs/reconciliation.md, Matching rules).

/** Currency code -> a non-negative integer of minor units. */
export type ToleranceMap = Readonly<Record<string, number>>;

/** The settings' default transfer-fee band: Indonesian transfer fees are small and per transfer. */
export const defaultTransferFeeTolerance: ToleranceMap = Object.freeze({ IDR: 6500 });

/**
 * The tolerance of `currency` in `map`, 0 when unnamed. A null map is the setting's default (`{}` for amount
 * and fee tolerances, `defaultTransferFeeTolerance` for the band, passed by the caller as `fallback`); a map
 * given replaces the default whole, as a PATCH does.
 */
export function toleranceFor(map: ToleranceMap | null | undefined, currency: string, fallback: ToleranceMap = {}) {
  const value = (map ?? fallback)[currency] ?? 0;
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`tolerance of ${currency} must be an integer >= 0`);
  return BigInt(value);
}
