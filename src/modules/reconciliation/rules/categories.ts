// The vocabularies of the matching rules (docs/reconciliation.md, Matching rules): exception categories, match
// rules, and the reasons a provider row claims nothing. None is a state of a machine; they are outcomes.

export const exceptionCategories = [
  'missing_in_ledger',
  'missing_at_provider',
  'amount_mismatch',
  'fee_mismatch',
  'currency_mismatch',
  'duplicate',
  'late_settlement',
  'unknown_bank_credit',
] as const;
export type ExceptionCategory = (typeof exceptionCategories)[number];

export const matchRules = [
  'provider_reference',
  'reference',
  'amount_date',
  'standalone_fee',
  'batch_transfer',
  'bank_reference',
  'bank_amount',
  'payout_reference',
  'manual',
] as const;
export type MatchRule = (typeof matchRules)[number];

/** Why a provider row claims no object (`missing_in_ledger`'s `details.reason`). */
export const missingReasons = [
  'unknown_reference',
  'wrong_kind',
  'adapter_mismatch',
  'not_captured',
  'no_reference',
  'ambiguous',
  'adjustment',
] as const;
export type MissingReason = (typeof missingReasons)[number];

/** The objects a provider row can claim. */
export type ObjectKind = 'payment' | 'refund' | 'payout';
/** Our side of an exception: an object or a settlement batch. */
export type ExceptionObjectType = ObjectKind | 'settlement_batch';

/** What `adapter` holds for the merchant (debited at capture, credited by refunds, fees and transfers). */
export const settlementAccount = (adapter: string) => `settlement:${adapter}`;
/** The provider-fee expense account of `adapter`. */
export const gatewayAccount = (adapter: string) => `gateway:${adapter}`;

/** How an exception was closed (docs/reconciliation.md, Exceptions). */
export const resolutions = ['accepted', 'written_off', 'linked', 'auto_resolved'] as const;
export type Resolution = (typeof resolutions)[number];
/** Each resolution by name (`resolution.accepted`), so code names it without spelling it. */
export const resolution = Object.fromEntries(resolutions.map((r) => [r, r])) as { [K in Resolution]: K };
