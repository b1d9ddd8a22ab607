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
  /** A reconciliation file refused whole (docs/reconciliation.md, Import pipeline). */
  invalid_file: 400,
  invalid_header: 400,
  invalid_row: 400,
  invalid_signature: 401,
  invalid_key: 401,
  insufficient_scope: 403,
  owner_required: 403,
  forbidden_in_live_mode: 403,
  /** A live key of a workspace not (or no longer) activated for live mode (docs/decisions.md, Workspace lifecycle). */
  live_mode_inactive: 403,
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
  /** A price or quantity change of a subscription with a past-due invoice (docs/decisions.md, Past-due subscriptions). */
  subscription_past_due: 409,
  gone: 410,
  /** A usage event or void in a period whose invoice is no longer draft (docs/usage.md, Not built yet). */
  period_closed: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  no_adapter_supports_methods: 422,
  gateway_error: 422,
  region_immutable: 422,
  tier_cap_exceeded: 422,
  endpoint_disabled: 422,
  /** Workspace activation without `businessEmail` or an active adapter (DECISIONS §7). */
  activation_incomplete: 422,
  amount_exceeds_remaining: 422,
  /** An invitation from a workspace not activated for live mode to an address that never signed in (docs/security.md). */
  recipient_unverified: 422,
  /** A report pull the adapter cannot serve (provider_b, or an adapter not connected in this mode). */
  pull_unsupported: 422,
  rate_limited: 429,
  internal_error: 500,
  provider_error: 502,
  email_failed: 502,
  /** The database is unreachable or every connection stayed busy past the acquire timeout: retry after `Retry-After`. */
  service_unavailable: 503,
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
  | 'audit_log'
  | 'payment_method'
  | 'credit_note'
  | 'customer_balance'
  | 'coupon'
  | 'setup_session'
  | 'discount'
  | 'meter'
  | 'usage_event'
  /** Every /v1/reconciliation route: codes lower case (docs/reconciliation.md, Import pipeline). */
  | 'reconciliation'
  | 'generic';

