/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
export type CancelSubscriptionInput = {
  /** true: cancel at the period end (as PATCH cancelAtPeriodEnd). */
  atPeriodEnd?: boolean | null | undefined;
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

export type CreateRefundInput = {
  amount?: number | null | undefined;
  chargeId?: string | null | undefined;
  metadata?: Record<string, string> | null | undefined;
  reason?: string | null | undefined;
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

export type CreateWebhookEndpointInput = {
  description?: string | null | undefined;
  enabled?: boolean | null | undefined;
  events?: Array<string> | null | undefined;
  /** `svc` (default) or `standard` (Standard Webhooks headers) */
  signatureFormat?: string | null | undefined;
  url?: string | null | undefined;
};

/** An invoice line by quantity or by amount, or a custom line (description, quantity, unitAmount). */
export type CreditNoteLineInput = {
  amount?: number | null | undefined;
  description?: string | null | undefined;
  invoiceLineId?: string | null | undefined;
  quantity?: number | null | undefined;
  unitAmount?: number | null | undefined;
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

export type UpdatePayoutBankAccountInput = {
  bankAccountHolder?: string | null | undefined;
  bankAccountNumber?: string | null | undefined;
  bankCode?: string | null | undefined;
  bankName?: string | null | undefined;
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

export type DashboardBillingQueryVariables = Exact<{ [key: string]: never; }>;


export type DashboardBillingQuery = { plans: { edges: Array<{ node: { id: string, name: string, interval: string, intervalCount: number, active: boolean } }> }, subscriptions: { edges: Array<{ node: { id: string, status: string, customerId: string, currency: string, currentPeriodEnd: string, cancelAtPeriodEnd: boolean, pausedAt: string | null, plan: { id: string, name: string } | null } }> } };

export type DashboardCancelSubscriptionMutationVariables = Exact<{
  id: string | number;
  idempotencyKey: string;
  input?: CancelSubscriptionInput | null | undefined;
}>;


export type DashboardCancelSubscriptionMutation = { cancelSubscription: { id: string, status: string, customerId: string, currency: string, currentPeriodEnd: string, cancelAtPeriodEnd: boolean, pausedAt: string | null, plan: { id: string, name: string } | null } };

export type DashboardPauseSubscriptionMutationVariables = Exact<{
  id: string | number;
  idempotencyKey: string;
}>;


export type DashboardPauseSubscriptionMutation = { pauseSubscription: { id: string, status: string, customerId: string, currency: string, currentPeriodEnd: string, cancelAtPeriodEnd: boolean, pausedAt: string | null, plan: { id: string, name: string } | null } };

export type DashboardResumeSubscriptionMutationVariables = Exact<{
  id: string | number;
  idempotencyKey: string;
}>;


export type DashboardResumeSubscriptionMutation = { resumeSubscription: { id: string, status: string, customerId: string, currency: string, currentPeriodEnd: string, cancelAtPeriodEnd: boolean, pausedAt: string | null, plan: { id: string, name: string } | null } };

export type DashboardCreatePlanMutationVariables = Exact<{
  input: CreatePlanInput;
  idempotencyKey: string;
}>;


export type DashboardCreatePlanMutation = { createPlan: { id: string, name: string, interval: string, intervalCount: number, active: boolean } };

export type DashboardArchivePlanMutationVariables = Exact<{
  id: string | number;
  idempotencyKey: string;
}>;


export type DashboardArchivePlanMutation = { archivePlan: { id: string, active: boolean } };

export type DashboardFeedSubscriptionVariables = Exact<{
  after?: string | number | null | undefined;
}>;


export type DashboardFeedSubscription = { events: { id: string, type: string, occurredAt: string, data: unknown } };

export type DashboardInvoicesQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type DashboardInvoicesQuery = { invoices: { edges: Array<{ node: { id: string, number: string | null, status: string, total: number, amountDue: number, currency: string, customerId: string, createdAt: string, pdfUrl: string } }>, pageInfo: { endCursor: string | null, hasNextPage: boolean } }, customers: { edges: Array<{ node: { id: string, name: string | null, email: string | null } }> } };

export type DashboardCreateInvoiceMutationVariables = Exact<{
  input: CreateInvoiceInput;
  idempotencyKey: string;
}>;


export type DashboardCreateInvoiceMutation = { createInvoice: { id: string, status: string } };

export type DashboardFinalizeInvoiceMutationVariables = Exact<{
  id: string | number;
  idempotencyKey: string;
}>;


export type DashboardFinalizeInvoiceMutation = { finalizeInvoice: { id: string, number: string | null, status: string, total: number, amountDue: number, pdfUrl: string } };

export type DashboardVoidInvoiceMutationVariables = Exact<{
  id: string | number;
  idempotencyKey: string;
}>;


export type DashboardVoidInvoiceMutation = { voidInvoice: { id: string, status: string, amountDue: number } };

export type DashboardSendInvoiceMutationVariables = Exact<{
  id: string | number;
  idempotencyKey: string;
}>;


export type DashboardSendInvoiceMutation = { sendInvoiceEmail: { sent: boolean, to: string } };

export type DashboardInvoiceQueryVariables = Exact<{
  id: string | number;
}>;


export type DashboardInvoiceQuery = { invoice: { id: string, number: string | null, status: string, currency: string, customerId: string, subtotal: number, tax: number, total: number, amountDue: number, amountPaid: number, creditedAmount: number, amountRemaining: number, createdAt: string, pdfUrl: string, lines: Array<{ id: string, description: string, quantity: number, unitAmount: number, amount: number }>, creditNotes: Array<{ id: string | null, number: string | null, status: string, reason: string | null, memo: string | null, total: number, currency: string, issuedAt: string, pdfUrl: string | null }> } };

export type DashboardCreateCreditNoteMutationVariables = Exact<{
  input: CreateCreditNoteInput;
  idempotencyKey: string;
}>;


export type DashboardCreateCreditNoteMutation = { createCreditNote: { id: string | null, number: string | null, total: number } };

export type DashboardPayoutsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type DashboardPayoutsQuery = { idr: { currency: string, available: number, ledgerBalance: number, locked: number }, payoutBankAccount: { bankCode: string | null, bankName: string | null, bankAccountNumber: string | null, bankAccountHolder: string | null }, payouts: { edges: Array<{ node: { id: string, amount: number, currency: string, status: string, bankName: string, createdAt: string } }>, pageInfo: { endCursor: string | null, hasNextPage: boolean } } };

export type DashboardCreatePayoutMutationVariables = Exact<{
  input: CreatePayoutInput;
  idempotencyKey: string;
}>;


export type DashboardCreatePayoutMutation = { createPayout: { id: string, amount: number, status: string } };

export type DashboardUpdateBankAccountMutationVariables = Exact<{
  input: UpdatePayoutBankAccountInput;
}>;


export type DashboardUpdateBankAccountMutation = { updatePayoutBankAccount: { bankCode: string | null, bankName: string | null, bankAccountNumber: string | null, bankAccountHolder: string | null } };

export type DashboardReportsQueryVariables = Exact<{
  currency: string;
  from: string;
  to: string;
}>;


export type DashboardReportsQuery = { pnlReport: { currency: string, from: string, to: string, totalRevenue: number, refunds: number, fees: number, tax: number, netIncome: number, revenue: Array<{ code: string, amount: number }> }, cashFlowReport: { currency: string, openingBalance: number, inflows: number, outflows: number, closingBalance: number, byDay: Array<{ date: string, inflows: number, outflows: number }> } };

export type DashboardHomeQueryVariables = Exact<{
  from: string;
  to: string;
}>;


export type DashboardHomeQuery = { idr: { currency: string, available: number, ledgerBalance: number, locked: number }, usd: { currency: string, available: number, ledgerBalance: number, locked: number }, idrFlow: { currency: string, inflows: number, byDay: Array<{ date: string, inflows: number }> }, recent: { edges: Array<{ node: { id: string, type: string, occurredAt: string, data: unknown } }> } };

export type DashboardPaymentsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  status?: string | null | undefined;
  customerId?: string | null | undefined;
}>;


export type DashboardPaymentsQuery = { payments: { edges: Array<{ cursor: string, node: { id: string, amount: number, amountRefunded: number, currency: string, status: string, method: string | null, customerId: string | null, createdAt: string } }>, pageInfo: { endCursor: string | null, hasNextPage: boolean } } };

export type DashboardPaymentQueryVariables = Exact<{
  id: string | number;
  objectId: string;
}>;


export type DashboardPaymentQuery = { payment: { id: string, amount: number, amountRefunded: number, currency: string, status: string, method: string | null, adapter: string | null, customerId: string | null, checkoutSessionId: string | null, invoiceId: string | null, createdAt: string, capturedAt: string | null, customer: { id: string, name: string | null, email: string | null } | null, refunds: { edges: Array<{ node: { id: string, amount: number, status: string, reason: string | null, createdAt: string } }> } }, timeline: { edges: Array<{ node: { id: string, type: string, occurredAt: string } }> } };

export type DashboardRefundMutationVariables = Exact<{
  input: CreateRefundInput;
  idempotencyKey: string;
}>;


export type DashboardRefundMutation = { createRefund: { id: string, amount: number, status: string, payment: { id: string, amountRefunded: number, status: string } | null } };

export type DashboardCustomersQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type DashboardCustomersQuery = { customers: { edges: Array<{ node: { id: string, name: string | null, email: string | null, createdAt: string } }>, pageInfo: { endCursor: string | null, hasNextPage: boolean } } };

export type DashboardCustomerQueryVariables = Exact<{
  id: string | number;
  customerId: string;
}>;


export type DashboardCustomerQuery = { customer: { id: string, name: string | null, email: string | null, phone: string | null, createdAt: string, balance: { balances: Array<{ amount: number, currency: string }> }, paymentMethods: { edges: Array<{ node: { id: string, type: string, status: string, isDefault: boolean, expiresAt: string | null, card: unknown, ewallet: unknown, directDebit: unknown, paypal: unknown } }> }, payments: { edges: Array<{ node: { id: string, amount: number, currency: string, status: string, createdAt: string } }> } }, invoices: { edges: Array<{ node: { id: string, number: string | null, status: string, total: number, currency: string } }> }, subscriptions: { edges: Array<{ node: { id: string, status: string, createdAt: string } }> } };

export type DashboardSettingsQueryVariables = Exact<{
  workspaceId: string | number;
}>;


export type DashboardSettingsQuery = { workspace: { id: string, name: string, brandName: string | null, portalSettings: unknown }, templates: { edges: Array<{ node: { id: string, kind: string, name: string, isDefault: boolean, accentColor: string | null, logoUrl: string | null, tagline: string | null, footerText: string | null, thankYouText: string } }> } };

export type DashboardUpdateWorkspaceMutationVariables = Exact<{
  id: string | number;
  input: UpdateWorkspaceInput;
}>;


export type DashboardUpdateWorkspaceMutation = { updateWorkspace: { id: string, name: string, brandName: string | null, portalSettings: unknown } };

export type DashboardCreateTemplateMutationVariables = Exact<{
  input: CreateTemplateInput;
  idempotencyKey: string;
}>;


export type DashboardCreateTemplateMutation = { createTemplate: { id: string, kind: string, name: string, isDefault: boolean, accentColor: string | null, logoUrl: string | null, tagline: string | null, footerText: string | null, thankYouText: string } };

export type DashboardUpdateTemplateMutationVariables = Exact<{
  id: string | number;
  input: UpdateTemplateInput;
  idempotencyKey: string;
}>;


export type DashboardUpdateTemplateMutation = { updateTemplate: { id: string, kind: string, name: string, isDefault: boolean, accentColor: string | null, logoUrl: string | null, tagline: string | null, footerText: string | null, thankYouText: string } };

export type DashboardTeamQueryVariables = Exact<{
  workspaceId: string | number;
}>;


export type DashboardTeamQuery = { members: { edges: Array<{ node: { id: string, email: string, role: string, status: string, joinedAt: string | null, invitedAt: string | null } }> } };

export type DashboardInviteMutationVariables = Exact<{
  workspaceId: string | number;
  input: InviteMemberInput;
  idempotencyKey: string;
}>;


export type DashboardInviteMutation = { inviteMember: { id: string, email: string, role: string, status: string, joinedAt: string | null, invitedAt: string | null } };

export type DashboardDevelopersQueryVariables = Exact<{ [key: string]: never; }>;


export type DashboardDevelopersQuery = { auditLog: { edges: Array<{ node: { id: string, action: string, at: string, actorKeyId: string | null, actorMemberId: string | null, targetId: string | null, requestId: string | null } }> }, apiKeys: { edges: Array<{ node: { id: string, keyId: string, name: string, role: string, environment: string, createdAt: string, lastUsedAt: string | null, revokedAt: string | null } }> }, webhookEndpoints: { edges: Array<{ node: { id: string, url: string, status: string, events: Array<string> } }> }, events: { edges: Array<{ node: { id: string, type: string, occurredAt: string } }> } };

export type DashboardWebhooksQueryVariables = Exact<{ [key: string]: never; }>;


export type DashboardWebhooksQuery = { webhookEndpoints: { edges: Array<{ node: { id: string, url: string, status: string, events: Array<string>, description: string | null, signatureFormat: string, createdAt: string } }> } };

export type DashboardWebhookDeliveriesQueryVariables = Exact<{
  endpointId: string | number;
}>;


export type DashboardWebhookDeliveriesQuery = { webhookDeliveries: { edges: Array<{ node: { id: string, eventId: string, eventType: string, status: string, statusCode: number | null, retryCount: number, attemptedAt: string | null, nextRetryAt: string | null, durationMs: number | null } }> } };

export type DashboardCreateWebhookMutationVariables = Exact<{
  input: CreateWebhookEndpointInput;
  idempotencyKey: string;
}>;


export type DashboardCreateWebhookMutation = { createWebhookEndpoint: { id: string, url: string, status: string, events: Array<string>, description: string | null, signatureFormat: string, createdAt: string, signingSecret: string | null } };

export type DashboardRotateWebhookMutationVariables = Exact<{
  id: string | number;
}>;


export type DashboardRotateWebhookMutation = { rotateWebhookEndpointSecret: { id: string, signingSecret: string | null } };

export type DashboardRetryDeliveryMutationVariables = Exact<{
  endpointId: string | number;
  deliveryId: string | number;
  idempotencyKey: string;
}>;


export type DashboardRetryDeliveryMutation = { retryWebhookDelivery: { id: string, eventId: string, eventType: string, status: string, statusCode: number | null, retryCount: number, attemptedAt: string | null, nextRetryAt: string | null, durationMs: number | null } };
