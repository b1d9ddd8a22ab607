/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
export type AdvanceTestClockInput = {
  /** Later than the current frozenTime, at most 5 years on. */
  frozenTime?: string | null | undefined;
};

export type CancelSubscriptionInput = {
  /** true: cancel at the period end (as PATCH cancelAtPeriodEnd). */
  atPeriodEnd?: boolean | null | undefined;
};

/** Replaces the whole manual configuration. */
export type ConfigureManualAdapterInput = {
  bankAccounts?: Array<ManualBankAccountInput> | null | undefined;
  instructions?: string | null | undefined;
  staticQrImageUrl?: string | null | undefined;
};

export type ConnectProviderAAdapterInput = {
  /** Recommended: without it inbound callbacks cannot be verified. */
  callbackToken?: string | null | undefined;
  /** xnd_development_... in test mode, xnd_production_... in live mode. */
  secretKey: string;
};

export type ConnectProviderBAdapterInput = {
  clientKey: string;
  /** `sandbox` (default) or `production`. */
  env?: string | null | undefined;
  merchantId: string;
  serverKey: string;
};

export type ConnectProviderCAdapterInput = {
  clientId: string;
  /** `live` (default) or `sandbox`. */
  mode?: string | null | undefined;
  secret: string;
};

export type CouponAppliesToInput = {
  planIds?: Array<string> | null | undefined;
};

export type CreateApiKeyInput = {
  environment?: string | null | undefined;
  name: string;
  role?: string | null | undefined;
  scopes?: Array<string> | null | undefined;
};

export type CreateCheckoutSessionInput = {
  amount: number;
  cancelUrl: string;
  currency: string;
  customerId?: string | null | undefined;
  expiresInSec?: number | null | undefined;
  lineItems?: Array<LineItemInput> | null | undefined;
  metadata?: Record<string, string> | null | undefined;
  methods: Array<string>;
  savePaymentMethod?: string | null | undefined;
  successUrl: string;
  templateId?: string | null | undefined;
};

/** Exactly one of percentOff and amountOff. */
export type CreateCouponInput = {
  /** currency -> integer amount over 0, e.g. {"IDR": 50000} */
  amountOff?: unknown;
  appliesTo?: CouponAppliesToInput | null | undefined;
  /** once, repeating or forever */
  duration?: string | null | undefined;
  /** 1-36, duration repeating only */
  durationInMonths?: number | null | undefined;
  maxRedemptions?: number | null | undefined;
  metadata?: Record<string, string> | null | undefined;
  name?: string | null | undefined;
  /** over 0 and at most 100, at most 2 decimals */
  percentOff?: number | null | undefined;
  redeemBy?: string | null | undefined;
};

/** Exactly one of lines or amount. The post-payment part goes to credit unless the parts are sent. */
export type CreateCreditNoteInput = {
  amount?: number | null | undefined;
  creditAmount?: number | null | undefined;
  invoiceId?: string | null | undefined;
  lines?: Array<CreditNoteLineInput> | null | undefined;
  memo?: string | null | undefined;
  metadata?: Record<string, string> | null | undefined;
  outOfBandAmount?: number | null | undefined;
  reason?: string | null | undefined;
  refundAmount?: number | null | undefined;
};

export type CreateCustomerBalanceTransactionInput = {
  amount?: number | null | undefined;
  currency?: string | null | undefined;
  description?: string | null | undefined;
  metadata?: Record<string, string> | null | undefined;
};

/** Every field is optional. */
export type CreateCustomerInput = {
  email?: string | null | undefined;
  /** 1-128 printable ASCII characters, unique per workspace and mode; null clears. */
  externalId?: string | null | undefined;
  metadata?: Record<string, string> | null | undefined;
  name?: string | null | undefined;
  phone?: string | null | undefined;
  /** Test mode only: the test clock the customer lives on. */
  testClockId?: string | null | undefined;
};

/** Both fields are required. */
export type CreateDunningPolicyInput = {
  /** uncollectible or void */
  finalAction?: string | null | undefined;
  /** Days after the first failure, strictly increasing (1-60). */
  retryScheduleDays?: Array<number> | null | undefined;
};

/** spec Invoices create. subtotal and total are computed by the server: sending them is refused. */
export type CreateInvoiceInput = {
  /** Finalization applies the customer's credit in the invoice currency (default true). */
  applyCustomerBalance?: boolean | null | undefined;
  /** A cpn_ coupon discounting the invoice before tax (at most one; docs/coupons.md). */
  couponId?: string | null | undefined;
  currency?: string | null | undefined;
  customerId?: string | null | undefined;
  discount?: number | null | undefined;
  dueAt?: string | null | undefined;
  lines?: Array<InvoiceLineInput> | null | undefined;
  /** At most 500 characters; stored in metadata.memo. */
  memo?: string | null | undefined;
  /** Custom keys; memo is reserved. */
  metadata?: Record<string, string> | null | undefined;
  /** draft (default) or open. */
  status?: string | null | undefined;
  subscriptionId?: string | null | undefined;
  /** @deprecated Computed by the server; refused when sent. */
  subtotal?: number | null | undefined;
  tax?: number | null | undefined;
  /** A template of kind invoice. */
  templateId?: string | null | undefined;
  /** @deprecated Computed by the server; refused when sent. */
  total?: number | null | undefined;
};

export type CreateMeterInput = {
  /** count, unique_count, sum, min, max, average, latest or time_weighted_sum */
  aggregation?: string | null | undefined;
  description?: string | null | undefined;
  eventName?: string | null | undefined;
  /** property -> list of 1-100 accepted string forms */
  filters?: unknown;
  /** at most 3 property names */
  groupBy?: Array<string> | null | undefined;
  /** ^[a-z0-9][a-z0-9_]{0,63}$, unique per workspace and mode */
  key?: string | null | undefined;
  metadata?: Record<string, string> | null | undefined;
  name?: string | null | undefined;
  unit?: string | null | undefined;
  /** the property counted; null exactly for count */
  valueProperty?: string | null | undefined;
};

/** Test mode only: a sandbox method from a scenario (docs/guides/payment-methods.md). */
export type CreatePaymentMethodInput = {
  bank?: string | null | undefined;
  customerId?: string | null | undefined;
  ewalletProvider?: string | null | undefined;
  expMonth?: number | null | undefined;
  expYear?: number | null | undefined;
  metadata?: Record<string, string> | null | undefined;
  /** success (default), setup_declined, charge_declined, ... */
  scenario?: string | null | undefined;
  setDefault?: boolean | null | undefined;
  /** card (default), ewallet, direct_debit, paypal */
  type?: string | null | undefined;
};

export type CreatePayoutInput = {
  amount?: number | null | undefined;
  bankAccountHolder?: string | null | undefined;
  bankAccountNumber?: string | null | undefined;
  bankCode?: string | null | undefined;
  bankName?: string | null | undefined;
  currency?: string | null | undefined;
  method?: string | null | undefined;
  note?: string | null | undefined;
};

export type CreatePlanInput = {
  active?: boolean | null | undefined;
  description?: string | null | undefined;
  dunningPolicyId?: string | null | undefined;
  /** day, week, month or year */
  interval?: string | null | undefined;
  intervalCount?: number | null | undefined;
  metadata?: Record<string, string> | null | undefined;
  meteredUnit?: string | null | undefined;
  name?: string | null | undefined;
  portalFeatures?: PortalFeaturesInput | null | undefined;
  prices?: Array<PriceInput> | null | undefined;
  trialDays?: number | null | undefined;
  /** sum, max or last; required when a price has model usage */
  usageAggregate?: string | null | undefined;
};

export type CreatePortalSessionInput = {
  customerId?: string | null | undefined;
  returnUrl?: string | null | undefined;
};

/** A manual run: every pending row (of `adapter` when given), open batches and resolvable exceptions. */
export type CreateReconciliationRunInput = {
  /** provider_a, provider_b, provider_c or provider_a_platform; default all */
  adapter?: string | null | undefined;
  /** ISO 8601 instant or YYYY-MM-DD */
  from?: string | null | undefined;
  /** ISO 8601 instant or YYYY-MM-DD, after from */
  to?: string | null | undefined;
};

export type CreateRefundInput = {
  amount?: number | null | undefined;
  chargeId?: string | null | undefined;
  metadata?: Record<string, string> | null | undefined;
  reason?: string | null | undefined;
};

export type CreateSetupSessionInput = {
  cancelUrl?: string | null | undefined;
  /** the currency future charges use (default: the workspace's) */
  currency?: string | null | undefined;
  customerId?: string | null | undefined;
  expiresInSec?: number | null | undefined;
  metadata?: Record<string, string> | null | undefined;
  setDefault?: boolean | null | undefined;
  subscriptionId?: string | null | undefined;
  successUrl?: string | null | undefined;
  /** card, ewallet, direct_debit, paypal (default: every type an adapter saves) */
  types?: Array<string> | null | undefined;
};

/** customerId and priceId are required; the first period is charged during the call unless trialing. */
export type CreateSubscriptionInput = {
  /** A cpn_ coupon applied as the subscription discount (docs/coupons.md). */
  couponId?: string | null | undefined;
  customerId?: string | null | undefined;
  metadata?: Record<string, string> | null | undefined;
  /** The plan's metered prices billed besides priceId; default every active one in its currency. */
  meteredPriceIds?: Array<string> | null | undefined;
  /** pm_test_success or pm_test_decline (test mode); null: hosted page. */
  paymentMethod?: string | null | undefined;
  /** Optional; must be the price's plan. */
  planId?: string | null | undefined;
  priceId?: string | null | undefined;
  /** Positive integer, default 1 (ignored for usage prices). */
  quantity?: number | null | undefined;
  /** 0-730; default the plan's trialDays. */
  trialDays?: number | null | undefined;
  /** Instead of trialDays: when the trial ends. */
  trialEnd?: string | null | undefined;
};

/** The first template of a kind becomes its default unless isDefault is false. */
export type CreateTemplateInput = {
  accentColor?: string | null | undefined;
  cashierLabel?: string | null | undefined;
  footerText?: string | null | undefined;
  isDefault?: boolean | null | undefined;
  /** `receipt` or `invoice`; immutable. */
  kind: string;
  logoUrl?: string | null | undefined;
  merchantAddress?: string | null | undefined;
  merchantTaxId?: string | null | undefined;
  name: string;
  showMerchantAddress?: boolean | null | undefined;
  showTax?: boolean | null | undefined;
  tagline?: string | null | undefined;
  /** Default PPN; null restores it. */
  taxLabel?: string | null | undefined;
  /** Fractional, 0.11 = 11%; 0.11 when showTax is true and no rate is given. */
  taxRate?: number | null | undefined;
  /** null restores the default bilingual line. */
  thankYouText?: string | null | undefined;
};

export type CreateTestClockInput = {
  /** The clock's starting time (ISO 8601 or epoch seconds). */
  frozenTime?: string | null | undefined;
  /** 1-255 characters. */
  name?: string | null | undefined;
};

/** quantity (integer >= 0) and timestamp (ISO 8601 or epoch seconds; default now, clock time). */
export type CreateUsageRecordInput = {
  quantity?: number | null | undefined;
  timestamp?: string | null | undefined;
};

export type CreateWebhookEndpointInput = {
  description?: string | null | undefined;
  enabled?: boolean | null | undefined;
  events?: Array<string> | null | undefined;
  /** `svc` (default) or `standard` (Standard Webhooks headers) */
  signatureFormat?: string | null | undefined;
  url?: string | null | undefined;
};

export type CreateWorkspaceInput = {
  brandName?: string | null | undefined;
  businessEmail?: string | null | undefined;
  defaultCurrency?: string | null | undefined;
  name: string;
  region?: string | null | undefined;
};

/** An invoice line by quantity or by amount, or a custom line (description, quantity, unitAmount). */
export type CreditNoteLineInput = {
  amount?: number | null | undefined;
  description?: string | null | undefined;
  invoiceLineId?: string | null | undefined;
  quantity?: number | null | undefined;
  unitAmount?: number | null | undefined;
};

export type IngestUsageEventsInput = {
  /** 1-1,000 usage events */
  events: unknown;
};

export type InviteMemberInput = {
  email: string;
  /** `admin`, `member` or `read_only` (`owner` cannot be invited). */
  role: string;
};

export type InvoiceLineInput = {
  description?: string | null | undefined;
  metadata?: Record<string, string> | null | undefined;
  priceId?: string | null | undefined;
  quantity?: number | null | undefined;
  unitAmount?: number | null | undefined;
};

export type LineItemInput = {
  description?: string | null | undefined;
  metadata?: Record<string, string> | null | undefined;
  name?: string | null | undefined;
  quantity?: number | null | undefined;
  unitAmount?: number | null | undefined;
};

export type ManualBankAccountInput = {
  accountHolder: string;
  accountNumber: string;
  bankName: string;
};

export type MarkPayoutFailedInput = {
  failureReason?: string | null | undefined;
};

/** spec Plan portalFeatures: all five booleans are required. */
export type PortalFeaturesInput = {
  selfServeCancel?: boolean | null | undefined;
  selfServeDowngrade?: boolean | null | undefined;
  selfServePause?: boolean | null | undefined;
  selfServeUpgrade?: boolean | null | undefined;
  updatePaymentMethod?: boolean | null | undefined;
};

/** spec Portal sessions: the workspace portal toggles; send only the ones to change. */
export type PortalSettingsInput = {
  cancel?: boolean | null | undefined;
  changePlan?: boolean | null | undefined;
  updatePaymentMethod?: boolean | null | undefined;
  viewInvoices?: boolean | null | undefined;
};

export type PriceInput = {
  active?: boolean | null | undefined;
  currency?: string | null | undefined;
  /** Metered only: quantity = round(value / divideBy), 1-1,000,000,000 (default 1). */
  divideBy?: number | null | undefined;
  /** An active mtr_ meter: the price bills its value (usage, tiered, volume). */
  meterId?: string | null | undefined;
  /** flat, tiered, volume or usage */
  model?: string | null | undefined;
  /** Metered only: half_up (default), up or down. */
  quantityRounding?: string | null | undefined;
  /** inclusive or exclusive (default) */
  taxMode?: string | null | undefined;
  tiers?: Array<PriceTierInput> | null | undefined;
  unitAmount?: number | null | undefined;
};