const UPPER_VALIDATION = { validation_error: 'VALIDATION_ERROR' } as const;
const spellings: Partial<Record<Resource, Partial<Record<ErrorCode, string>>>> = {
  checkout_session: { ...UPPER_VALIDATION, idempotency_in_flight: 'conflict' },
  // docs/guides/setup-sessions.md: spelled as checkout.
  setup_session: { ...UPPER_VALIDATION, idempotency_in_flight: 'conflict' },
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
  // docs/credit-notes.md: spelled as invoices; over what remains (or is refundable) is 422 VALIDATION_ERROR.
  credit_note: { ...UPPER_VALIDATION, amount_exceeds_remaining: 'VALIDATION_ERROR' },
  // docs/usage.md, Spelling: meters are plan configuration, spelled as plans.
  meter: {
    ...UPPER_VALIDATION,
    not_found: 'NOT_FOUND',
    idempotency_conflict: 'IDEMPOTENCY_MISMATCH',
    idempotency_in_flight: 'IDEMPOTENCY_MISMATCH',
  },
  // docs/coupons.md: spelled as plans.
  coupon: {
    ...UPPER_VALIDATION,
    not_found: 'NOT_FOUND',
    idempotency_conflict: 'IDEMPOTENCY_MISMATCH',
    idempotency_in_flight: 'IDEMPOTENCY_MISMATCH',
  },
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
  /** The 1-based line of an uploaded file at fault (`invalid_row`). */
  readonly line?: number;
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { field?: string; line?: number; resource?: Resource; headers?: Record<string, string> } = {},
  ) {
    const spelled = spell(code, opts.resource);
    const where = { ...(opts.field ? { field: opts.field } : {}), ...(opts.line ? { line: opts.line } : {}) };
    super(message, { extensions: { code: spelled, ...where } });
    this.canonical = code;
    this.status = statusOf[code];
    this.field = opts.field;
    this.line = opts.line;
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

/**
 * What each code means to a client, one line each: docs/errors.md is printed from it with the
 * status and the spellings above (`npm run docs`). A code added to `statusOf` must be described.
 */
export const errorMeanings: Record<ErrorCode, string> = {
  validation_error: 'a field is missing, malformed, unknown or out of range; `error.field` names it',
  invalid_cursor: 'the pagination cursor is malformed, expired (24 h) or from another list or filter',
  invalid_limit: '`limit` is not an integer between 1 and 100',
  invalid_amount: 'an amount is not a positive whole number in the currency minor unit, or is out of range',
  bank_account_missing: 'a payout needs a bank account for the currency first (PUT /v1/payouts/bank-account)',
  idempotency_required: 'this write needs an `Idempotency-Key` header',
  url_not_allowed: 'a webhook URL points where the service will not send (private, loopback, metadata addresses)',
  unsupported_currency: 'the currency is not one the service or the chosen method supports',
  invalid_json: 'the body is not valid JSON',
  invalid_file:
    'a reconciliation file is unreadable as a whole (empty, no data row, not UTF-8, broken quoting, a line over 64 KiB); nothing was imported',
  invalid_header:
    "a reconciliation file's header has a duplicated, unknown or missing column; `error.field` names it; nothing was imported",
  invalid_row:
    'a line of a reconciliation file is wrong; `error.line` is its 1-based line (the header is line 1), `error.field` its column; nothing was imported',
  invalid_signature: 'the request signature, its timestamp (5 minutes of skew) or its canonical string is wrong',
  invalid_key: 'the API key is unknown, revoked or of the other environment',
  insufficient_scope: "the key's role (and its member's) does not grant this action (docs/scopes.md)",
  owner_required: 'only a key acting for the workspace owner may do this',
  forbidden_in_live_mode: 'a test-mode-only action (simulate, test clocks, event trigger) called with a live key',
  live_mode_inactive: 'a live key of a workspace that is not (or no longer) activated for live mode',
  invalid_link: 'a signed download link is wrong or expired',
  not_found: "no such resource in this workspace and mode (another workspace's ids answer this too)",
  method_not_allowed: 'the HTTP method does not apply to this path',
  conflict: 'the resource is not in a state that allows this; `error.message` says which',
  invalid_transition: 'the state machine has no such move from the current status (docs/states.md)',
  insufficient_balance: 'the payout exceeds the available balance; the message gives the figures',
  idempotency_conflict: 'the Idempotency-Key was used with a different request, or that request is still running',
  idempotency_in_flight: 'the first request with this Idempotency-Key is still running',
  cannot_revoke_self: 'a key cannot revoke itself',
  tier_cap_reached: "the workspace's tier allows no more of this resource (API keys; test clocks: 100 on every tier)",
  no_recipient: 'an email needs a recipient: give `to`, or set the customer email',
  owner_immutable: "the owner's membership cannot be changed or removed this way (transfer ownership instead)",
  has_open_balance: 'the workspace still holds funds or pending money movements: settle the ledger first',
  already_succeeded: 'the webhook delivery already succeeded; there is nothing to retry',
  subscription_past_due:
    'the subscription has a past-due invoice: pay it (POST /v1/invoices/:id/pay or its hosted page) before changing the price or quantity',
  gone: 'the resource existed and is no longer available (expired, purged or renamed)',
  payload_too_large: 'the body is over the size limit (1 MiB by default; 4 MiB on POST /v1/usage-events)',
  period_closed: 'the usage falls in a period whose invoice is no longer draft; bill it by other means',
  unsupported_media_type:
    'the body is not `application/json` (reconciliation uploads: not `text/csv`, `text/plain` or `application/octet-stream`)',
  no_adapter_supports_methods: 'no connected adapter serves these payment methods in this currency and mode',
  gateway_error: 'the payment adapter refused or cannot take the attempt (credentials, mode, method)',
  region_immutable: 'the workspace region cannot change after creation',
  tier_cap_exceeded: "the workspace's tier allows no more of this resource (webhook endpoints)",
  endpoint_disabled: 'the webhook endpoint is disabled or errored: enable it before retrying deliveries',
  activation_incomplete: 'activation needs `businessEmail` and one active adapter; `error.field` names the missing one',
  amount_exceeds_remaining: 'a refund is larger than what remains refundable',
  pull_unsupported: 'the adapter has no report API for a pull, or is not connected in this mode',
  recipient_unverified:
    'a workspace not yet activated for live mode invites only addresses that have signed in before (`error.field`: `email`)',
  rate_limited: 'too many requests for this rate class; wait `Retry-After` seconds',
  internal_error: 'a fault on our side; the request id in `meta.requestId` finds it in the logs',
  provider_error: 'the payment provider failed or timed out; safe to retry with the same Idempotency-Key',
  email_failed: 'the mail server refused or could not be reached',
  service_unavailable:
    'the database is unreachable or busy for now; safe to retry after `Retry-After` seconds with the same Idempotency-Key',
};
