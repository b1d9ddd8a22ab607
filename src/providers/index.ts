// Entry point for services: build an adapter from its stored (decrypted) configuration.
import { ProviderA } from './provider_a.ts';
import { ProviderB } from './provider_b.ts';
import type {
  ProviderACredentials, ProviderBCredentials, Provider, ProviderOptions,
} from './types.ts';

export type ProviderConfig =
  | { kind: 'provider_a'; credentials: ProviderACredentials }
  | { kind: 'provider_b'; credentials: ProviderBCredentials };

export function createProvider(config: ProviderConfig, options: ProviderOptions = {}): Provider {
  switch (config.kind) {
    case 'provider_a':
      return new ProviderA(config.credentials, options);
    case 'provider_b':
      return new ProviderB(config.credentials, options);
  }
}

export * from './types.ts';
export { ProviderError, CallbackVerificationError, isProviderError, isCallbackVerificationError } from './errors.ts';
export type { ProviderFailure, VerificationFailure } from './errors.ts';
export { ProviderA, ProviderB };
export { providerBSignature } from './provider_b.ts';
