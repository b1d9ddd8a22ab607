import { DomainError } from '../core/errors.ts';
import type { ProviderKind } from './types.ts';

/**
 * Why a provider call failed. `invalid_credentials` is the adapter's `lastErrorCode` of the same
 * name; the others are `gateway_error` there.
 */
export type ProviderFailure =
  | 'invalid_credentials' // 401/403: the stored secret is wrong or revoked
  | 'timeout' // no full answer within the timeout
  | 'network' // connection refused, reset, DNS
  | 'unavailable' // 5xx or 429 from the provider
  | 'rejected' // 4xx: the provider refused this request (its code in providerCode)
  | 'not_found' // the provider does not know the charge
  | 'bad_response' // a 2xx we cannot read
  | 'unsupported'; // the adapter or product cannot do this (e.g. refund a VA payment)

/** 502 `PROVIDER_ERROR` (spec Errors): the upstream failed or refused; retry with backoff. */
export class ProviderError extends DomainError {
  readonly provider: ProviderKind;
  readonly reason: ProviderFailure;
  readonly httpStatus: number | null;
  readonly providerCode: string | null;
  readonly retryable: boolean;

  constructor(
    provider: ProviderKind,
    reason: ProviderFailure,
    message: string,
    opts: { httpStatus?: number | null; providerCode?: string | null } = {},
  ) {
    super('provider_error', `${provider}: ${message}`);
    this.name = 'ProviderError';
    this.provider = provider;
    this.reason = reason;
    this.httpStatus = opts.httpStatus ?? null;
    this.providerCode = opts.providerCode ?? null;
    this.retryable = reason === 'timeout' || reason === 'network' || reason === 'unavailable';
  }
}

export type VerificationFailure =
  | 'not_configured' // no callback token / webhook id stored: authenticity cannot be proven
  | 'missing' // the token, signature or transmission headers are absent
  | 'mismatch' // present but wrong
  | 'rejected' // the provider's verification API said it is not genuine
  | 'malformed'; // not the JSON the provider sends

/** 401 `invalid_signature`: the callback is not proven to come from the provider. Answer 401, act on nothing. */
export class CallbackVerificationError extends DomainError {
  readonly provider: ProviderKind;
  readonly reason: VerificationFailure;

  constructor(provider: ProviderKind, reason: VerificationFailure, message: string) {
    super('invalid_signature', `${provider} callback: ${message}`);
    this.name = 'CallbackVerificationError';
    this.provider = provider;
    this.reason = reason;
  }
}

export const isProviderError = (e: unknown): e is ProviderError => e instanceof ProviderError;
export const isCallbackVerificationError = (e: unknown): e is CallbackVerificationError =>
  e instanceof CallbackVerificationError;