export type PriceTierInput = {
  flatAmount?: number | null | undefined;
  unitAmount?: number | null | undefined;
  /** A positive integer, or "inf" on the last tier. */
  upTo?: unknown;
};

export type ReplayEventsInput = {
  eventIds?: Array<string | number> | null | undefined;
};

export type RotateWebhookEndpointSecretInput = {
  overlapSeconds?: number | null | undefined;
};

export type SimulatePaymentInput = {
  /** success or failure */
  outcome?: string | null | undefined;
};

export type SimulatePaymentMethodInput = {
  /** expire, revoke, require_action, reactivate */
  event?: string | null | undefined;
};

export type SimulateRefundInput = {
  outcome?: string | null | undefined;
};

export type StartManagedOnboardingInput = {
  email: string;
};

export type TransferOwnershipInput = {
  /** A joined member; it becomes the owner. */
  memberId: string;
};

export type TriggerEventInput = {
  aggregateId?: string | null | undefined;
  data?: unknown;
  type?: string | null | undefined;
};

/** Only name and metadata are mutable (docs/coupons.md); null clears metadata. */
export type UpdateCouponInput = {
  metadata?: Record<string, string> | null | undefined;
  name?: string | null | undefined;
};

/** Send only changes; null clears a field. metadata replaces the stored object (null clears it). */
export type UpdateCustomerInput = {
  /** An active pm_ of this customer, charged when a subscription names none; null clears. */
  defaultPaymentMethodId?: string | null | undefined;
  email?: string | null | undefined;
  /** 1-128 printable ASCII characters, unique per workspace and mode; null clears. */
  externalId?: string | null | undefined;
  metadata?: Record<string, string> | null | undefined;
  name?: string | null | undefined;
  phone?: string | null | undefined;
};

/** Send only changes. */
export type UpdateDunningPolicyInput = {
  /** uncollectible or void */
  finalAction?: string | null | undefined;
  /** Days after the first failure, strictly increasing (1-60). */
  retryScheduleDays?: Array<number> | null | undefined;
};

/** Edits a draft (an extension): sent fields replace; lines as a whole; null clears. */
export type UpdateInvoiceInput = {
  /** A cpn_ coupon replacing the draft's; null removes it. */
  couponId?: string | null | undefined;
  discount?: number | null | undefined;
  dueAt?: string | null | undefined;
  lines?: Array<InvoiceLineInput> | null | undefined;
  memo?: string | null | undefined;
  /** Custom keys (memo is kept unless memo is sent). */
  metadata?: Record<string, string> | null | undefined;
  tax?: number | null | undefined;
  templateId?: string | null | undefined;
};

export type UpdateMemberInput = {
  /** `admin`, `member` or `read_only`. */
  role: string;
};

/** Only name, description, unit and metadata change; null clears all but name. */
export type UpdateMeterInput = {
  description?: string | null | undefined;
  metadata?: Record<string, string> | null | undefined;
  name?: string | null | undefined;
  unit?: string | null | undefined;
};

/** metadata replaces the stored object (null clears it). */
export type UpdatePaymentMethodInput = {
  metadata?: Record<string, string> | null | undefined;
};

export type UpdatePayoutBankAccountInput = {
  bankAccountHolder?: string | null | undefined;
  bankAccountNumber?: string | null | undefined;
  bankCode?: string | null | undefined;
  bankName?: string | null | undefined;
};

export type UpdatePayoutScheduleInput = {
  interval?: string | null | undefined;
  method?: string | null | undefined;
  minimumAmount?: number | null | undefined;
};

/** spec Plans update: only the mutable fields; interval, intervalCount and prices are immutable (add a price). null clears description, dunningPolicyId and metadata. */
export type UpdatePlanInput = {
  active?: boolean | null | undefined;
  description?: string | null | undefined;
  dunningPolicyId?: string | null | undefined;
  metadata?: Record<string, string> | null | undefined;
  name?: string | null | undefined;
  portalFeatures?: PortalFeaturesInput | null | undefined;
  trialDays?: number | null | undefined;
};

/** spec Price PATCH: only active is mutable. */
export type UpdatePriceInput = {
  active?: boolean | null | undefined;
};

/** Each field given replaces the stored one wholesale. */
export type UpdateReconciliationSettingsInput = {
  /** currency -> minor units, e.g. {"IDR": 100} */
  amountTolerance?: unknown;
  /** 0-31 */
  dateToleranceDays?: number | null | undefined;
  /** at most 50 of {adapter, method, currency, percent, fixed}; one per adapter, method and currency */
  feeRules?: unknown;
  /** currency -> minor units */
  feeTolerance?: unknown;
  /** 0-60 */
  lateSettlementDays?: number | null | undefined;
  /** currency -> minor units; default {"IDR": 6500} */
  transferFeeTolerance?: unknown;
};

/** Send only changes. A higher period amount applies now with a prorated invoice; a lower one from the next renewal. */
export type UpdateSubscriptionInput = {
  /** now or period_end (default: a higher amount or an interval change now, a lower one at the period end). */
  applyAt?: string | null | undefined;
  cancelAtPeriodEnd?: boolean | null | undefined;
  /** Another cpn_ coupon replaces the discount; null removes it. */
  couponId?: string | null | undefined;
  /** Replaces the stored object; null clears it. */
  metadata?: Record<string, string> | null | undefined;
  /** Immutable: any value is refused (400). */
  meteredPriceIds?: Array<string> | null | undefined;
  paymentMethod?: string | null | undefined;
  priceId?: string | null | undefined;
  /** create_prorations (default) or none. */
  prorationBehavior?: string | null | undefined;
  quantity?: number | null | undefined;
};

/** Send only changes; null clears optional text. */
export type UpdateTemplateInput = {
  accentColor?: string | null | undefined;
  cashierLabel?: string | null | undefined;
  footerText?: string | null | undefined;
  isDefault?: boolean | null | undefined;
  /** `receipt` or `invoice`; immutable. */
  kind?: string | null | undefined;
  logoUrl?: string | null | undefined;
  merchantAddress?: string | null | undefined;
  merchantTaxId?: string | null | undefined;
  name?: string | null | undefined;
  showMerchantAddress?: boolean | null | undefined;
  showTax?: boolean | null | undefined;
  tagline?: string | null | undefined;
  /** Default PPN; null restores it. */
  taxLabel?: string | null | undefined;
  /** Fractional, 0.11 = 11%; 0.11 when showTax is true and no rate is given. */
  taxRate?: number | null | undefined;
  /** null restores the default bilingual line. */
  thankYouText?: string | null | undefined;
};

export type UpdateWebhookEndpointInput = {
  description?: string | null | undefined;
  enabled?: boolean | null | undefined;
  events?: Array<string> | null | undefined;
  signatureFormat?: string | null | undefined;
  url?: string | null | undefined;
};

export type UpdateWorkspaceInput = {
  brandName?: string | null | undefined;
  businessEmail?: string | null | undefined;
  defaultCurrency?: string | null | undefined;
  name?: string | null | undefined;
  portalSettings?: PortalSettingsInput | null | undefined;
  /** Immutable: any change answers region_immutable. */
  region?: string | null | undefined;
  slug?: string | null | undefined;
  timezone?: string | null | undefined;
};

export type AdapterFieldsFragment = { kind: string, status: string, secretKeyLast4: string | null, publicConfig: unknown, configuredAt: string, lastErrorAt: string | null, lastErrorCode: string | null };

export type ManagedOnboardingFieldsFragment = { subAccountId: string | null, kybStatus: string, capabilitiesStatus: string, payoutsReady: boolean, onboardingUrl: string | null };

export type GetAdaptersQueryVariables = Exact<{ [key: string]: never; }>;


export type GetAdaptersQuery = { adapters: { provider_a: { kind: string, status: string, secretKeyLast4: string | null, publicConfig: unknown, configuredAt: string, lastErrorAt: string | null, lastErrorCode: string | null } | null, provider_b: { kind: string, status: string, secretKeyLast4: string | null, publicConfig: unknown, configuredAt: string, lastErrorAt: string | null, lastErrorCode: string | null } | null, provider_c: { kind: string, status: string, secretKeyLast4: string | null, publicConfig: unknown, configuredAt: string, lastErrorAt: string | null, lastErrorCode: string | null } | null, manual: { kind: string, status: string, secretKeyLast4: string | null, publicConfig: unknown, configuredAt: string, lastErrorAt: string | null, lastErrorCode: string | null } | null, managed: { kind: string, status: string, secretKeyLast4: string | null, publicConfig: unknown, configuredAt: string, lastErrorAt: string | null, lastErrorCode: string | null } | null } };

export type ConnectProviderAAdapterMutationVariables = Exact<{
  input: ConnectProviderAAdapterInput;
}>;


export type ConnectProviderAAdapterMutation = { connectProviderAAdapter: { kind: string, status: string, secretKeyLast4: string | null, publicConfig: unknown, configuredAt: string, lastErrorAt: string | null, lastErrorCode: string | null } };

export type ConnectProviderBAdapterMutationVariables = Exact<{
  input: ConnectProviderBAdapterInput;
}>;


export type ConnectProviderBAdapterMutation = { connectProviderBAdapter: { kind: string, status: string, secretKeyLast4: string | null, publicConfig: unknown, configuredAt: string, lastErrorAt: string | null, lastErrorCode: string | null } };

export type ConnectProviderCAdapterMutationVariables = Exact<{
  input: ConnectProviderCAdapterInput;
}>;


export type ConnectProviderCAdapterMutation = { connectProviderCAdapter: { kind: string, status: string, secretKeyLast4: string | null, publicConfig: unknown, configuredAt: string, lastErrorAt: string | null, lastErrorCode: string | null } };

export type ConfigureManualAdapterMutationVariables = Exact<{
  input: ConfigureManualAdapterInput;
}>;


export type ConfigureManualAdapterMutation = { configureManualAdapter: { kind: string, status: string, secretKeyLast4: string | null, publicConfig: unknown, configuredAt: string, lastErrorAt: string | null, lastErrorCode: string | null } };

export type GetManagedOnboardingQueryVariables = Exact<{ [key: string]: never; }>;


export type GetManagedOnboardingQuery = { managedOnboarding: { subAccountId: string | null, kybStatus: string, capabilitiesStatus: string, payoutsReady: boolean, onboardingUrl: string | null } };

export type StartManagedOnboardingMutationVariables = Exact<{
  input: StartManagedOnboardingInput;
}>;


export type StartManagedOnboardingMutation = { startManagedOnboarding: { subAccountId: string | null, kybStatus: string, capabilitiesStatus: string, payoutsReady: boolean, onboardingUrl: string | null } };

export type ApiKeyFieldsFragment = { id: string, keyId: string, name: string, role: string, scopes: Array<string>, environment: string, lastUsedAt: string | null, createdAt: string, revokedAt: string | null };

export type ListApiKeysQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  environment?: string | null | undefined;
  includeRevoked?: boolean | null | undefined;
}>;


export type ListApiKeysQuery = { apiKeys: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, keyId: string, name: string, role: string, scopes: Array<string>, environment: string, lastUsedAt: string | null, createdAt: string, revokedAt: string | null } }> } };

export type GetApiKeyQueryVariables = Exact<{
  id: string | number;
}>;


export type GetApiKeyQuery = { apiKey: { id: string, keyId: string, name: string, role: string, scopes: Array<string>, environment: string, lastUsedAt: string | null, createdAt: string, revokedAt: string | null } };

export type CreateApiKeyMutationVariables = Exact<{
  input: CreateApiKeyInput;
}>;


export type CreateApiKeyMutation = { createApiKey: { key: string | null, id: string, keyId: string, name: string, role: string, scopes: Array<string>, environment: string, lastUsedAt: string | null, createdAt: string, revokedAt: string | null } };

export type RevokeApiKeyMutationVariables = Exact<{
  id: string | number;
}>;


export type RevokeApiKeyMutation = { revokeApiKey: { id: string } };

export type AuditLogEntryFieldsFragment = { id: string, action: string, actorKeyId: string | null, actorMemberId: string | null, targetId: string | null, requestId: string | null, at: string };

export type ListAuditLogQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: string | null | undefined;
  action?: string | null | undefined;
  targetId?: string | null | undefined;
}>;


export type ListAuditLogQuery = { auditLog: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, action: string, actorKeyId: string | null, actorMemberId: string | null, targetId: string | null, requestId: string | null, at: string } }> } };

export type CheckoutSessionFieldsFragment = { id: string, arn: string, accountId: string, customerId: string | null, mode: string, status: string, amount: number, currency: string, methods: Array<string>, adapter: string | null, lineItems: unknown, successUrl: string, cancelUrl: string, hostedUrl: string, expiresAt: string, completedAt: string | null, paymentId: string | null, savePaymentMethod: string, savedPaymentMethodId: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string };

export type ListCheckoutSessionsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: string | null | undefined;
  status?: string | null | undefined;
  customerId?: string | null | undefined;
  mode?: string | null | undefined;
  createdAfter?: string | null | undefined;
  createdBefore?: string | null | undefined;
}>;


export type ListCheckoutSessionsQuery = { checkoutSessions: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, arn: string, accountId: string, customerId: string | null, mode: string, status: string, amount: number, currency: string, methods: Array<string>, adapter: string | null, lineItems: unknown, successUrl: string, cancelUrl: string, hostedUrl: string, expiresAt: string, completedAt: string | null, paymentId: string | null, savePaymentMethod: string, savedPaymentMethodId: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string } }> } };

export type GetCheckoutSessionQueryVariables = Exact<{
  id: string | number;
}>;


export type GetCheckoutSessionQuery = { checkoutSession: { id: string, arn: string, accountId: string, customerId: string | null, mode: string, status: string, amount: number, currency: string, methods: Array<string>, adapter: string | null, lineItems: unknown, successUrl: string, cancelUrl: string, hostedUrl: string, expiresAt: string, completedAt: string | null, paymentId: string | null, savePaymentMethod: string, savedPaymentMethodId: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string } };

