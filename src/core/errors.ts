import { GraphQLError } from 'graphql';

/** The closed set of canonical error codes and the HTTP status each one means. */
export const statusOf = {
  validation_error: 400,
  invalid_cursor: 400,
  invalid_limit: 400,
  invalid_amount: 400,
  bank_account_missing: 400,
  idempotency_required: 400,
  url_not_allowed: 400,
  unsupported_currency: 400,
  invalid_json: 400,
  invalid_signature: 401,
  invalid_key: 401,
  insufficient_scope: 403,
  owner_required: 403,
  forbidden_in_live_mode: 403,
  /** A signed download link that is wrong or expired (src/core/signed-url.ts). */
  invalid_link: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  invalid_transition: 409,
  insufficient_balance: 409,
  idempotency_conflict: 409,
  idempotency_in_flight: 409,
  cannot_revoke_self: 409,
  tier_cap_reached: 409,
  no_recipient: 409,
  owner_immutable: 409,
  has_open_balance: 409,
  already_succeeded: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  no_adapter_supports_methods: 422,
  gateway_error: 422,
  region_immutable: 422,
  tier_cap_exceeded: 422,
  endpoint_disabled: 422,
  amount_exceeds_remaining: 422,
  rate_limited: 429,
  internal_error: 500,
  provider_error: 502,
  email_failed: 502,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof statusOf;

/** Resources whose wire spelling of a code differs from the canonical one (spec "Errors"). */
export type Resource =
  | 'api_key'
  | 'workspace'
  | 'event'
  | 'member'
  | 'checkout_session'
  | 'invoice'
  | 'plan'
  | 'dunning_policy'
  | 'refund'
  | 'portal_session'
  | 'payout'
  | 'webhook_endpoint'
  | 'adapter'
  | 'customer'
  | 'payment'
  | 'receipt'
  | 'ledger'
  | 'template'
  | 'subscription'
  | 'test_clock'
  | 'generic';

const UPPER_VALIDATION = { validation_error: 'VALIDATION_ERROR' } as const;
const spellings: Partial<Record<Resource, Partial<Record<ErrorCode, string>>>> = {
  checkout_session: { ...UPPER_VALIDATION, idempotency_in_flight: 'conflict' },
  invoice: UPPER_VALIDATION,
  portal_session: UPPER_VALIDATION,
  plan: {
    ...UPPER_VALIDATION,
    not_found: 'NOT_FOUND',
    idempotency_conflict: 'IDEMPOTENCY_MISMATCH',
    idempotency_in_flight: 'IDEMPOTENCY_MISMATCH',
  },
  // Plan configuration (docs/decisions.md, Dunning policies): spelled as plans.
  dunning_policy: {
    ...UPPER_VALIDATION,
    not_found: 'NOT_FOUND',
    idempotency_conflict: 'IDEMPOTENCY_MISMATCH',
    idempotency_in_flight: 'IDEMPOTENCY_MISMATCH',
  },
  // spec Refunds: every code upper case; over-limit is 422 VALIDATION_ERROR
  refund: {
    ...UPPER_VALIDATION,
    not_found: 'NOT_FOUND',
    idempotency_conflict: 'IDEMPOTENCY_CONFLICT',
    idempotency_in_flight: 'IDEMPOTENCY_CONFLICT',
    amount_exceeds_remaining: 'VALIDATION_ERROR',
  },
  payout: { idempotency_in_flight: 'invalid_transition' },
};
const everywhere: Partial<Record<ErrorCode, string>> = {
  rate_limited: 'RATE_LIMITED',
  unsupported_currency: 'UNSUPPORTED_CURRENCY',
  provider_error: 'PROVIDER_ERROR',
  idempotency_in_flight: 'idempotency_conflict',
  amount_exceeds_remaining: 'validation_error',
  invalid_json: 'validation_error',
};

/** The code string a resource's clients see, in REST and in GraphQL `extensions.code`. */
export function spell(code: ErrorCode, resource: Resource = 'generic'): string {
  return spellings[resource]?.[code] ?? everywhere[code] ?? code;
}

/** The only error type services throw on purpose; anything else is masked as internal_error. */
export class DomainError extends GraphQLError {
  readonly canonical: ErrorCode;
  readonly status: number;
  readonly field?: string;
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { field?: string; resource?: Resource; headers?: Record<string, string> } = {},
  ) {
    const spelled = spell(code, opts.resource);
    super(message, { extensions: { code: spelled, ...(opts.field ? { field: opts.field } : {}) } });
    this.canonical = code;
    this.status = statusOf[code];
    this.field = opts.field;
    this.headers = opts.headers;
  }
}

/** Small constructors bound to a resource, so every module spells its codes the same way. */
export function errorsFor(resource: Resource) {
  return {
    notFound: (what: string = resource) =>
      new DomainError('not_found', `No such ${what.replace(/_/g, ' ')}`, { resource }),
    validation: (field: string, message: string) => new DomainError('validation_error', message, { field, resource }),
    conflict: (message: string) => new DomainError('conflict', message, { resource }),
    of: (code: ErrorCode, message: string, field?: string) => new DomainError(code, message, { field, resource }),
  };
}

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;
