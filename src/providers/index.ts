// Entry point for services: build an adapter from its stored (decrypted) configuration, and
// confirm a charge the one safe way (ask the provider, capture where it must be captured).
import { ManualProvider } from './manual.ts';
import { ProviderA } from './provider_a.ts';
import { ProviderB } from './provider_b.ts';
import { ProviderC } from './provider_c.ts';
import type {
  ChargeRef,
  ChargeState,
  ManualConfig,
  Provider,
  ProviderACredentials,
  ProviderBCredentials,
  ProviderCCredentials,
  ProviderOptions,
} from './types.ts';

export type ProviderConfig =
  | { kind: 'provider_a'; credentials: ProviderACredentials }
  | { kind: 'provider_b'; credentials: ProviderBCredentials }
  | { kind: 'provider_c'; credentials: ProviderCCredentials }
  | { kind: 'manual'; config: ManualConfig };

export function createProvider(config: ProviderConfig, options: ProviderOptions = {}): Provider {
  switch (config.kind) {
    case 'provider_a':
      return new ProviderA(config.credentials, options);
    case 'provider_b':
      return new ProviderB(config.credentials, options);
    case 'provider_c':
      return new ProviderC(config.credentials, options);
    case 'manual':
      return new ManualProvider(config.config);
  }
}

/**
 * The provider's word on a charge before money moves: fetchStatus, and capture when the buyer has
 * approved and the provider needs it (provider_c). `idempotencyKey` makes the capture safe to repeat
 * (use the attempt's id). Callbacks only tell us when to ask.
 */
export async function settleCharge(
  provider: Provider,
  ref: ChargeRef,
  opts: { idempotencyKey: string },
): Promise<ChargeState> {
  const state = await provider.fetchStatus(ref);
  if (state.status === 'approved' && provider.capture) return provider.capture(ref, opts);
  return state;
}

export * from './types.ts';
export { ProviderError, CallbackVerificationError, isProviderError, isCallbackVerificationError } from './errors.ts';
export type { ProviderFailure, VerificationFailure } from './errors.ts';
export { ProviderA, ProviderB, ProviderC, ManualProvider };
export { clearProviderCTokens, MERCHANT_CUSTOMER_ID_LENGTH, merchantCustomerId } from './provider_c.ts';
export { providerBAccountSignature, providerBSignature } from './provider_b.ts';
export { maskAccount, maskEmail, maskPhone, refuseSandboxToken, SANDBOX_TOKEN_PREFIX } from './saved.ts';