export type CreateCheckoutSessionMutationVariables = Exact<{
  input: CreateCheckoutSessionInput;
}>;


export type CreateCheckoutSessionMutation = { createCheckoutSession: { id: string, arn: string, accountId: string, customerId: string | null, mode: string, status: string, amount: number, currency: string, methods: Array<string>, adapter: string | null, lineItems: unknown, successUrl: string, cancelUrl: string, hostedUrl: string, expiresAt: string, completedAt: string | null, paymentId: string | null, savePaymentMethod: string, savedPaymentMethodId: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string } };

export type CancelCheckoutSessionMutationVariables = Exact<{
  id: string | number;
}>;


export type CancelCheckoutSessionMutation = { cancelCheckoutSession: { id: string, arn: string, accountId: string, customerId: string | null, mode: string, status: string, amount: number, currency: string, methods: Array<string>, adapter: string | null, lineItems: unknown, successUrl: string, cancelUrl: string, hostedUrl: string, expiresAt: string, completedAt: string | null, paymentId: string | null, savePaymentMethod: string, savedPaymentMethodId: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string } };

export type ConfirmCheckoutSessionMutationVariables = Exact<{
  id: string | number;
}>;


export type ConfirmCheckoutSessionMutation = { confirmCheckoutSession: { id: string, arn: string, accountId: string, customerId: string | null, mode: string, status: string, amount: number, currency: string, methods: Array<string>, adapter: string | null, lineItems: unknown, successUrl: string, cancelUrl: string, hostedUrl: string, expiresAt: string, completedAt: string | null, paymentId: string | null, savePaymentMethod: string, savedPaymentMethodId: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string } };

export type CouponFieldsFragment = { id: string, arn: string, name: string, percentOff: number | null, amountOff: unknown, duration: string, durationInMonths: number | null, maxRedemptions: number | null, timesRedeemed: number, redeemBy: string | null, appliesTo: unknown, valid: boolean, archivedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string };

export type ListCouponsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: string | null | undefined;
  archived?: boolean | null | undefined;
}>;


export type ListCouponsQuery = { coupons: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, arn: string, name: string, percentOff: number | null, amountOff: unknown, duration: string, durationInMonths: number | null, maxRedemptions: number | null, timesRedeemed: number, redeemBy: string | null, appliesTo: unknown, valid: boolean, archivedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string } }> } };

export type GetCouponQueryVariables = Exact<{
  id: string | number;
}>;


export type GetCouponQuery = { coupon: { id: string, arn: string, name: string, percentOff: number | null, amountOff: unknown, duration: string, durationInMonths: number | null, maxRedemptions: number | null, timesRedeemed: number, redeemBy: string | null, appliesTo: unknown, valid: boolean, archivedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string } };

export type CreateCouponMutationVariables = Exact<{
  input: CreateCouponInput;
}>;


export type CreateCouponMutation = { createCoupon: { id: string, arn: string, name: string, percentOff: number | null, amountOff: unknown, duration: string, durationInMonths: number | null, maxRedemptions: number | null, timesRedeemed: number, redeemBy: string | null, appliesTo: unknown, valid: boolean, archivedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string } };

export type UpdateCouponMutationVariables = Exact<{
  id: string | number;
  input: UpdateCouponInput;
}>;


export type UpdateCouponMutation = { updateCoupon: { id: string, arn: string, name: string, percentOff: number | null, amountOff: unknown, duration: string, durationInMonths: number | null, maxRedemptions: number | null, timesRedeemed: number, redeemBy: string | null, appliesTo: unknown, valid: boolean, archivedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string } };

export type ArchiveCouponMutationVariables = Exact<{
  id: string | number;
}>;


export type ArchiveCouponMutation = { archiveCoupon: { id: string, arn: string, name: string, percentOff: number | null, amountOff: unknown, duration: string, durationInMonths: number | null, maxRedemptions: number | null, timesRedeemed: number, redeemBy: string | null, appliesTo: unknown, valid: boolean, archivedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string } };

export type CreditNoteFieldsFragment = { id: string | null, arn: string | null, accountId: string, invoiceId: string, customerId: string, number: string | null, status: string, reason: string | null, memo: string | null, currency: string, subtotal: number, discountAmount: number, tax: number, taxIncluded: number, total: number, prePaymentAmount: number, postPaymentAmount: number, refundAmount: number, creditAmount: number, outOfBandAmount: number, refundId: string | null, refundStatus: string | null, balanceTransactionId: string | null, issuedAt: string, voidedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, lines: Array<{ id: string, type: string, invoiceLineId: string | null, description: string, quantity: number, unitAmount: number, amount: number }> };

export type ListCreditNotesQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  invoiceId?: string | null | undefined;
  customerId?: string | null | undefined;
  status?: string | null | undefined;
}>;


export type ListCreditNotesQuery = { creditNotes: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string | null, arn: string | null, accountId: string, invoiceId: string, customerId: string, number: string | null, status: string, reason: string | null, memo: string | null, currency: string, subtotal: number, discountAmount: number, tax: number, taxIncluded: number, total: number, prePaymentAmount: number, postPaymentAmount: number, refundAmount: number, creditAmount: number, outOfBandAmount: number, refundId: string | null, refundStatus: string | null, balanceTransactionId: string | null, issuedAt: string, voidedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, lines: Array<{ id: string, type: string, invoiceLineId: string | null, description: string, quantity: number, unitAmount: number, amount: number }> } }> } };

export type GetCreditNoteQueryVariables = Exact<{
  id: string | number;
}>;


export type GetCreditNoteQuery = { creditNote: { id: string | null, arn: string | null, accountId: string, invoiceId: string, customerId: string, number: string | null, status: string, reason: string | null, memo: string | null, currency: string, subtotal: number, discountAmount: number, tax: number, taxIncluded: number, total: number, prePaymentAmount: number, postPaymentAmount: number, refundAmount: number, creditAmount: number, outOfBandAmount: number, refundId: string | null, refundStatus: string | null, balanceTransactionId: string | null, issuedAt: string, voidedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, lines: Array<{ id: string, type: string, invoiceLineId: string | null, description: string, quantity: number, unitAmount: number, amount: number }> } };

export type PreviewCreditNoteQueryVariables = Exact<{
  input: CreateCreditNoteInput;
}>;


export type PreviewCreditNoteQuery = { previewCreditNote: { id: string | null, arn: string | null, accountId: string, invoiceId: string, customerId: string, number: string | null, status: string, reason: string | null, memo: string | null, currency: string, subtotal: number, discountAmount: number, tax: number, taxIncluded: number, total: number, prePaymentAmount: number, postPaymentAmount: number, refundAmount: number, creditAmount: number, outOfBandAmount: number, refundId: string | null, refundStatus: string | null, balanceTransactionId: string | null, issuedAt: string, voidedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, lines: Array<{ id: string, type: string, invoiceLineId: string | null, description: string, quantity: number, unitAmount: number, amount: number }> } };

export type CreateCreditNoteMutationVariables = Exact<{
  input: CreateCreditNoteInput;
}>;


export type CreateCreditNoteMutation = { createCreditNote: { id: string | null, arn: string | null, accountId: string, invoiceId: string, customerId: string, number: string | null, status: string, reason: string | null, memo: string | null, currency: string, subtotal: number, discountAmount: number, tax: number, taxIncluded: number, total: number, prePaymentAmount: number, postPaymentAmount: number, refundAmount: number, creditAmount: number, outOfBandAmount: number, refundId: string | null, refundStatus: string | null, balanceTransactionId: string | null, issuedAt: string, voidedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, lines: Array<{ id: string, type: string, invoiceLineId: string | null, description: string, quantity: number, unitAmount: number, amount: number }> } };

export type VoidCreditNoteMutationVariables = Exact<{
  id: string | number;
}>;


export type VoidCreditNoteMutation = { voidCreditNote: { id: string | null, arn: string | null, accountId: string, invoiceId: string, customerId: string, number: string | null, status: string, reason: string | null, memo: string | null, currency: string, subtotal: number, discountAmount: number, tax: number, taxIncluded: number, total: number, prePaymentAmount: number, postPaymentAmount: number, refundAmount: number, creditAmount: number, outOfBandAmount: number, refundId: string | null, refundStatus: string | null, balanceTransactionId: string | null, issuedAt: string, voidedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, lines: Array<{ id: string, type: string, invoiceLineId: string | null, description: string, quantity: number, unitAmount: number, amount: number }> } };

export type GetCreditNotePdfQueryVariables = Exact<{
  id: string | number;
}>;


export type GetCreditNotePdfQuery = { creditNoteDocument: { contentType: string, filename: string, contentBase64: string } };

export type GetCreditNoteHtmlQueryVariables = Exact<{
  id: string | number;
}>;


export type GetCreditNoteHtmlQuery = { creditNoteDocument: { contentType: string, filename: string, contentBase64: string } };

export type GetCreditNoteEscposQueryVariables = Exact<{
  id: string | number;
  width?: number | null | undefined;
}>;


export type GetCreditNoteEscposQuery = { creditNoteDocument: { contentType: string, filename: string, contentBase64: string } };

export type SendCreditNoteEmailMutationVariables = Exact<{
  id: string | number;
  to?: string | null | undefined;
}>;


export type SendCreditNoteEmailMutation = { sendCreditNoteEmail: { sent: boolean, to: string } };

export type SubscriptionUsageFieldsFragment = { subscriptionId: string, customerId: string, currency: string, periodStart: string, periodEnd: string, asOf: string, amount: number, items: Array<{ priceId: string, meterId: string, aggregation: string, value: string, quantity: number, amount: number, groups: Array<{ dimensions: unknown, value: string }> | null }> };

export type SubscriptionCurrentUsageQueryVariables = Exact<{
  subscriptionId: string | number;
  meterId?: string | null | undefined;
  groupBy?: string | null | undefined;
}>;


export type SubscriptionCurrentUsageQuery = { subscriptionCurrentUsage: { subscriptionId: string, customerId: string, currency: string, periodStart: string, periodEnd: string, asOf: string, amount: number, items: Array<{ priceId: string, meterId: string, aggregation: string, value: string, quantity: number, amount: number, groups: Array<{ dimensions: unknown, value: string }> | null }> } };

export type CustomerCurrentUsageQueryVariables = Exact<{
  customerId: string | number;
  meterId?: string | null | undefined;
  groupBy?: string | null | undefined;
}>;


export type CustomerCurrentUsageQuery = { customerCurrentUsage: { customerId: string, asOf: string, subscriptions: Array<{ subscriptionId: string, customerId: string, currency: string, periodStart: string, periodEnd: string, asOf: string, amount: number, items: Array<{ priceId: string, meterId: string, aggregation: string, value: string, quantity: number, amount: number, groups: Array<{ dimensions: unknown, value: string }> | null }> }> } };

export type CustomerBalanceTransactionFieldsFragment = { id: string, customerId: string, currency: string, amount: number, endingBalance: number, type: string, creditNoteId: string | null, invoiceId: string | null, description: string | null, metadata: Record<string, string> | null, ledgerTxId: string, createdAt: string };

export type GetCustomerBalanceQueryVariables = Exact<{
  customerId: string;
}>;


export type GetCustomerBalanceQuery = { customerBalance: { customerId: string, balances: Array<{ currency: string, amount: number }> } };

export type ListCustomerBalanceTransactionsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  customerId?: string | null | undefined;
  currency?: string | null | undefined;
  type?: string | null | undefined;
}>;


export type ListCustomerBalanceTransactionsQuery = { customerBalanceTransactions: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, customerId: string, currency: string, amount: number, endingBalance: number, type: string, creditNoteId: string | null, invoiceId: string | null, description: string | null, metadata: Record<string, string> | null, ledgerTxId: string, createdAt: string } }> } };

export type GetCustomerBalanceTransactionQueryVariables = Exact<{
  id: string | number;
  customerId?: string | null | undefined;
}>;


export type GetCustomerBalanceTransactionQuery = { customerBalanceTransaction: { id: string, customerId: string, currency: string, amount: number, endingBalance: number, type: string, creditNoteId: string | null, invoiceId: string | null, description: string | null, metadata: Record<string, string> | null, ledgerTxId: string, createdAt: string } };

export type CreateCustomerBalanceTransactionMutationVariables = Exact<{
  customerId: string;
  input: CreateCustomerBalanceTransactionInput;
}>;


export type CreateCustomerBalanceTransactionMutation = { createCustomerBalanceTransaction: { id: string, customerId: string, currency: string, amount: number, endingBalance: number, type: string, creditNoteId: string | null, invoiceId: string | null, description: string | null, metadata: Record<string, string> | null, ledgerTxId: string, createdAt: string } };

export type CustomerFieldsFragment = { id: string, name: string | null, email: string | null, phone: string | null, externalId: string | null, metadata: Record<string, string> | null, testClockId: string | null, defaultPaymentMethodId: string | null, createdAt: string, updatedAt: string };

export type ListCustomersQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: string | null | undefined;
  email?: string | null | undefined;
  since?: string | null | undefined;
  until?: string | null | undefined;
  metadata?: Record<string, string> | null | undefined;
}>;


export type ListCustomersQuery = { customers: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, name: string | null, email: string | null, phone: string | null, externalId: string | null, metadata: Record<string, string> | null, testClockId: string | null, defaultPaymentMethodId: string | null, createdAt: string, updatedAt: string } }> } };

export type GetCustomerQueryVariables = Exact<{
  id: string | number;
}>;


export type GetCustomerQuery = { customer: { id: string, name: string | null, email: string | null, phone: string | null, externalId: string | null, metadata: Record<string, string> | null, testClockId: string | null, defaultPaymentMethodId: string | null, createdAt: string, updatedAt: string } };

export type CreateCustomerMutationVariables = Exact<{
  input: CreateCustomerInput;
}>;


export type CreateCustomerMutation = { createCustomer: { id: string, name: string | null, email: string | null, phone: string | null, externalId: string | null, metadata: Record<string, string> | null, testClockId: string | null, defaultPaymentMethodId: string | null, createdAt: string, updatedAt: string } };

export type UpdateCustomerMutationVariables = Exact<{
  id: string | number;
  input: UpdateCustomerInput;
}>;


