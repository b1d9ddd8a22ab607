/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
/** spec Invoices create. subtotal and total are computed by the server: sending them is refused. */
export type CreateInvoiceInput = {
  /** Finalization applies the customer's credit in the invoice currency (default true). */
  applyCustomerBalance?: boolean | null | undefined;
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

export type CreateRefundInput = {
  amount?: number | null | undefined;
  chargeId?: string | null | undefined;
  metadata?: Record<string, string> | null | undefined;
  reason?: string | null | undefined;
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


export type DashboardPaymentQuery = { payment: { id: string, amount: number, amountRefunded: number, currency: string, status: string, method: string | null, adapter: string | null, customerId: string | null, checkoutSessionId: string | null, invoiceId: string | null, createdAt: string, capturedAt: string | null, refunds: { edges: Array<{ node: { id: string, amount: number, status: string, reason: string | null, createdAt: string } }> } }, timeline: { edges: Array<{ node: { id: string, type: string, occurredAt: string } }> } };

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

export type DashboardFeedSubscriptionVariables = Exact<{
  after?: string | number | null | undefined;
}>;


export type DashboardFeedSubscription = { events: { id: string, type: string, occurredAt: string, data: unknown } };

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


export type DashboardDevelopersQuery = { apiKeys: { edges: Array<{ node: { id: string, keyId: string, name: string, role: string, environment: string, createdAt: string, lastUsedAt: string | null, revokedAt: string | null } }> }, webhookEndpoints: { edges: Array<{ node: { id: string, url: string, status: string, events: Array<string> } }> }, events: { edges: Array<{ node: { id: string, type: string, occurredAt: string } }> } };

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

export type DashboardPayoutsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type DashboardPayoutsQuery = { idr: { currency: string, available: number, ledgerBalance: number, locked: number }, payoutBankAccount: { bankCode: string | null, bankName: string | null, bankAccountNumber: string | null, bankAccountHolder: string | null }, payouts: { edges: Array<{ node: { id: string, amount: number, currency: string, status: string, bankName: string, createdAt: string } }>, pageInfo: { endCursor: string | null, hasNextPage: boolean } } };

export type DashboardCustomerQueryVariables = Exact<{
  id: string | number;
  customerId: string;
}>;


export type DashboardCustomerQuery = { customer: { id: string, name: string | null, email: string | null, phone: string | null, createdAt: string, payments: { edges: Array<{ node: { id: string, amount: number, currency: string, status: string, createdAt: string } }> } }, invoices: { edges: Array<{ node: { id: string, number: string | null, status: string, total: number, currency: string } }> }, subscriptions: { edges: Array<{ node: { id: string, status: string, createdAt: string } }> } };

export type DashboardBillingQueryVariables = Exact<{ [key: string]: never; }>;


export type DashboardBillingQuery = { plans: { edges: Array<{ node: { id: string, name: string, interval: string, intervalCount: number, active: boolean } }> }, subscriptions: { edges: Array<{ node: { id: string, status: string, customerId: string, currency: string, currentPeriodEnd: string, plan: { id: string, name: string } | null } }> } };
