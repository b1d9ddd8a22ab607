/** The words of reconciliation's wire (docs/reconciliation.md, Import pipeline), each list written once. */
import type { BankFormat, ProviderFormat, ReconSource } from './formats/types.ts';

export const sources = ['provider_report', 'bank_statement'] as const satisfies readonly ReconSource[];
export const origins = ['upload', 'pull'] as const;
export const adapters = ['provider_a', 'provider_b', 'provider_c', 'provider_a_platform'] as const;
export type ReconAdapter = (typeof adapters)[number];
export const providerFormats = [
  'generic',
  'provider_a',
  'provider_b',
  'provider_c',
] as const satisfies readonly ProviderFormat[];
export const bankFormats = [
  'generic_bank',
  'bca',
  'bca_personal',
  'mandiri',
  'mt940',
] as const satisfies readonly BankFormat[];
export const rowTypes = ['payment', 'refund', 'payout', 'fee', 'adjustment', 'credit', 'debit'] as const;
/** A checkout method (spec Checkout), or null: what a fee rule applies to. */
export const checkoutMethods = ['qris', 'va', 'ewallet', 'card', 'retail', 'provider_c'] as const;
export const runTriggers = ['import', 'manual', 'schedule'] as const;