export type UpdateCustomerMutation = { updateCustomer: { id: string, name: string | null, email: string | null, phone: string | null, externalId: string | null, metadata: Record<string, string> | null, testClockId: string | null, defaultPaymentMethodId: string | null, createdAt: string, updatedAt: string } };

export type DunningPolicyFieldsFragment = { id: string, retryScheduleDays: Array<number>, finalAction: string, createdAt: string, updatedAt: string };

export type ListDunningPoliciesQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: string | null | undefined;
}>;


export type ListDunningPoliciesQuery = { dunningPolicies: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, retryScheduleDays: Array<number>, finalAction: string, createdAt: string, updatedAt: string } }> } };

export type GetDunningPolicyQueryVariables = Exact<{
  id: string | number;
}>;


export type GetDunningPolicyQuery = { dunningPolicy: { id: string, retryScheduleDays: Array<number>, finalAction: string, createdAt: string, updatedAt: string } };

export type CreateDunningPolicyMutationVariables = Exact<{
  input: CreateDunningPolicyInput;
}>;


export type CreateDunningPolicyMutation = { createDunningPolicy: { id: string, retryScheduleDays: Array<number>, finalAction: string, createdAt: string, updatedAt: string } };

export type UpdateDunningPolicyMutationVariables = Exact<{
  id: string | number;
  input: UpdateDunningPolicyInput;
}>;


export type UpdateDunningPolicyMutation = { updateDunningPolicy: { id: string, retryScheduleDays: Array<number>, finalAction: string, createdAt: string, updatedAt: string } };

export type EventFieldsFragment = { id: string, type: string, occurredAt: string, createdAt: string, publishedAt: string | null, mode: string | null, workspaceId: string, sequence: number, data: unknown, metadata: unknown };

export type ListEventsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: string | null | undefined;
  type?: string | null | undefined;
  occurredAfter?: string | null | undefined;
  occurredBefore?: string | null | undefined;
  objectId?: string | null | undefined;
  workspaceId?: string | null | undefined;
}>;


export type ListEventsQuery = { events: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, type: string, occurredAt: string, createdAt: string, publishedAt: string | null, mode: string | null, workspaceId: string, sequence: number, data: unknown, metadata: unknown } }> } };

export type GetEventQueryVariables = Exact<{
  id: string | number;
}>;


export type GetEventQuery = { event: { id: string, type: string, occurredAt: string, createdAt: string, publishedAt: string | null, mode: string | null, workspaceId: string, sequence: number, data: unknown, metadata: unknown } };

export type ReplayEventsMutationVariables = Exact<{
  input: ReplayEventsInput;
}>;


export type ReplayEventsMutation = { replayEvents: { count: number, eventIds: Array<string> } };

export type TriggerEventMutationVariables = Exact<{
  input: TriggerEventInput;
}>;


export type TriggerEventMutation = { triggerEvent: { id: string, type: string, occurredAt: string, createdAt: string, publishedAt: string | null, mode: string | null, workspaceId: string, sequence: number, data: unknown, metadata: unknown } };

export type GetInvoicePdfQueryVariables = Exact<{
  id: string | number;
}>;


export type GetInvoicePdfQuery = { invoiceDocument: { contentType: string, filename: string, contentBase64: string } };

export type GetInvoiceHtmlQueryVariables = Exact<{
  id: string | number;
}>;


export type GetInvoiceHtmlQuery = { invoiceDocument: { contentType: string, filename: string, contentBase64: string } };

export type GetInvoiceEscposQueryVariables = Exact<{
  id: string | number;
  width?: number | null | undefined;
}>;


export type GetInvoiceEscposQuery = { invoiceDocument: { contentType: string, filename: string, contentBase64: string } };

export type SendInvoiceEmailMutationVariables = Exact<{
  id: string | number;
  to?: string | null | undefined;
}>;


export type SendInvoiceEmailMutation = { sendInvoiceEmail: { sent: boolean, to: string } };

export type InvoiceLineFieldsFragment = { id: string, description: string, quantity: number, unitAmount: number, amount: number, priceId: string | null, metadata: Record<string, string> | null };

export type InvoiceFieldsFragment = { id: string, arn: string, accountId: string, customerId: string, subscriptionId: string | null, status: string, number: string | null, currency: string, subtotal: number, discount: number, tax: number, total: number, amountPaid: number, amountDue: number, balanceApplied: number, creditedAmount: number, prePaymentCreditedAmount: number, amountRemaining: number, dueAt: string | null, issuedAt: string | null, paidAt: string | null, voidedAt: string | null, hostedInvoiceUrl: string | null, collectionAttempts: number, templateId: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, discounts: Array<{ couponId: string | null, discountId: string | null, name: string, amount: number }>, lines: Array<{ id: string, description: string, quantity: number, unitAmount: number, amount: number, priceId: string | null, metadata: Record<string, string> | null }> };

export type ListInvoicesQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: string | null | undefined;
  status?: string | null | undefined;
  customerId?: string | null | undefined;
  subscriptionId?: string | null | undefined;
}>;


export type ListInvoicesQuery = { invoices: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, arn: string, accountId: string, customerId: string, subscriptionId: string | null, status: string, number: string | null, currency: string, subtotal: number, discount: number, tax: number, total: number, amountPaid: number, amountDue: number, balanceApplied: number, creditedAmount: number, prePaymentCreditedAmount: number, amountRemaining: number, dueAt: string | null, issuedAt: string | null, paidAt: string | null, voidedAt: string | null, hostedInvoiceUrl: string | null, collectionAttempts: number, templateId: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, discounts: Array<{ couponId: string | null, discountId: string | null, name: string, amount: number }>, lines: Array<{ id: string, description: string, quantity: number, unitAmount: number, amount: number, priceId: string | null, metadata: Record<string, string> | null }> } }> } };

export type GetInvoiceQueryVariables = Exact<{
  id: string | number;
}>;


export type GetInvoiceQuery = { invoice: { id: string, arn: string, accountId: string, customerId: string, subscriptionId: string | null, status: string, number: string | null, currency: string, subtotal: number, discount: number, tax: number, total: number, amountPaid: number, amountDue: number, balanceApplied: number, creditedAmount: number, prePaymentCreditedAmount: number, amountRemaining: number, dueAt: string | null, issuedAt: string | null, paidAt: string | null, voidedAt: string | null, hostedInvoiceUrl: string | null, collectionAttempts: number, templateId: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, discounts: Array<{ couponId: string | null, discountId: string | null, name: string, amount: number }>, lines: Array<{ id: string, description: string, quantity: number, unitAmount: number, amount: number, priceId: string | null, metadata: Record<string, string> | null }> } };

export type CreateInvoiceMutationVariables = Exact<{
  input: CreateInvoiceInput;
}>;


export type CreateInvoiceMutation = { createInvoice: { id: string, arn: string, accountId: string, customerId: string, subscriptionId: string | null, status: string, number: string | null, currency: string, subtotal: number, discount: number, tax: number, total: number, amountPaid: number, amountDue: number, balanceApplied: number, creditedAmount: number, prePaymentCreditedAmount: number, amountRemaining: number, dueAt: string | null, issuedAt: string | null, paidAt: string | null, voidedAt: string | null, hostedInvoiceUrl: string | null, collectionAttempts: number, templateId: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, discounts: Array<{ couponId: string | null, discountId: string | null, name: string, amount: number }>, lines: Array<{ id: string, description: string, quantity: number, unitAmount: number, amount: number, priceId: string | null, metadata: Record<string, string> | null }> } };

export type FinalizeInvoiceMutationVariables = Exact<{
  id: string | number;
}>;


export type FinalizeInvoiceMutation = { finalizeInvoice: { id: string, arn: string, accountId: string, customerId: string, subscriptionId: string | null, status: string, number: string | null, currency: string, subtotal: number, discount: number, tax: number, total: number, amountPaid: number, amountDue: number, balanceApplied: number, creditedAmount: number, prePaymentCreditedAmount: number, amountRemaining: number, dueAt: string | null, issuedAt: string | null, paidAt: string | null, voidedAt: string | null, hostedInvoiceUrl: string | null, collectionAttempts: number, templateId: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, discounts: Array<{ couponId: string | null, discountId: string | null, name: string, amount: number }>, lines: Array<{ id: string, description: string, quantity: number, unitAmount: number, amount: number, priceId: string | null, metadata: Record<string, string> | null }> } };

export type VoidInvoiceMutationVariables = Exact<{
  id: string | number;
}>;


export type VoidInvoiceMutation = { voidInvoice: { id: string, arn: string, accountId: string, customerId: string, subscriptionId: string | null, status: string, number: string | null, currency: string, subtotal: number, discount: number, tax: number, total: number, amountPaid: number, amountDue: number, balanceApplied: number, creditedAmount: number, prePaymentCreditedAmount: number, amountRemaining: number, dueAt: string | null, issuedAt: string | null, paidAt: string | null, voidedAt: string | null, hostedInvoiceUrl: string | null, collectionAttempts: number, templateId: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, discounts: Array<{ couponId: string | null, discountId: string | null, name: string, amount: number }>, lines: Array<{ id: string, description: string, quantity: number, unitAmount: number, amount: number, priceId: string | null, metadata: Record<string, string> | null }> } };

export type PayInvoiceMutationVariables = Exact<{
  id: string | number;
}>;


export type PayInvoiceMutation = { payInvoice: { id: string, arn: string, accountId: string, customerId: string, subscriptionId: string | null, status: string, number: string | null, currency: string, subtotal: number, discount: number, tax: number, total: number, amountPaid: number, amountDue: number, balanceApplied: number, creditedAmount: number, prePaymentCreditedAmount: number, amountRemaining: number, dueAt: string | null, issuedAt: string | null, paidAt: string | null, voidedAt: string | null, hostedInvoiceUrl: string | null, collectionAttempts: number, templateId: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, discounts: Array<{ couponId: string | null, discountId: string | null, name: string, amount: number }>, lines: Array<{ id: string, description: string, quantity: number, unitAmount: number, amount: number, priceId: string | null, metadata: Record<string, string> | null }> } };

export type UpdateInvoiceMutationVariables = Exact<{
  id: string | number;
  input: UpdateInvoiceInput;
}>;


export type UpdateInvoiceMutation = { updateInvoice: { id: string, arn: string, accountId: string, customerId: string, subscriptionId: string | null, status: string, number: string | null, currency: string, subtotal: number, discount: number, tax: number, total: number, amountPaid: number, amountDue: number, balanceApplied: number, creditedAmount: number, prePaymentCreditedAmount: number, amountRemaining: number, dueAt: string | null, issuedAt: string | null, paidAt: string | null, voidedAt: string | null, hostedInvoiceUrl: string | null, collectionAttempts: number, templateId: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, discounts: Array<{ couponId: string | null, discountId: string | null, name: string, amount: number }>, lines: Array<{ id: string, description: string, quantity: number, unitAmount: number, amount: number, priceId: string | null, metadata: Record<string, string> | null }> } };

export type ListLedgerEntriesQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: string | null | undefined;
  txId?: string | null | undefined;
  code?: string | null | undefined;
  sourceType?: string | null | undefined;
  sourceId?: string | null | undefined;
}>;


export type ListLedgerEntriesQuery = { ledgerEntries: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, accountId: string, txId: string, code: string, direction: string, amount: number, currency: string, sourceType: string, sourceId: string, memo: string | null, postedAt: string } }> } };

export type GetLedgerBalancesQueryVariables = Exact<{
  currency?: string | null | undefined;
}>;


export type GetLedgerBalancesQuery = { ledgerBalances: Array<{ code: string, currency: string, debits: number, credits: number, balance: number }> };

export type GetPnlReportQueryVariables = Exact<{
  from: string;
  to: string;
  currency?: string | null | undefined;
}>;


export type GetPnlReportQuery = { pnlReport: { from: string, to: string, currency: string, totalRevenue: number, refunds: number, fees: number, tax: number, netIncome: number, revenue: Array<{ code: string, amount: number }> } };

export type GetCashFlowReportQueryVariables = Exact<{
  from: string;
  to: string;
  currency?: string | null | undefined;
}>;


export type GetCashFlowReportQuery = { cashFlowReport: { from: string, to: string, currency: string, openingBalance: number, inflows: number, outflows: number, closingBalance: number, byDay: Array<{ date: string, inflows: number, outflows: number, balance: number }> } };

export type MemberFieldsFragment = { id: string, email: string, role: string, status: string, joinedAt: string | null, invitedAt: string | null, expiresAt: string | null };

export type ListMembersQueryVariables = Exact<{
  workspaceId: string | number;
  first?: number | null | undefined;
  after?: string | null | undefined;
  status?: string | null | undefined;
}>;


export type ListMembersQuery = { members: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, email: string, role: string, status: string, joinedAt: string | null, invitedAt: string | null, expiresAt: string | null } }> } };

export type InviteMemberMutationVariables = Exact<{
  workspaceId: string | number;
  input: InviteMemberInput;
}>;


export type InviteMemberMutation = { inviteMember: { id: string, email: string, role: string, status: string, joinedAt: string | null, invitedAt: string | null, expiresAt: string | null } };

export type UpdateMemberMutationVariables = Exact<{
  workspaceId: string | number;
  id: string | number;
  input: UpdateMemberInput;
}>;


export type UpdateMemberMutation = { updateMember: { id: string, email: string, role: string, status: string, joinedAt: string | null, invitedAt: string | null, expiresAt: string | null } };

export type RemoveMemberMutationVariables = Exact<{
  workspaceId: string | number;
  id: string | number;
}>;


export type RemoveMemberMutation = { removeMember: { id: string } };

export type TransferWorkspaceOwnershipMutationVariables = Exact<{
  workspaceId: string | number;
  input: TransferOwnershipInput;
}>;


export type TransferWorkspaceOwnershipMutation = { transferWorkspaceOwnership: { workspaceId: string, previousOwner: { id: string, email: string, role: string, status: string, joinedAt: string | null, invitedAt: string | null, expiresAt: string | null }, newOwner: { id: string, email: string, role: string, status: string, joinedAt: string | null, invitedAt: string | null, expiresAt: string | null } } };

export type MeterFieldsFragment = { id: string, arn: string, accountId: string, key: string, name: string, description: string | null, eventName: string, aggregation: string, valueProperty: string | null, filters: unknown, groupBy: Array<string>, unit: string | null, status: string, archivedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string };

export type ListMetersQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: string | null | undefined;
  eventName?: string | null | undefined;
  archived?: boolean | null | undefined;
}>;


export type ListMetersQuery = { meters: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, arn: string, accountId: string, key: string, name: string, description: string | null, eventName: string, aggregation: string, valueProperty: string | null, filters: unknown, groupBy: Array<string>, unit: string | null, status: string, archivedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string } }> } };

export type GetMeterQueryVariables = Exact<{
  id: string | number;
}>;


export type GetMeterQuery = { meter: { id: string, arn: string, accountId: string, key: string, name: string, description: string | null, eventName: string, aggregation: string, valueProperty: string | null, filters: unknown, groupBy: Array<string>, unit: string | null, status: string, archivedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string } };

export type CreateMeterMutationVariables = Exact<{
  input: CreateMeterInput;
}>;


export type CreateMeterMutation = { createMeter: { id: string, arn: string, accountId: string, key: string, name: string, description: string | null, eventName: string, aggregation: string, valueProperty: string | null, filters: unknown, groupBy: Array<string>, unit: string | null, status: string, archivedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string } };

export type UpdateMeterMutationVariables = Exact<{
  id: string | number;
  input: UpdateMeterInput;
}>;


export type UpdateMeterMutation = { updateMeter: { id: string, arn: string, accountId: string, key: string, name: string, description: string | null, eventName: string, aggregation: string, valueProperty: string | null, filters: unknown, groupBy: Array<string>, unit: string | null, status: string, archivedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string } };

export type ArchiveMeterMutationVariables = Exact<{
  id: string | number;
}>;


export type ArchiveMeterMutation = { archiveMeter: { id: string, arn: string, accountId: string, key: string, name: string, description: string | null, eventName: string, aggregation: string, valueProperty: string | null, filters: unknown, groupBy: Array<string>, unit: string | null, status: string, archivedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string } };

export type PaymentMethodFieldsFragment = { id: string, arn: string, accountId: string, customerId: string, type: string, status: string, adapter: string, card: unknown, ewallet: unknown, directDebit: unknown, paypal: unknown, isDefault: boolean, expiresAt: string | null, consent: unknown, metadata: Record<string, string> | null, detachedAt: string | null, createdAt: string, updatedAt: string };

export type ListPaymentMethodsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: string | null | undefined;
  customerId?: string | null | undefined;
  type?: string | null | undefined;
  status?: string | null | undefined;
}>;


export type ListPaymentMethodsQuery = { paymentMethods: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, arn: string, accountId: string, customerId: string, type: string, status: string, adapter: string, card: unknown, ewallet: unknown, directDebit: unknown, paypal: unknown, isDefault: boolean, expiresAt: string | null, consent: unknown, metadata: Record<string, string> | null, detachedAt: string | null, createdAt: string, updatedAt: string } }> } };

export type GetPaymentMethodQueryVariables = Exact<{
  id: string | number;
}>;


export type GetPaymentMethodQuery = { paymentMethod: { id: string, arn: string, accountId: string, customerId: string, type: string, status: string, adapter: string, card: unknown, ewallet: unknown, directDebit: unknown, paypal: unknown, isDefault: boolean, expiresAt: string | null, consent: unknown, metadata: Record<string, string> | null, detachedAt: string | null, createdAt: string, updatedAt: string } };

export type CreatePaymentMethodMutationVariables = Exact<{
  input: CreatePaymentMethodInput;
}>;


export type CreatePaymentMethodMutation = { createPaymentMethod: { id: string, arn: string, accountId: string, customerId: string, type: string, status: string, adapter: string, card: unknown, ewallet: unknown, directDebit: unknown, paypal: unknown, isDefault: boolean, expiresAt: string | null, consent: unknown, metadata: Record<string, string> | null, detachedAt: string | null, createdAt: string, updatedAt: string } };

export type UpdatePaymentMethodMutationVariables = Exact<{
  id: string | number;
  input: UpdatePaymentMethodInput;
}>;


export type UpdatePaymentMethodMutation = { updatePaymentMethod: { id: string, arn: string, accountId: string, customerId: string, type: string, status: string, adapter: string, card: unknown, ewallet: unknown, directDebit: unknown, paypal: unknown, isDefault: boolean, expiresAt: string | null, consent: unknown, metadata: Record<string, string> | null, detachedAt: string | null, createdAt: string, updatedAt: string } };

export type DetachPaymentMethodMutationVariables = Exact<{
  id: string | number;
}>;


export type DetachPaymentMethodMutation = { detachPaymentMethod: { id: string, arn: string, accountId: string, customerId: string, type: string, status: string, adapter: string, card: unknown, ewallet: unknown, directDebit: unknown, paypal: unknown, isDefault: boolean, expiresAt: string | null, consent: unknown, metadata: Record<string, string> | null, detachedAt: string | null, createdAt: string, updatedAt: string } };

export type SimulatePaymentMethodEventMutationVariables = Exact<{
  id: string | number;
  input: SimulatePaymentMethodInput;
}>;


export type SimulatePaymentMethodEventMutation = { simulatePaymentMethodEvent: { id: string, arn: string, accountId: string, customerId: string, type: string, status: string, adapter: string, card: unknown, ewallet: unknown, directDebit: unknown, paypal: unknown, isDefault: boolean, expiresAt: string | null, consent: unknown, metadata: Record<string, string> | null, detachedAt: string | null, createdAt: string, updatedAt: string } };

export type PaymentFieldsFragment = { id: string, amount: number, currency: string, status: string, amountRefunded: number, paymentMethodId: string | null, failureCode: string | null, failureMessage: string | null, nextAction: unknown, method: string | null, adapter: string | null, customerId: string | null, checkoutSessionId: string | null, invoiceId: string | null, capturedAt: string | null, mode: string, metadata: Record<string, string> | null, createdAt: string };

export type ListPaymentsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: string | null | undefined;
  status?: string | null | undefined;
  customerId?: string | null | undefined;
  checkoutSessionId?: string | null | undefined;
}>;


export type ListPaymentsQuery = { payments: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, amount: number, currency: string, status: string, amountRefunded: number, paymentMethodId: string | null, failureCode: string | null, failureMessage: string | null, nextAction: unknown, method: string | null, adapter: string | null, customerId: string | null, checkoutSessionId: string | null, invoiceId: string | null, capturedAt: string | null, mode: string, metadata: Record<string, string> | null, createdAt: string } }> } };

export type GetPaymentQueryVariables = Exact<{
  id: string | number;
}>;


export type GetPaymentQuery = { payment: { id: string, amount: number, currency: string, status: string, amountRefunded: number, paymentMethodId: string | null, failureCode: string | null, failureMessage: string | null, nextAction: unknown, method: string | null, adapter: string | null, customerId: string | null, checkoutSessionId: string | null, invoiceId: string | null, capturedAt: string | null, mode: string, metadata: Record<string, string> | null, createdAt: string } };

export type SimulatePaymentMutationVariables = Exact<{
  id: string | number;
  input: SimulatePaymentInput;
  idempotencyKey?: string | null | undefined;
}>;


export type SimulatePaymentMutation = { simulatePayment: { id: string, amount: number, currency: string, status: string, amountRefunded: number, paymentMethodId: string | null, failureCode: string | null, failureMessage: string | null, nextAction: unknown, method: string | null, adapter: string | null, customerId: string | null, checkoutSessionId: string | null, invoiceId: string | null, capturedAt: string | null, mode: string, metadata: Record<string, string> | null, createdAt: string } };

export type PayoutFieldsFragment = { id: string, amount: number, currency: string, status: string, method: string, bankCode: string | null, bankName: string, bankAccountNumber: string, bankAccountHolder: string, note: string | null, reference: string | null, failureReason: string | null, ledgerTransactionId: string | null, processedAt: string | null, completedAt: string | null, createdAt: string, updatedAt: string };

export type ListPayoutsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  status?: string | null | undefined;
  currency?: string | null | undefined;
  createdSince?: string | null | undefined;
  createdUntil?: string | null | undefined;
}>;


export type ListPayoutsQuery = { payouts: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, amount: number, currency: string, status: string, method: string, bankCode: string | null, bankName: string, bankAccountNumber: string, bankAccountHolder: string, note: string | null, reference: string | null, failureReason: string | null, ledgerTransactionId: string | null, processedAt: string | null, completedAt: string | null, createdAt: string, updatedAt: string } }> } };

export type GetPayoutQueryVariables = Exact<{
  id: string | number;
}>;


export type GetPayoutQuery = { payout: { id: string, amount: number, currency: string, status: string, method: string, bankCode: string | null, bankName: string, bankAccountNumber: string, bankAccountHolder: string, note: string | null, reference: string | null, failureReason: string | null, ledgerTransactionId: string | null, processedAt: string | null, completedAt: string | null, createdAt: string, updatedAt: string } };

export type GetPayoutBalanceQueryVariables = Exact<{
  currency?: string | null | undefined;
}>;


export type GetPayoutBalanceQuery = { payoutBalance: { ledgerBalance: number, locked: number, available: number, currency: string } };

export type GetPayoutBankAccountQueryVariables = Exact<{ [key: string]: never; }>;


export type GetPayoutBankAccountQuery = { payoutBankAccount: { bankCode: string | null, bankName: string | null, bankAccountNumber: string | null, bankAccountHolder: string | null } };

export type GetPayoutScheduleQueryVariables = Exact<{ [key: string]: never; }>;


export type GetPayoutScheduleQuery = { payoutSchedule: { interval: string, method: string, minimumAmount: number, lastScheduledAt: string | null } };

export type CreatePayoutMutationVariables = Exact<{
  input: CreatePayoutInput;
}>;


export type CreatePayoutMutation = { createPayout: { id: string, amount: number, currency: string, status: string, method: string, bankCode: string | null, bankName: string, bankAccountNumber: string, bankAccountHolder: string, note: string | null, reference: string | null, failureReason: string | null, ledgerTransactionId: string | null, processedAt: string | null, completedAt: string | null, createdAt: string, updatedAt: string } };

export type CancelPayoutMutationVariables = Exact<{
  id: string | number;
}>;


export type CancelPayoutMutation = { cancelPayout: { id: string, amount: number, currency: string, status: string, method: string, bankCode: string | null, bankName: string, bankAccountNumber: string, bankAccountHolder: string, note: string | null, reference: string | null, failureReason: string | null, ledgerTransactionId: string | null, processedAt: string | null, completedAt: string | null, createdAt: string, updatedAt: string } };

export type UpdatePayoutBankAccountMutationVariables = Exact<{
  input: UpdatePayoutBankAccountInput;
}>;


export type UpdatePayoutBankAccountMutation = { updatePayoutBankAccount: { bankCode: string | null, bankName: string | null, bankAccountNumber: string | null, bankAccountHolder: string | null } };

export type UpdatePayoutScheduleMutationVariables = Exact<{
  input: UpdatePayoutScheduleInput;
}>;


export type UpdatePayoutScheduleMutation = { updatePayoutSchedule: { interval: string, method: string, minimumAmount: number, lastScheduledAt: string | null } };

export type MarkPayoutInTransitMutationVariables = Exact<{
  id: string | number;
}>;


export type MarkPayoutInTransitMutation = { markPayoutInTransit: { id: string, amount: number, currency: string, status: string, method: string, bankCode: string | null, bankName: string, bankAccountNumber: string, bankAccountHolder: string, note: string | null, reference: string | null, failureReason: string | null, ledgerTransactionId: string | null, processedAt: string | null, completedAt: string | null, createdAt: string, updatedAt: string } };

export type MarkPayoutPaidMutationVariables = Exact<{
  id: string | number;
}>;


export type MarkPayoutPaidMutation = { markPayoutPaid: { id: string, amount: number, currency: string, status: string, method: string, bankCode: string | null, bankName: string, bankAccountNumber: string, bankAccountHolder: string, note: string | null, reference: string | null, failureReason: string | null, ledgerTransactionId: string | null, processedAt: string | null, completedAt: string | null, createdAt: string, updatedAt: string } };

export type MarkPayoutFailedMutationVariables = Exact<{
  id: string | number;
  input: MarkPayoutFailedInput;
}>;


export type MarkPayoutFailedMutation = { markPayoutFailed: { id: string, amount: number, currency: string, status: string, method: string, bankCode: string | null, bankName: string, bankAccountNumber: string, bankAccountHolder: string, note: string | null, reference: string | null, failureReason: string | null, ledgerTransactionId: string | null, processedAt: string | null, completedAt: string | null, createdAt: string, updatedAt: string } };

export type PriceFieldsFragment = { id: string, planId: string, currency: string, model: string, unitAmount: number | null, tiers: unknown, taxMode: string, active: boolean, meterId: string | null, divideBy: number | null, quantityRounding: string | null, createdAt: string };

export type PlanFieldsFragment = { id: string, arn: string, accountId: string, name: string, description: string | null, interval: string, intervalCount: number, trialDays: number, usageAggregate: string | null, meteredUnit: string | null, portalFeatures: unknown, dunningPolicyId: string | null, active: boolean, archivedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, prices: Array<{ id: string, planId: string, currency: string, model: string, unitAmount: number | null, tiers: unknown, taxMode: string, active: boolean, meterId: string | null, divideBy: number | null, quantityRounding: string | null, createdAt: string }> };

export type ListPlansQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: string | null | undefined;
  active?: boolean | null | undefined;
}>;


export type ListPlansQuery = { plans: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, arn: string, accountId: string, name: string, description: string | null, interval: string, intervalCount: number, trialDays: number, usageAggregate: string | null, meteredUnit: string | null, portalFeatures: unknown, dunningPolicyId: string | null, active: boolean, archivedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, prices: Array<{ id: string, planId: string, currency: string, model: string, unitAmount: number | null, tiers: unknown, taxMode: string, active: boolean, meterId: string | null, divideBy: number | null, quantityRounding: string | null, createdAt: string }> } }> } };

export type GetPlanQueryVariables = Exact<{
  id: string | number;
}>;


export type GetPlanQuery = { plan: { id: string, arn: string, accountId: string, name: string, description: string | null, interval: string, intervalCount: number, trialDays: number, usageAggregate: string | null, meteredUnit: string | null, portalFeatures: unknown, dunningPolicyId: string | null, active: boolean, archivedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, prices: Array<{ id: string, planId: string, currency: string, model: string, unitAmount: number | null, tiers: unknown, taxMode: string, active: boolean, meterId: string | null, divideBy: number | null, quantityRounding: string | null, createdAt: string }> } };

export type CreatePlanMutationVariables = Exact<{
  input: CreatePlanInput;
}>;


export type CreatePlanMutation = { createPlan: { id: string, arn: string, accountId: string, name: string, description: string | null, interval: string, intervalCount: number, trialDays: number, usageAggregate: string | null, meteredUnit: string | null, portalFeatures: unknown, dunningPolicyId: string | null, active: boolean, archivedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, prices: Array<{ id: string, planId: string, currency: string, model: string, unitAmount: number | null, tiers: unknown, taxMode: string, active: boolean, meterId: string | null, divideBy: number | null, quantityRounding: string | null, createdAt: string }> } };

export type UpdatePlanMutationVariables = Exact<{
  id: string | number;
  input: UpdatePlanInput;
}>;


export type UpdatePlanMutation = { updatePlan: { id: string, arn: string, accountId: string, name: string, description: string | null, interval: string, intervalCount: number, trialDays: number, usageAggregate: string | null, meteredUnit: string | null, portalFeatures: unknown, dunningPolicyId: string | null, active: boolean, archivedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, prices: Array<{ id: string, planId: string, currency: string, model: string, unitAmount: number | null, tiers: unknown, taxMode: string, active: boolean, meterId: string | null, divideBy: number | null, quantityRounding: string | null, createdAt: string }> } };

export type ArchivePlanMutationVariables = Exact<{
  id: string | number;
}>;


export type ArchivePlanMutation = { archivePlan: { id: string, arn: string, accountId: string, name: string, description: string | null, interval: string, intervalCount: number, trialDays: number, usageAggregate: string | null, meteredUnit: string | null, portalFeatures: unknown, dunningPolicyId: string | null, active: boolean, archivedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, prices: Array<{ id: string, planId: string, currency: string, model: string, unitAmount: number | null, tiers: unknown, taxMode: string, active: boolean, meterId: string | null, divideBy: number | null, quantityRounding: string | null, createdAt: string }> } };

export type AddPriceMutationVariables = Exact<{
  planId: string | number;
  input: PriceInput;
}>;


export type AddPriceMutation = { addPrice: { id: string, planId: string, currency: string, model: string, unitAmount: number | null, tiers: unknown, taxMode: string, active: boolean, meterId: string | null, divideBy: number | null, quantityRounding: string | null, createdAt: string } };

export type UpdatePriceMutationVariables = Exact<{
  id: string | number;
  input: UpdatePriceInput;
}>;


export type UpdatePriceMutation = { updatePrice: { id: string, planId: string, currency: string, model: string, unitAmount: number | null, tiers: unknown, taxMode: string, active: boolean, meterId: string | null, divideBy: number | null, quantityRounding: string | null, createdAt: string } };

export type PortalSessionFieldsFragment = { id: string, arn: string, accountId: string, customerId: string, url: string, returnUrl: string, expiresAt: string, createdAt: string };

export type CreatePortalSessionMutationVariables = Exact<{
  input: CreatePortalSessionInput;
}>;


export type CreatePortalSessionMutation = { createPortalSession: { id: string, arn: string, accountId: string, customerId: string, url: string, returnUrl: string, expiresAt: string, createdAt: string } };

export type ReceiptFieldsFragment = { receiptId: string, number: string, sourceType: string, sourceId: string, status: string, paidAt: string | null, amount: number, currency: string, method: string | null, methodLabel: string | null, adapter: string | null, customer: unknown, merchant: unknown, lineItems: unknown, subtotal: number, taxAmount: number, total: number, template: unknown };

export type ListReceiptsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  sourceType?: string | null | undefined;
  customerId?: string | null | undefined;
  issuedAfter?: string | null | undefined;
  issuedBefore?: string | null | undefined;
}>;


export type ListReceiptsQuery = { receipts: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, number: string, sourceType: string, sourceId: string, customerId: string | null, amount: number, currency: string, method: string | null, adapter: string | null, issuedAt: string, emailedAt: string | null, emailedTo: string | null } }> } };

export type GetReceiptQueryVariables = Exact<{
  id: string | number;
}>;


export type GetReceiptQuery = { receipt: { receiptId: string, number: string, sourceType: string, sourceId: string, status: string, paidAt: string | null, amount: number, currency: string, method: string | null, methodLabel: string | null, adapter: string | null, customer: unknown, merchant: unknown, lineItems: unknown, subtotal: number, taxAmount: number, total: number, template: unknown } };

export type GetCheckoutSessionReceiptQueryVariables = Exact<{
  id: string | number;
}>;


export type GetCheckoutSessionReceiptQuery = { checkoutSessionReceipt: { receiptId: string, number: string, sourceType: string, sourceId: string, status: string, paidAt: string | null, amount: number, currency: string, method: string | null, methodLabel: string | null, adapter: string | null, customer: unknown, merchant: unknown, lineItems: unknown, subtotal: number, taxAmount: number, total: number, template: unknown } };

export type GetReceiptPdfQueryVariables = Exact<{
  id: string | number;
}>;


export type GetReceiptPdfQuery = { receiptDocument: { contentType: string, filename: string, contentBase64: string } };

export type GetReceiptHtmlQueryVariables = Exact<{
  id: string | number;
}>;


export type GetReceiptHtmlQuery = { receiptDocument: { contentType: string, filename: string, contentBase64: string } };

export type GetReceiptEscposQueryVariables = Exact<{
  id: string | number;
  width?: number | null | undefined;
}>;


export type GetReceiptEscposQuery = { receiptDocument: { contentType: string, filename: string, contentBase64: string } };

export type EmailReceiptMutationVariables = Exact<{
  id: string | number;
  to?: string | null | undefined;
}>;


export type EmailReceiptMutation = { emailReceipt: { sent: boolean, to: string } };

export type ReconciliationImportFieldsFragment = { id: string, arn: string, accountId: string, mode: string, source: string, origin: string, adapter: string | null, bankAccountNumber: string | null, format: string, filename: string | null, sha256: string | null, sizeBytes: number, status: string, failureCode: string | null, failureMessage: string | null, periodStart: string | null, periodEnd: string | null, rowCount: number, rowsNew: number, rowsDuplicate: number, rowsSkipped: number, currencies: Array<string>, totals: unknown, runId: string | null, createdAt: string, updatedAt: string };

export type ReconciliationRowFieldsFragment = { id: string, accountId: string, mode: string, importId: string, source: string, adapter: string | null, bankAccountNumber: string | null, line: number, transactionId: string | null, type: string, reference: string | null, providerReference: string | null, settlementId: string | null, method: string | null, description: string | null, occurredAt: string | null, settledAt: string | null, valueDate: string | null, currency: string, amount: number, fee: number, feeVat: number, withholdingTax: number, net: number, balanceAfter: number | null, status: string, batchId: string | null, matchId: string | null, objectType: string | null, objectId: string | null, matchedBy: string | null, ledgerTxId: string | null, exceptionIds: Array<string>, createdAt: string, updatedAt: string };

export type SettlementBatchFieldsFragment = { id: string, arn: string, accountId: string, mode: string, adapter: string, currency: string, settlementId: string, rowCount: number, amount: number, fee: number, feeVat: number, withholdingTax: number, net: number, payoutFees: number, expectedBankAmount: number, expectedAt: string | null, status: string, matchId: string | null, bankRowIds: Array<string>, bankAmount: number | null, transferFee: number | null, matchedAt: string | null, importIds: Array<string>, createdAt: string, updatedAt: string };

export type ReconciliationRunFieldsFragment = { id: string, arn: string, accountId: string, mode: string, trigger: string, importId: string | null, adapter: string | null, periodStart: string | null, periodEnd: string | null, status: string, progress: unknown, stats: unknown, ledgerCheck: unknown, startedAt: string | null, completedAt: string | null, failureCode: string | null, createdAt: string, updatedAt: string };

export type ReconciliationSettingsFieldsFragment = { accountId: string, mode: string, dateToleranceDays: number, lateSettlementDays: number, amountTolerance: unknown, feeTolerance: unknown, transferFeeTolerance: unknown, feeRules: unknown, updatedAt: string | null };

export type ListReconciliationImportsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: string | null | undefined;
  source?: string | null | undefined;
  adapter?: string | null | undefined;
  origin?: string | null | undefined;
  status?: string | null | undefined;
}>;


export type ListReconciliationImportsQuery = { reconciliationImports: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, arn: string, accountId: string, mode: string, source: string, origin: string, adapter: string | null, bankAccountNumber: string | null, format: string, filename: string | null, sha256: string | null, sizeBytes: number, status: string, failureCode: string | null, failureMessage: string | null, periodStart: string | null, periodEnd: string | null, rowCount: number, rowsNew: number, rowsDuplicate: number, rowsSkipped: number, currencies: Array<string>, totals: unknown, runId: string | null, createdAt: string, updatedAt: string } }> } };

export type GetReconciliationImportQueryVariables = Exact<{
  id: string | number;
}>;


export type GetReconciliationImportQuery = { reconciliationImport: { id: string, arn: string, accountId: string, mode: string, source: string, origin: string, adapter: string | null, bankAccountNumber: string | null, format: string, filename: string | null, sha256: string | null, sizeBytes: number, status: string, failureCode: string | null, failureMessage: string | null, periodStart: string | null, periodEnd: string | null, rowCount: number, rowsNew: number, rowsDuplicate: number, rowsSkipped: number, currencies: Array<string>, totals: unknown, runId: string | null, createdAt: string, updatedAt: string } };

export type ListReconciliationRowsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: string | null | undefined;
  importId?: string | null | undefined;
  batchId?: string | null | undefined;
  status?: string | null | undefined;
  type?: string | null | undefined;
  transactionId?: string | null | undefined;
  reference?: string | null | undefined;
  objectId?: string | null | undefined;
  source?: string | null | undefined;
}>;


export type ListReconciliationRowsQuery = { reconciliationRows: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, accountId: string, mode: string, importId: string, source: string, adapter: string | null, bankAccountNumber: string | null, line: number, transactionId: string | null, type: string, reference: string | null, providerReference: string | null, settlementId: string | null, method: string | null, description: string | null, occurredAt: string | null, settledAt: string | null, valueDate: string | null, currency: string, amount: number, fee: number, feeVat: number, withholdingTax: number, net: number, balanceAfter: number | null, status: string, batchId: string | null, matchId: string | null, objectType: string | null, objectId: string | null, matchedBy: string | null, ledgerTxId: string | null, exceptionIds: Array<string>, createdAt: string, updatedAt: string } }> } };

export type GetReconciliationRowQueryVariables = Exact<{
  id: string | number;
}>;


export type GetReconciliationRowQuery = { reconciliationRow: { id: string, accountId: string, mode: string, importId: string, source: string, adapter: string | null, bankAccountNumber: string | null, line: number, transactionId: string | null, type: string, reference: string | null, providerReference: string | null, settlementId: string | null, method: string | null, description: string | null, occurredAt: string | null, settledAt: string | null, valueDate: string | null, currency: string, amount: number, fee: number, feeVat: number, withholdingTax: number, net: number, balanceAfter: number | null, status: string, batchId: string | null, matchId: string | null, objectType: string | null, objectId: string | null, matchedBy: string | null, ledgerTxId: string | null, exceptionIds: Array<string>, createdAt: string, updatedAt: string } };

export type ListSettlementBatchesQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: string | null | undefined;
  adapter?: string | null | undefined;
  currency?: string | null | undefined;
  status?: string | null | undefined;
  settlementId?: string | null | undefined;
}>;


export type ListSettlementBatchesQuery = { settlementBatches: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, arn: string, accountId: string, mode: string, adapter: string, currency: string, settlementId: string, rowCount: number, amount: number, fee: number, feeVat: number, withholdingTax: number, net: number, payoutFees: number, expectedBankAmount: number, expectedAt: string | null, status: string, matchId: string | null, bankRowIds: Array<string>, bankAmount: number | null, transferFee: number | null, matchedAt: string | null, importIds: Array<string>, createdAt: string, updatedAt: string } }> } };

export type GetSettlementBatchQueryVariables = Exact<{
  id: string | number;
}>;


export type GetSettlementBatchQuery = { settlementBatch: { id: string, arn: string, accountId: string, mode: string, adapter: string, currency: string, settlementId: string, rowCount: number, amount: number, fee: number, feeVat: number, withholdingTax: number, net: number, payoutFees: number, expectedBankAmount: number, expectedAt: string | null, status: string, matchId: string | null, bankRowIds: Array<string>, bankAmount: number | null, transferFee: number | null, matchedAt: string | null, importIds: Array<string>, createdAt: string, updatedAt: string } };

export type ListReconciliationRunsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: string | null | undefined;
  status?: string | null | undefined;
  importId?: string | null | undefined;
}>;


export type ListReconciliationRunsQuery = { reconciliationRuns: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, arn: string, accountId: string, mode: string, trigger: string, importId: string | null, adapter: string | null, periodStart: string | null, periodEnd: string | null, status: string, progress: unknown, stats: unknown, ledgerCheck: unknown, startedAt: string | null, completedAt: string | null, failureCode: string | null, createdAt: string, updatedAt: string } }> } };

export type GetReconciliationRunQueryVariables = Exact<{
  id: string | number;
}>;


export type GetReconciliationRunQuery = { reconciliationRun: { id: string, arn: string, accountId: string, mode: string, trigger: string, importId: string | null, adapter: string | null, periodStart: string | null, periodEnd: string | null, status: string, progress: unknown, stats: unknown, ledgerCheck: unknown, startedAt: string | null, completedAt: string | null, failureCode: string | null, createdAt: string, updatedAt: string } };

export type GetReconciliationSettingsQueryVariables = Exact<{ [key: string]: never; }>;


export type GetReconciliationSettingsQuery = { reconciliationSettings: { accountId: string, mode: string, dateToleranceDays: number, lateSettlementDays: number, amountTolerance: unknown, feeTolerance: unknown, transferFeeTolerance: unknown, feeRules: unknown, updatedAt: string | null } };

export type UpdateReconciliationSettingsMutationVariables = Exact<{
  input: UpdateReconciliationSettingsInput;
}>;


export type UpdateReconciliationSettingsMutation = { updateReconciliationSettings: { accountId: string, mode: string, dateToleranceDays: number, lateSettlementDays: number, amountTolerance: unknown, feeTolerance: unknown, transferFeeTolerance: unknown, feeRules: unknown, updatedAt: string | null } };

export type ReconciliationMatchFieldsFragment = { id: string, accountId: string, mode: string, kind: string, rule: string, matchedBy: string, rowIds: Array<string>, objects: unknown, currency: string, difference: number, transferFee: number | null, ledgerTxId: string | null, runId: string | null, createdAt: string };

export type ReconciliationExceptionFieldsFragment = { id: string, arn: string, accountId: string, mode: string, category: string, status: string, resolution: string | null, adapter: string | null, currency: string | null, rowIds: Array<string>, objectType: string | null, objectId: string | null, batchId: string | null, expectedAmount: number | null, actualAmount: number | null, difference: number | null, details: unknown, importId: string | null, runId: string | null, openedAt: string, resolvedAt: string | null, resolvedBy: unknown, resolutionNote: string | null, writeOffAccount: string | null, ledgerTxId: string | null, linkedMatchId: string | null, assignee: string | null, metadata: unknown, history: unknown, createdAt: string, updatedAt: string };

export type CreateReconciliationRunMutationVariables = Exact<{
  input: CreateReconciliationRunInput;
}>;


export type CreateReconciliationRunMutation = { createReconciliationRun: { id: string, arn: string, accountId: string, mode: string, trigger: string, importId: string | null, adapter: string | null, periodStart: string | null, periodEnd: string | null, status: string, progress: unknown, stats: unknown, ledgerCheck: unknown, startedAt: string | null, completedAt: string | null, failureCode: string | null, createdAt: string, updatedAt: string } };

export type ListReconciliationMatchesQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: string | null | undefined;
  runId?: string | null | undefined;
  rowId?: string | null | undefined;
  objectId?: string | null | undefined;
  batchId?: string | null | undefined;
}>;


export type ListReconciliationMatchesQuery = { reconciliationMatches: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, accountId: string, mode: string, kind: string, rule: string, matchedBy: string, rowIds: Array<string>, objects: unknown, currency: string, difference: number, transferFee: number | null, ledgerTxId: string | null, runId: string | null, createdAt: string } }> } };

export type GetReconciliationMatchQueryVariables = Exact<{
  id: string | number;
}>;


export type GetReconciliationMatchQuery = { reconciliationMatch: { id: string, accountId: string, mode: string, kind: string, rule: string, matchedBy: string, rowIds: Array<string>, objects: unknown, currency: string, difference: number, transferFee: number | null, ledgerTxId: string | null, runId: string | null, createdAt: string } };

export type ListReconciliationExceptionsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: string | null | undefined;
  category?: string | null | undefined;
  status?: string | null | undefined;
  importId?: string | null | undefined;
  runId?: string | null | undefined;
  objectId?: string | null | undefined;
  batchId?: string | null | undefined;
  adapter?: string | null | undefined;
  currency?: string | null | undefined;
  assignee?: string | null | undefined;
}>;


export type ListReconciliationExceptionsQuery = { reconciliationExceptions: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, arn: string, accountId: string, mode: string, category: string, status: string, resolution: string | null, adapter: string | null, currency: string | null, rowIds: Array<string>, objectType: string | null, objectId: string | null, batchId: string | null, expectedAmount: number | null, actualAmount: number | null, difference: number | null, details: unknown, importId: string | null, runId: string | null, openedAt: string, resolvedAt: string | null, resolvedBy: unknown, resolutionNote: string | null, writeOffAccount: string | null, ledgerTxId: string | null, linkedMatchId: string | null, assignee: string | null, metadata: unknown, history: unknown, createdAt: string, updatedAt: string } }> } };

export type GetReconciliationExceptionQueryVariables = Exact<{
  id: string | number;
}>;


export type GetReconciliationExceptionQuery = { reconciliationException: { id: string, arn: string, accountId: string, mode: string, category: string, status: string, resolution: string | null, adapter: string | null, currency: string | null, rowIds: Array<string>, objectType: string | null, objectId: string | null, batchId: string | null, expectedAmount: number | null, actualAmount: number | null, difference: number | null, details: unknown, importId: string | null, runId: string | null, openedAt: string, resolvedAt: string | null, resolvedBy: unknown, resolutionNote: string | null, writeOffAccount: string | null, ledgerTxId: string | null, linkedMatchId: string | null, assignee: string | null, metadata: unknown, history: unknown, createdAt: string, updatedAt: string } };

export type RefundFieldsFragment = { id: string, arn: string, accountId: string, chargeId: string, invoiceId: string | null, amount: number, currency: string, reason: string | null, status: string, failureCode: string | null, failureMessage: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string };

export type ListRefundsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: string | null | undefined;
  chargeId?: string | null | undefined;
  status?: string | null | undefined;
}>;


export type ListRefundsQuery = { refunds: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, arn: string, accountId: string, chargeId: string, invoiceId: string | null, amount: number, currency: string, reason: string | null, status: string, failureCode: string | null, failureMessage: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string } }> } };

export type GetRefundQueryVariables = Exact<{
  id: string | number;
}>;


export type GetRefundQuery = { refund: { id: string, arn: string, accountId: string, chargeId: string, invoiceId: string | null, amount: number, currency: string, reason: string | null, status: string, failureCode: string | null, failureMessage: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string } };

export type CreateRefundMutationVariables = Exact<{
  input: CreateRefundInput;
}>;


export type CreateRefundMutation = { createRefund: { id: string, arn: string, accountId: string, chargeId: string, invoiceId: string | null, amount: number, currency: string, reason: string | null, status: string, failureCode: string | null, failureMessage: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string } };

export type SimulateRefundMutationVariables = Exact<{
  id: string | number;
  input: SimulateRefundInput;
}>;


export type SimulateRefundMutation = { simulateRefund: { id: string, arn: string, accountId: string, chargeId: string, invoiceId: string | null, amount: number, currency: string, reason: string | null, status: string, failureCode: string | null, failureMessage: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string } };

export type SetupSessionFieldsFragment = { id: string, arn: string, accountId: string, customerId: string, mode: string, status: string, types: Array<string>, currency: string, adapter: string | null, successUrl: string, cancelUrl: string, hostedUrl: string, setDefault: boolean, subscriptionId: string | null, paymentMethodId: string | null, lastError: unknown, expiresAt: string, completedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string };

export type ListSetupSessionsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: string | null | undefined;
  customerId?: string | null | undefined;
  status?: string | null | undefined;
}>;


export type ListSetupSessionsQuery = { setupSessions: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, arn: string, accountId: string, customerId: string, mode: string, status: string, types: Array<string>, currency: string, adapter: string | null, successUrl: string, cancelUrl: string, hostedUrl: string, setDefault: boolean, subscriptionId: string | null, paymentMethodId: string | null, lastError: unknown, expiresAt: string, completedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string } }> } };

export type GetSetupSessionQueryVariables = Exact<{
  id: string | number;
}>;


export type GetSetupSessionQuery = { setupSession: { id: string, arn: string, accountId: string, customerId: string, mode: string, status: string, types: Array<string>, currency: string, adapter: string | null, successUrl: string, cancelUrl: string, hostedUrl: string, setDefault: boolean, subscriptionId: string | null, paymentMethodId: string | null, lastError: unknown, expiresAt: string, completedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string } };

export type CreateSetupSessionMutationVariables = Exact<{
  input: CreateSetupSessionInput;
}>;


export type CreateSetupSessionMutation = { createSetupSession: { id: string, arn: string, accountId: string, customerId: string, mode: string, status: string, types: Array<string>, currency: string, adapter: string | null, successUrl: string, cancelUrl: string, hostedUrl: string, setDefault: boolean, subscriptionId: string | null, paymentMethodId: string | null, lastError: unknown, expiresAt: string, completedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string } };

export type CancelSetupSessionMutationVariables = Exact<{
  id: string | number;
}>;


export type CancelSetupSessionMutation = { cancelSetupSession: { id: string, arn: string, accountId: string, customerId: string, mode: string, status: string, types: Array<string>, currency: string, adapter: string | null, successUrl: string, cancelUrl: string, hostedUrl: string, setDefault: boolean, subscriptionId: string | null, paymentMethodId: string | null, lastError: unknown, expiresAt: string, completedAt: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string } };

export type SubscriptionFieldsFragment = { id: string, customerId: string, planId: string, priceId: string, status: string, currency: string, quantity: number, paymentMethod: string | null, currentPeriodStart: string, currentPeriodEnd: string, trialEnd: string | null, cancelAtPeriodEnd: boolean, canceledAt: string | null, pausedAt: string | null, pendingPriceId: string | null, pendingQuantity: number | null, latestInvoiceId: string | null, meteredPriceIds: Array<string>, testClockId: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, discount: { id: string, couponId: string, customerId: string, subscriptionId: string | null, invoiceId: string | null, start: string, end: string | null, status: string, coupon: { name: string, percentOff: number | null, amountOff: unknown, duration: string, durationInMonths: number | null } } | null };

export type ListSubscriptionsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: string | null | undefined;
  customerId?: string | null | undefined;
  planId?: string | null | undefined;
  priceId?: string | null | undefined;
  status?: string | null | undefined;
}>;


export type ListSubscriptionsQuery = { subscriptions: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, customerId: string, planId: string, priceId: string, status: string, currency: string, quantity: number, paymentMethod: string | null, currentPeriodStart: string, currentPeriodEnd: string, trialEnd: string | null, cancelAtPeriodEnd: boolean, canceledAt: string | null, pausedAt: string | null, pendingPriceId: string | null, pendingQuantity: number | null, latestInvoiceId: string | null, meteredPriceIds: Array<string>, testClockId: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, discount: { id: string, couponId: string, customerId: string, subscriptionId: string | null, invoiceId: string | null, start: string, end: string | null, status: string, coupon: { name: string, percentOff: number | null, amountOff: unknown, duration: string, durationInMonths: number | null } } | null } }> } };

export type GetSubscriptionQueryVariables = Exact<{
  id: string | number;
}>;


export type GetSubscriptionQuery = { subscription: { id: string, customerId: string, planId: string, priceId: string, status: string, currency: string, quantity: number, paymentMethod: string | null, currentPeriodStart: string, currentPeriodEnd: string, trialEnd: string | null, cancelAtPeriodEnd: boolean, canceledAt: string | null, pausedAt: string | null, pendingPriceId: string | null, pendingQuantity: number | null, latestInvoiceId: string | null, meteredPriceIds: Array<string>, testClockId: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, discount: { id: string, couponId: string, customerId: string, subscriptionId: string | null, invoiceId: string | null, start: string, end: string | null, status: string, coupon: { name: string, percentOff: number | null, amountOff: unknown, duration: string, durationInMonths: number | null } } | null } };

export type CreateSubscriptionMutationVariables = Exact<{
  input: CreateSubscriptionInput;
}>;


export type CreateSubscriptionMutation = { createSubscription: { id: string, customerId: string, planId: string, priceId: string, status: string, currency: string, quantity: number, paymentMethod: string | null, currentPeriodStart: string, currentPeriodEnd: string, trialEnd: string | null, cancelAtPeriodEnd: boolean, canceledAt: string | null, pausedAt: string | null, pendingPriceId: string | null, pendingQuantity: number | null, latestInvoiceId: string | null, meteredPriceIds: Array<string>, testClockId: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, discount: { id: string, couponId: string, customerId: string, subscriptionId: string | null, invoiceId: string | null, start: string, end: string | null, status: string, coupon: { name: string, percentOff: number | null, amountOff: unknown, duration: string, durationInMonths: number | null } } | null } };

export type UpdateSubscriptionMutationVariables = Exact<{
  id: string | number;
  input: UpdateSubscriptionInput;
}>;


export type UpdateSubscriptionMutation = { updateSubscription: { id: string, customerId: string, planId: string, priceId: string, status: string, currency: string, quantity: number, paymentMethod: string | null, currentPeriodStart: string, currentPeriodEnd: string, trialEnd: string | null, cancelAtPeriodEnd: boolean, canceledAt: string | null, pausedAt: string | null, pendingPriceId: string | null, pendingQuantity: number | null, latestInvoiceId: string | null, meteredPriceIds: Array<string>, testClockId: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, discount: { id: string, couponId: string, customerId: string, subscriptionId: string | null, invoiceId: string | null, start: string, end: string | null, status: string, coupon: { name: string, percentOff: number | null, amountOff: unknown, duration: string, durationInMonths: number | null } } | null } };

export type CancelSubscriptionMutationVariables = Exact<{
  id: string | number;
  input?: CancelSubscriptionInput | null | undefined;
}>;


export type CancelSubscriptionMutation = { cancelSubscription: { id: string, customerId: string, planId: string, priceId: string, status: string, currency: string, quantity: number, paymentMethod: string | null, currentPeriodStart: string, currentPeriodEnd: string, trialEnd: string | null, cancelAtPeriodEnd: boolean, canceledAt: string | null, pausedAt: string | null, pendingPriceId: string | null, pendingQuantity: number | null, latestInvoiceId: string | null, meteredPriceIds: Array<string>, testClockId: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, discount: { id: string, couponId: string, customerId: string, subscriptionId: string | null, invoiceId: string | null, start: string, end: string | null, status: string, coupon: { name: string, percentOff: number | null, amountOff: unknown, duration: string, durationInMonths: number | null } } | null } };

export type PauseSubscriptionMutationVariables = Exact<{
  id: string | number;
}>;


export type PauseSubscriptionMutation = { pauseSubscription: { id: string, customerId: string, planId: string, priceId: string, status: string, currency: string, quantity: number, paymentMethod: string | null, currentPeriodStart: string, currentPeriodEnd: string, trialEnd: string | null, cancelAtPeriodEnd: boolean, canceledAt: string | null, pausedAt: string | null, pendingPriceId: string | null, pendingQuantity: number | null, latestInvoiceId: string | null, meteredPriceIds: Array<string>, testClockId: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, discount: { id: string, couponId: string, customerId: string, subscriptionId: string | null, invoiceId: string | null, start: string, end: string | null, status: string, coupon: { name: string, percentOff: number | null, amountOff: unknown, duration: string, durationInMonths: number | null } } | null } };

export type ResumeSubscriptionMutationVariables = Exact<{
  id: string | number;
}>;


export type ResumeSubscriptionMutation = { resumeSubscription: { id: string, customerId: string, planId: string, priceId: string, status: string, currency: string, quantity: number, paymentMethod: string | null, currentPeriodStart: string, currentPeriodEnd: string, trialEnd: string | null, cancelAtPeriodEnd: boolean, canceledAt: string | null, pausedAt: string | null, pendingPriceId: string | null, pendingQuantity: number | null, latestInvoiceId: string | null, meteredPriceIds: Array<string>, testClockId: string | null, metadata: Record<string, string> | null, createdAt: string, updatedAt: string, discount: { id: string, couponId: string, customerId: string, subscriptionId: string | null, invoiceId: string | null, start: string, end: string | null, status: string, coupon: { name: string, percentOff: number | null, amountOff: unknown, duration: string, durationInMonths: number | null } } | null } };

export type TemplateFieldsFragment = { id: string, kind: string, name: string, isDefault: boolean, footerText: string | null, thankYouText: string, showTax: boolean, taxLabel: string, taxRate: number | null, cashierLabel: string | null, showMerchantAddress: boolean, merchantAddress: string | null, merchantTaxId: string | null, logoUrl: string | null, accentColor: string | null, tagline: string | null, createdAt: string, updatedAt: string };

export type ListTemplatesQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: string | null | undefined;
  kind?: string | null | undefined;
  isDefault?: boolean | null | undefined;
}>;


export type ListTemplatesQuery = { templates: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, kind: string, name: string, isDefault: boolean, footerText: string | null, thankYouText: string, showTax: boolean, taxLabel: string, taxRate: number | null, cashierLabel: string | null, showMerchantAddress: boolean, merchantAddress: string | null, merchantTaxId: string | null, logoUrl: string | null, accentColor: string | null, tagline: string | null, createdAt: string, updatedAt: string } }> } };

export type GetTemplateQueryVariables = Exact<{
  id: string | number;
}>;


export type GetTemplateQuery = { template: { id: string, kind: string, name: string, isDefault: boolean, footerText: string | null, thankYouText: string, showTax: boolean, taxLabel: string, taxRate: number | null, cashierLabel: string | null, showMerchantAddress: boolean, merchantAddress: string | null, merchantTaxId: string | null, logoUrl: string | null, accentColor: string | null, tagline: string | null, createdAt: string, updatedAt: string } };

export type CreateTemplateMutationVariables = Exact<{
  input: CreateTemplateInput;
}>;


export type CreateTemplateMutation = { createTemplate: { id: string, kind: string, name: string, isDefault: boolean, footerText: string | null, thankYouText: string, showTax: boolean, taxLabel: string, taxRate: number | null, cashierLabel: string | null, showMerchantAddress: boolean, merchantAddress: string | null, merchantTaxId: string | null, logoUrl: string | null, accentColor: string | null, tagline: string | null, createdAt: string, updatedAt: string } };

export type UpdateTemplateMutationVariables = Exact<{
  id: string | number;
  input: UpdateTemplateInput;
}>;


export type UpdateTemplateMutation = { updateTemplate: { id: string, kind: string, name: string, isDefault: boolean, footerText: string | null, thankYouText: string, showTax: boolean, taxLabel: string, taxRate: number | null, cashierLabel: string | null, showMerchantAddress: boolean, merchantAddress: string | null, merchantTaxId: string | null, logoUrl: string | null, accentColor: string | null, tagline: string | null, createdAt: string, updatedAt: string } };

export type TestClockFieldsFragment = { id: string, name: string | null, frozenTime: string, status: string, createdAt: string, updatedAt: string };

export type ListTestClocksQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: string | null | undefined;
}>;


export type ListTestClocksQuery = { testClocks: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, name: string | null, frozenTime: string, status: string, createdAt: string, updatedAt: string } }> } };

export type GetTestClockQueryVariables = Exact<{
  id: string | number;
}>;


export type GetTestClockQuery = { testClock: { id: string, name: string | null, frozenTime: string, status: string, createdAt: string, updatedAt: string } };

export type CreateTestClockMutationVariables = Exact<{
  input: CreateTestClockInput;
}>;


export type CreateTestClockMutation = { createTestClock: { id: string, name: string | null, frozenTime: string, status: string, createdAt: string, updatedAt: string } };

export type AdvanceTestClockMutationVariables = Exact<{
  id: string | number;
  input: AdvanceTestClockInput;
}>;


export type AdvanceTestClockMutation = { advanceTestClock: { id: string, name: string | null, frozenTime: string, status: string, createdAt: string, updatedAt: string } };

export type DeleteTestClockMutationVariables = Exact<{
  id: string | number;
}>;


export type DeleteTestClockMutation = { deleteTestClock: boolean };

export type UsageEventFieldsFragment = { id: string, eventName: string, customerId: string, externalCustomerId: string | null, timestamp: string, receivedAt: string, properties: unknown, meterIds: Array<string>, status: string, voidedAt: string | null };

export type ListUsageEventsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: string | null | undefined;
  customerId?: string | null | undefined;
  externalCustomerId?: string | null | undefined;
  eventName?: string | null | undefined;
  status?: string | null | undefined;
  from?: string | null | undefined;
  to?: string | null | undefined;
}>;


export type ListUsageEventsQuery = { usageEvents: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, eventName: string, customerId: string, externalCustomerId: string | null, timestamp: string, receivedAt: string, properties: unknown, meterIds: Array<string>, status: string, voidedAt: string | null } }> } };

export type GetUsageEventQueryVariables = Exact<{
  id: string | number;
}>;


export type GetUsageEventQuery = { usageEvent: { id: string, eventName: string, customerId: string, externalCustomerId: string | null, timestamp: string, receivedAt: string, properties: unknown, meterIds: Array<string>, status: string, voidedAt: string | null } };

export type IngestUsageEventsMutationVariables = Exact<{
  input: IngestUsageEventsInput;
}>;


export type IngestUsageEventsMutation = { ingestUsageEvents: { accepted: number, duplicates: number, rejected: number, results: Array<{ index: number, id: string | null, status: string, code: string | null, field: string | null, message: string | null }> } };

export type VoidUsageEventMutationVariables = Exact<{
  id: string | number;
}>;


export type VoidUsageEventMutation = { voidUsageEvent: { id: string, eventName: string, customerId: string, externalCustomerId: string | null, timestamp: string, receivedAt: string, properties: unknown, meterIds: Array<string>, status: string, voidedAt: string | null } };

export type UsageRecordFieldsFragment = { id: string, subscriptionId: string, quantity: number, timestamp: string, createdAt: string };

export type CreateUsageRecordMutationVariables = Exact<{
  subscriptionId: string | number;
  input: CreateUsageRecordInput;
}>;


export type CreateUsageRecordMutation = { createUsageRecord: { id: string, subscriptionId: string, quantity: number, timestamp: string, createdAt: string } };

export type WebhookEndpointFieldsFragment = { id: string, url: string, events: Array<string>, description: string | null, status: string, signatureFormat: string, signingSecret: string | null, createdAt: string, updatedAt: string, lastDelivery: unknown };

export type WebhookDeliveryFieldsFragment = { id: string, endpointId: string, eventId: string, eventType: string, status: string, statusCode: number | null, durationMs: number | null, retryCount: number, attemptedAt: string | null, nextRetryAt: string | null, responseBodyPreview: string | null };

export type ListWebhookEndpointsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  status?: string | null | undefined;
}>;


export type ListWebhookEndpointsQuery = { webhookEndpoints: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, url: string, events: Array<string>, description: string | null, status: string, signatureFormat: string, signingSecret: string | null, createdAt: string, updatedAt: string, lastDelivery: unknown } }> } };

export type GetWebhookEndpointQueryVariables = Exact<{
  id: string | number;
}>;


export type GetWebhookEndpointQuery = { webhookEndpoint: { id: string, url: string, events: Array<string>, description: string | null, status: string, signatureFormat: string, signingSecret: string | null, createdAt: string, updatedAt: string, lastDelivery: unknown } };

export type CreateWebhookEndpointMutationVariables = Exact<{
  input: CreateWebhookEndpointInput;
}>;


export type CreateWebhookEndpointMutation = { createWebhookEndpoint: { id: string, url: string, events: Array<string>, description: string | null, status: string, signatureFormat: string, signingSecret: string | null, createdAt: string, updatedAt: string, lastDelivery: unknown } };

export type UpdateWebhookEndpointMutationVariables = Exact<{
  id: string | number;
  input: UpdateWebhookEndpointInput;
}>;


export type UpdateWebhookEndpointMutation = { updateWebhookEndpoint: { id: string, url: string, events: Array<string>, description: string | null, status: string, signatureFormat: string, signingSecret: string | null, createdAt: string, updatedAt: string, lastDelivery: unknown } };

export type DeleteWebhookEndpointMutationVariables = Exact<{
  id: string | number;
}>;


export type DeleteWebhookEndpointMutation = { deleteWebhookEndpoint: boolean };

export type RotateWebhookEndpointSecretMutationVariables = Exact<{
  id: string | number;
  input?: RotateWebhookEndpointSecretInput | null | undefined;
}>;


export type RotateWebhookEndpointSecretMutation = { rotateWebhookEndpointSecret: { id: string, url: string, events: Array<string>, description: string | null, status: string, signatureFormat: string, signingSecret: string | null, createdAt: string, updatedAt: string, lastDelivery: unknown } };

export type ListWebhookDeliveriesQueryVariables = Exact<{
  endpointId: string | number;
  first?: number | null | undefined;
  after?: string | null | undefined;
  status?: string | null | undefined;
  eventType?: string | null | undefined;
  since?: string | null | undefined;
}>;


export type ListWebhookDeliveriesQuery = { webhookDeliveries: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, endpointId: string, eventId: string, eventType: string, status: string, statusCode: number | null, durationMs: number | null, retryCount: number, attemptedAt: string | null, nextRetryAt: string | null, responseBodyPreview: string | null } }> } };

export type RetryWebhookDeliveryMutationVariables = Exact<{
  endpointId: string | number;
  deliveryId: string | number;
}>;


export type RetryWebhookDeliveryMutation = { retryWebhookDelivery: { id: string, endpointId: string, eventId: string, eventType: string, status: string, statusCode: number | null, durationMs: number | null, retryCount: number, attemptedAt: string | null, nextRetryAt: string | null, responseBodyPreview: string | null } };

export type WorkspaceFieldsFragment = { id: string, accountId: string, name: string, slug: string, region: string, defaultCurrency: string, timezone: string, mode: string, brandName: string | null, businessEmail: string | null, portalSettings: unknown, createdAt: string, updatedAt: string, archivedAt: string | null };

export type ListWorkspacesQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  mode?: string | null | undefined;
  archived?: boolean | null | undefined;
}>;


export type ListWorkspacesQuery = { workspaces: { limit: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, accountId: string, name: string, slug: string, region: string, defaultCurrency: string, timezone: string, mode: string, brandName: string | null, businessEmail: string | null, portalSettings: unknown, createdAt: string, updatedAt: string, archivedAt: string | null } }> } };

export type GetWorkspaceQueryVariables = Exact<{
  id: string | number;
}>;


export type GetWorkspaceQuery = { workspace: { id: string, accountId: string, name: string, slug: string, region: string, defaultCurrency: string, timezone: string, mode: string, brandName: string | null, businessEmail: string | null, portalSettings: unknown, createdAt: string, updatedAt: string, archivedAt: string | null } };

export type CreateWorkspaceMutationVariables = Exact<{
  input: CreateWorkspaceInput;
}>;


export type CreateWorkspaceMutation = { createWorkspace: { id: string, accountId: string, name: string, slug: string, region: string, defaultCurrency: string, timezone: string, mode: string, brandName: string | null, businessEmail: string | null, portalSettings: unknown, createdAt: string, updatedAt: string, archivedAt: string | null } };

export type UpdateWorkspaceMutationVariables = Exact<{
  id: string | number;
  input: UpdateWorkspaceInput;
}>;


export type UpdateWorkspaceMutation = { updateWorkspace: { id: string, accountId: string, name: string, slug: string, region: string, defaultCurrency: string, timezone: string, mode: string, brandName: string | null, businessEmail: string | null, portalSettings: unknown, createdAt: string, updatedAt: string, archivedAt: string | null } };

export type ArchiveWorkspaceMutationVariables = Exact<{
  id: string | number;
}>;


export type ArchiveWorkspaceMutation = { archiveWorkspace: { id: string } };

export type ActivateWorkspaceMutationVariables = Exact<{
  id: string | number;
}>;


export type ActivateWorkspaceMutation = { activateWorkspace: { id: string, accountId: string, name: string, slug: string, region: string, defaultCurrency: string, timezone: string, mode: string, brandName: string | null, businessEmail: string | null, portalSettings: unknown, createdAt: string, updatedAt: string, archivedAt: string | null } };

export type RestoreWorkspaceMutationVariables = Exact<{
  id: string | number;
}>;


export type RestoreWorkspaceMutation = { restoreWorkspace: { id: string, accountId: string, name: string, slug: string, region: string, defaultCurrency: string, timezone: string, mode: string, brandName: string | null, businessEmail: string | null, portalSettings: unknown, createdAt: string, updatedAt: string, archivedAt: string | null } };
