import type { ErrorCode } from '../src/core/errors.ts';
import type * as Ops from './generated/operations.ts';
import { listQuery, metadataQuery, noBody, type Input } from './inputs.ts';
import { config } from '../src/core/config.ts';

/**
 * The REST surface: one entry per route. Each runs the GraphQL operation of the same name
 * (rest-compat/operations/*.graphql); its selection set is the response contract.
 */
export interface Route<V = Record<string, unknown>> {
  /** The operation name in rest-compat/operations, also the route id. */
  id: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  variables: (req: Input) => V;
  /**
   * Success status; 204 sends no body. What the operation needs (scope, rate class, Idempotency-Key,
   * error spelling) is declared on its root field (`admission`, src/graphql/operation.ts), not here.
   */
  status?: 200 | 201 | 202 | 204;
  /**
   * Where the spec's REST shape differs from the GraphQL result: applied to `data`. Only
   * GET /v1/adapters uses it (REST omits never-connected kinds; GraphQL has them null).
   */
  shape?: (data: unknown) => unknown;
  /** The operation returns a document ({contentType, filename, contentBase64}): sent as the body, not in the envelope. */
  download?: boolean;
  /**
   * Domain errors the spec documents for this route beyond those its shape implies (signing,
   * input, `:id`, paging, idempotency, rate: rest-compat/openapi.ts). Documentation only (OpenAPI).
   */
  errors?: ErrorCode[];
  /** The route's body limit in bytes, when not the server's (usage ingestion: 4 MiB). */
  bodyLimit?: number;
}

const route = <V>(r: Route<V>) => r as unknown as Route;
const withoutNulls = (data: unknown) =>
  Object.fromEntries(Object.entries(data as Record<string, unknown>).filter(([, v]) => v !== null));
const id = (req: Input) => ({ id: req.params.id });

export const routes: Route[] = [
  // API keys
  route<Ops.ListApiKeysQueryVariables>({
    id: 'listApiKeys',
    method: 'GET',
    path: '/v1/api-keys',
    variables: (r) => listQuery(r, { environment: 'string', includeRevoked: 'boolean' }),
  }),
  route<Ops.GetApiKeyQueryVariables>({
    id: 'getApiKey',
    method: 'GET',
    path: '/v1/api-keys/:id',
    variables: id,
  }),
  route<Ops.CreateApiKeyMutationVariables>({
    id: 'createApiKey',
    method: 'POST',
    path: '/v1/api-keys',
    errors: ['tier_cap_reached'],
    status: 201,
    variables: (r) => ({ input: r.body as Ops.CreateApiKeyInput }),
  }),
  route<Ops.RevokeApiKeyMutationVariables>({
    id: 'revokeApiKey',
    method: 'DELETE',
    path: '/v1/api-keys/:id',
    errors: ['cannot_revoke_self'],
    status: 204,
    variables: id,
  }),

  // Audit log (DECISIONS §3): read-only, newest first, exact filters.
  route<Ops.ListAuditLogQueryVariables>({
    id: 'listAuditLog',
    method: 'GET',
    path: '/v1/audit-log',
    variables: (r) => listQuery(r, { order: 'string', action: 'string', targetId: 'string' }),
  }),

  // Workspaces
  route<Ops.ListWorkspacesQueryVariables>({
    id: 'listWorkspaces',
    method: 'GET',
    path: '/v1/workspaces',
    variables: (r) => listQuery(r, { mode: 'string', archived: 'boolean' }),
  }),
  route<Ops.GetWorkspaceQueryVariables>({
    id: 'getWorkspace',
    method: 'GET',
    path: '/v1/workspaces/:id',
    variables: id,
  }),
  route<Ops.CreateWorkspaceMutationVariables>({
    id: 'createWorkspace',
    method: 'POST',
    path: '/v1/workspaces',
    status: 201,
    variables: (r) => ({ input: r.body as Ops.CreateWorkspaceInput }),
  }),
  route<Ops.UpdateWorkspaceMutationVariables>({
    id: 'updateWorkspace',
    method: 'PATCH',
    path: '/v1/workspaces/:id',
    errors: ['region_immutable'],
    variables: (r) => ({ id: r.params.id, input: r.body as Ops.UpdateWorkspaceInput }),
  }),
  route<Ops.ArchiveWorkspaceMutationVariables>({
    id: 'archiveWorkspace',
    method: 'DELETE',
    path: '/v1/workspaces/:id',
    errors: ['owner_required'],
    status: 204,
    variables: id,
  }),
  // DECISIONS §7 activation; restore within the 90-day window (docs/decisions.md, Workspace lifecycle)
  route<Ops.ActivateWorkspaceMutationVariables>({
    id: 'activateWorkspace',
    method: 'POST',
    path: '/v1/workspaces/:id/activate',
    variables: (r) => ({ ...noBody(r), ...id(r) }),
  }),
  route<Ops.RestoreWorkspaceMutationVariables>({
    id: 'restoreWorkspace',
    method: 'POST',
    path: '/v1/workspaces/:id/restore',
    variables: (r) => ({ ...noBody(r), ...id(r) }),
  }),

  // Members (spec Workspaces and members; DECISIONS §2, §7)
  route<Ops.ListMembersQueryVariables>({
    id: 'listMembers',
    method: 'GET',
    path: '/v1/workspaces/:id/members',
    variables: (r) => ({ workspaceId: r.params.id, ...listQuery(r, { status: 'string' }) }),
  }),
  route<Ops.InviteMemberMutationVariables>({
    id: 'inviteMember',
    method: 'POST',
    path: '/v1/workspaces/:id/members',
    status: 201,
    variables: (r) => ({ workspaceId: r.params.id, input: r.body as Ops.InviteMemberInput }),
    errors: ['recipient_unverified'],
  }),
  route<Ops.UpdateMemberMutationVariables>({
    id: 'updateMember',
    method: 'PATCH',
    path: '/v1/workspaces/:id/members/:memberId',
    variables: (r) => ({ workspaceId: r.params.id, id: r.params.memberId, input: r.body as Ops.UpdateMemberInput }),
  }),
  route<Ops.RemoveMemberMutationVariables>({
    id: 'removeMember',
    method: 'DELETE',
    path: '/v1/workspaces/:id/members/:memberId',
    status: 204,
    variables: (r) => ({ workspaceId: r.params.id, id: r.params.memberId }),
  }),
  route<Ops.TransferWorkspaceOwnershipMutationVariables>({
    id: 'transferWorkspaceOwnership',
    method: 'POST',
    path: '/v1/workspaces/:id/transfer-ownership',
    variables: (r) => ({ workspaceId: r.params.id, input: r.body as Ops.TransferOwnershipInput }),
  }),

  // Events
  route<Ops.ListEventsQueryVariables>({
    id: 'listEvents',
    method: 'GET',
    path: '/v1/events',
    variables: (r) =>
      listQuery(r, {
        order: 'string',
        type: 'string',
        objectId: 'string',
        workspaceId: 'string',
        occurredAfter: 'instant',
        since: { as: 'occurredAfter', kind: 'instant' },
        occurredBefore: 'instant',
        until: { as: 'occurredBefore', kind: 'instant' },
      }),
  }),
  route<Ops.GetEventQueryVariables>({
    id: 'getEvent',
    method: 'GET',
    path: '/v1/events/:id',
    variables: id,
  }),
  // spec Events: replay (rate class mutating_heavy, src/core/rate-limit.ts) and trigger (test mode only)
  route<Ops.ReplayEventsMutationVariables>({
    id: 'replayEvents',
    method: 'POST',
    path: '/v1/events/replay',
    errors: ['not_found'],
    status: 201,
    variables: (r) => ({ input: r.body as Ops.ReplayEventsInput }),
  }),
  route<Ops.TriggerEventMutationVariables>({
    id: 'triggerEvent',
    method: 'POST',
    path: '/v1/events/trigger',
    errors: ['forbidden_in_live_mode'],
    status: 201,
    variables: (r) => ({ input: r.body as Ops.TriggerEventInput }),
  }),

  // Webhook endpoints (spec Webhook endpoints; spec Webhook delivery)
  route<Ops.ListWebhookEndpointsQueryVariables>({
    id: 'listWebhookEndpoints',
    method: 'GET',
    path: '/v1/webhook-endpoints',
    variables: (r) => listQuery(r, { status: 'string' }),
  }),
  route<Ops.GetWebhookEndpointQueryVariables>({
    id: 'getWebhookEndpoint',
    method: 'GET',
    path: '/v1/webhook-endpoints/:id',
    variables: id,
  }),
  route<Ops.CreateWebhookEndpointMutationVariables>({
    id: 'createWebhookEndpoint',
    method: 'POST',
    path: '/v1/webhook-endpoints',
    errors: ['url_not_allowed', 'tier_cap_exceeded'],
    status: 201,
    variables: (r) => ({ input: r.body as Ops.CreateWebhookEndpointInput }),
  }),
  route<Ops.UpdateWebhookEndpointMutationVariables>({
    id: 'updateWebhookEndpoint',
    method: 'PATCH',
    path: '/v1/webhook-endpoints/:id',
    errors: ['url_not_allowed'],
    variables: (r) => ({ id: r.params.id, input: r.body as Ops.UpdateWebhookEndpointInput }),
  }),
  route<Ops.DeleteWebhookEndpointMutationVariables>({
    id: 'deleteWebhookEndpoint',
    method: 'DELETE',
    path: '/v1/webhook-endpoints/:id',
    status: 204,
    variables: id,
  }),
  route<Ops.RotateWebhookEndpointSecretMutationVariables>({
    id: 'rotateWebhookEndpointSecret',
    method: 'POST',
    path: '/v1/webhook-endpoints/:id/rotate-secret',
    variables: (r) => ({ id: r.params.id, input: r.body as Ops.RotateWebhookEndpointSecretInput }),
  }),
  route<Ops.ListWebhookDeliveriesQueryVariables>({
    id: 'listWebhookDeliveries',
    method: 'GET',
    path: '/v1/webhook-endpoints/:id/deliveries',
    variables: (r) => ({
      endpointId: r.params.id,
      ...listQuery(r, { status: 'string', eventType: 'string', since: 'instant' }),
    }),
  }),
  route<Ops.RetryWebhookDeliveryMutationVariables>({
    id: 'retryWebhookDelivery',
    method: 'POST',
    path: '/v1/webhook-endpoints/:id/deliveries/:deliveryId/retry',
    errors: ['already_succeeded', 'endpoint_disabled'],
    status: 202,
    variables: (r) => ({ endpointId: r.params.id, deliveryId: r.params.deliveryId }),
  }),

  // Customers (spec Customer)
  route<Ops.ListCustomersQueryVariables>({
    id: 'listCustomers',
    method: 'GET',
    path: '/v1/customers',
    variables: (r) => ({
      ...listQuery(r, { order: 'string', email: 'string', since: 'instant', until: 'instant' }),
      metadata: metadataQuery(r),
    }),
  }),
  route<Ops.GetCustomerQueryVariables>({
    id: 'getCustomer',
    method: 'GET',
    path: '/v1/customers/:id',
    variables: id,
  }),
  route<Ops.CreateCustomerMutationVariables>({
    id: 'createCustomer',
    method: 'POST',
    path: '/v1/customers',
    status: 201,
    variables: (r) => ({ input: r.body as Ops.CreateCustomerInput }),
  }),
  route<Ops.UpdateCustomerMutationVariables>({
    id: 'updateCustomer',
    method: 'PATCH',
    path: '/v1/customers/:id',
    variables: (r) => ({ id: r.params.id, input: r.body as Ops.UpdateCustomerInput }),
  }),

  // Payment methods (docs/guides/payment-methods.md): error codes lower case
  route<Ops.ListPaymentMethodsQueryVariables>({
    id: 'listPaymentMethods',
    method: 'GET',
    path: '/v1/payment-methods',
    variables: (r) => listQuery(r, { order: 'string', customerId: 'string', type: 'string', status: 'string' }),
  }),
  route<Ops.GetPaymentMethodQueryVariables>({
    id: 'getPaymentMethod',
    method: 'GET',
    path: '/v1/payment-methods/:id',
    variables: id,
  }),
  // Test mode only: a sandbox method from a scenario
  route<Ops.CreatePaymentMethodMutationVariables>({
    id: 'createPaymentMethod',
    method: 'POST',
    path: '/v1/payment-methods',
    errors: ['forbidden_in_live_mode', 'not_found', 'gateway_error'],
    status: 201,
    variables: (r) => ({ input: r.body as Ops.CreatePaymentMethodInput }),
  }),
  route<Ops.UpdatePaymentMethodMutationVariables>({
    id: 'updatePaymentMethod',
    method: 'PATCH',
    path: '/v1/payment-methods/:id',
    errors: ['conflict'],
    variables: (r) => ({ id: r.params.id, input: r.body as Ops.UpdatePaymentMethodInput }),
  }),
  route<Ops.DetachPaymentMethodMutationVariables>({
    id: 'detachPaymentMethod',
    method: 'POST',
    path: '/v1/payment-methods/:id/detach',
    variables: (r) => ({ ...noBody(r), ...id(r) }),
  }),
  route<Ops.SimulatePaymentMethodEventMutationVariables>({
    id: 'simulatePaymentMethodEvent',
    method: 'POST',
    path: '/v1/payment-methods/:id/simulate',
    errors: ['forbidden_in_live_mode', 'conflict'],
    variables: (r) => ({ id: r.params.id, input: r.body as Ops.SimulatePaymentMethodInput }),
  }),

  // Templates (spec Template)
  route<Ops.ListTemplatesQueryVariables>({
    id: 'listTemplates',
    method: 'GET',
    path: '/v1/templates',
    variables: (r) => listQuery(r, { order: 'string', kind: 'string', isDefault: 'boolean' }),
  }),
  route<Ops.GetTemplateQueryVariables>({
    id: 'getTemplate',
    method: 'GET',
    path: '/v1/templates/:id',
    variables: id,
  }),
  route<Ops.CreateTemplateMutationVariables>({
    id: 'createTemplate',
    method: 'POST',
    path: '/v1/templates',
    status: 201,
    variables: (r) => ({ input: r.body as Ops.CreateTemplateInput }),
  }),
  route<Ops.UpdateTemplateMutationVariables>({
    id: 'updateTemplate',
    method: 'PATCH',
    path: '/v1/templates/:id',
    variables: (r) => ({ id: r.params.id, input: r.body as Ops.UpdateTemplateInput }),
  }),

  // Adapters (spec Adapters)
  route<Ops.GetAdaptersQueryVariables>({
    id: 'getAdapters',
    method: 'GET',
    path: '/v1/adapters',
    variables: () => ({}),
    shape: withoutNulls,
  }),
  route<Ops.ConnectProviderAAdapterMutationVariables>({
    id: 'connectProviderAAdapter',
    method: 'PUT',
    path: '/v1/adapters/provider_a',
    errors: ['gateway_error'],
    variables: (r) => ({ input: r.body as Ops.ConnectProviderAAdapterInput }),
  }),
  route<Ops.ConnectProviderBAdapterMutationVariables>({
    id: 'connectProviderBAdapter',
    method: 'PUT',
    path: '/v1/adapters/provider_b',
    errors: ['gateway_error'],
    variables: (r) => ({ input: r.body as Ops.ConnectProviderBAdapterInput }),
  }),
  route<Ops.ConnectProviderCAdapterMutationVariables>({
    id: 'connectProviderCAdapter',
    method: 'PUT',
    path: '/v1/adapters/provider_c',
    errors: ['gateway_error'],
    variables: (r) => ({ input: r.body as Ops.ConnectProviderCAdapterInput }),
  }),
  route<Ops.ConfigureManualAdapterMutationVariables>({
    id: 'configureManualAdapter',
    method: 'PUT',
    path: '/v1/adapters/manual',
    variables: (r) => ({ input: r.body as Ops.ConfigureManualAdapterInput }),
  }),
  route<Ops.GetManagedOnboardingQueryVariables>({
    id: 'getManagedOnboarding',
    method: 'GET',
    path: '/v1/adapters/managed/onboarding',
    variables: () => ({}),
  }),
  // spec Response shapes: returns the onboarding state object; not a create, so 200
  route<Ops.StartManagedOnboardingMutationVariables>({
    id: 'startManagedOnboarding',
    method: 'POST',
    path: '/v1/adapters/managed/onboarding',
    variables: (r) => ({ input: r.body as Ops.StartManagedOnboardingInput }),
  }),
  // Checkout sessions
  route<Ops.ListCheckoutSessionsQueryVariables>({
    id: 'listCheckoutSessions',
    method: 'GET',
    path: '/v1/checkout-sessions',
    variables: (r) =>
      listQuery(r, {
        order: 'string',
        status: 'string',
        customerId: 'string',
        mode: 'string',
        createdAfter: 'instant',
        createdBefore: 'instant',
      }),
  }),
  route<Ops.GetCheckoutSessionQueryVariables>({
    id: 'getCheckoutSession',
    method: 'GET',
    path: '/v1/checkout-sessions/:id',
    variables: id,
  }),
  route<Ops.CreateCheckoutSessionMutationVariables>({
    id: 'createCheckoutSession',
    method: 'POST',
    path: '/v1/checkout-sessions',
    errors: ['not_found', 'no_adapter_supports_methods'],
    status: 201,
    variables: (r) => ({ input: r.body as unknown as Ops.CreateCheckoutSessionInput }),
  }),
  route<Ops.CancelCheckoutSessionMutationVariables>({
    id: 'cancelCheckoutSession',
    method: 'POST',
    path: '/v1/checkout-sessions/:id/cancel',
    errors: ['conflict'],
    variables: id,
  }),
  route<Ops.ConfirmCheckoutSessionMutationVariables>({
    id: 'confirmCheckoutSession',
    method: 'POST',
    path: '/v1/checkout-sessions/:id/confirm',
    errors: ['conflict'],
    variables: id,
  }),
  route<Ops.GetCheckoutSessionReceiptQueryVariables>({
    id: 'getCheckoutSessionReceipt',
    method: 'GET',
    path: '/v1/checkout-sessions/:id/receipt',
    variables: id,
  }),

  // Setup sessions (docs/guides/setup-sessions.md): errors spelled as checkout
  route<Ops.ListSetupSessionsQueryVariables>({
    id: 'listSetupSessions',
    method: 'GET',
    path: '/v1/setup-sessions',
    variables: (r) => listQuery(r, { order: 'string', customerId: 'string', status: 'string' }),
  }),
  route<Ops.GetSetupSessionQueryVariables>({
    id: 'getSetupSession',
    method: 'GET',
    path: '/v1/setup-sessions/:id',
    variables: id,
  }),
  route<Ops.CreateSetupSessionMutationVariables>({
    id: 'createSetupSession',
    method: 'POST',
    path: '/v1/setup-sessions',
    errors: ['not_found', 'no_adapter_supports_methods'],
    status: 201,
    variables: (r) => ({ input: r.body as unknown as Ops.CreateSetupSessionInput }),
  }),
  route<Ops.CancelSetupSessionMutationVariables>({
    id: 'cancelSetupSession',
    method: 'POST',
    path: '/v1/setup-sessions/:id/cancel',
    errors: ['conflict'],
    variables: id,
  }),

  // Payments (spec Payment)
  route<Ops.ListPaymentsQueryVariables>({
    id: 'listPayments',
    method: 'GET',
    path: '/v1/payments',
    variables: (r) =>
      listQuery(r, { order: 'string', status: 'string', customerId: 'string', checkoutSessionId: 'string' }),
  }),
  route<Ops.GetPaymentQueryVariables>({
    id: 'getPayment',
    method: 'GET',
    path: '/v1/payments/:id',
    variables: id,
  }),
  // docs/guides/payment-methods.md, Test scenarios: test mode only; a pending or requires_action off-session charge
  route<Ops.SimulatePaymentMutationVariables>({
    id: 'simulatePayment',
    method: 'POST',
    path: '/v1/payments/:id/simulate',
    errors: ['forbidden_in_live_mode', 'conflict', 'not_found'],
    variables: (r) => ({ id: r.params.id, input: r.body as Ops.SimulatePaymentInput }),
  }),

  // Invoices (spec Invoices): VALIDATION_ERROR upper case, the other codes lower case
  route<Ops.ListInvoicesQueryVariables>({
    id: 'listInvoices',
    method: 'GET',
    path: '/v1/invoices',
    variables: (r) =>
      listQuery(r, { order: 'string', status: 'string', customerId: 'string', subscriptionId: 'string' }),
  }),
  route<Ops.GetInvoiceQueryVariables>({
    id: 'getInvoice',
    method: 'GET',
    path: '/v1/invoices/:id',
    variables: id,
  }),
  route<Ops.CreateInvoiceMutationVariables>({
    id: 'createInvoice',
    method: 'POST',
    path: '/v1/invoices',
    errors: ['not_found', 'unsupported_currency'],
    status: 201,
    variables: (r) => ({ input: r.body as Ops.CreateInvoiceInput }),
  }),
  // An extension (docs/decisions.md, Invoices): edits a draft; 409 conflict once issued.
  route<Ops.UpdateInvoiceMutationVariables>({
    id: 'updateInvoice',
    method: 'PATCH',
    path: '/v1/invoices/:id',
    errors: ['conflict'],
    variables: (r) => ({ id: r.params.id, input: r.body as Ops.UpdateInvoiceInput }),
  }),
  route<Ops.FinalizeInvoiceMutationVariables>({
    id: 'finalizeInvoice',
    method: 'POST',
    path: '/v1/invoices/:id/finalize',
    errors: ['conflict'],
    variables: (r) => ({ ...noBody(r), ...id(r) }),
  }),
  route<Ops.PayInvoiceMutationVariables>({
    id: 'payInvoice',
    method: 'POST',
    path: '/v1/invoices/:id/pay',
    errors: ['conflict'],
    status: 201,
    variables: (r) => ({ ...noBody(r), ...id(r) }),
  }),
  route<Ops.VoidInvoiceMutationVariables>({
    id: 'voidInvoice',
    method: 'POST',
    path: '/v1/invoices/:id/void',
    errors: ['conflict'],
    variables: (r) => ({ ...noBody(r), ...id(r) }),
  }),

  // Credit notes (docs/credit-notes.md): spelled as invoices; over-limit is 422 VALIDATION_ERROR
  route<Ops.ListCreditNotesQueryVariables>({
    id: 'listCreditNotes',
    method: 'GET',
    path: '/v1/credit-notes',
    variables: (r) => listQuery(r, { invoiceId: 'string', customerId: 'string', status: 'string' }),
  }),
  route<Ops.GetCreditNoteQueryVariables>({
    id: 'getCreditNote',
    method: 'GET',
    path: '/v1/credit-notes/:id',
    variables: id,
  }),
  route<Ops.CreateCreditNoteMutationVariables>({
    id: 'createCreditNote',
    method: 'POST',
    path: '/v1/credit-notes',
    errors: ['not_found', 'conflict', 'amount_exceeds_remaining', 'insufficient_scope'],
    status: 201,
    variables: (r) => ({ input: r.body as Ops.CreateCreditNoteInput }),
  }),
  route<Ops.PreviewCreditNoteQueryVariables>({
    id: 'previewCreditNote',
    method: 'POST',
    path: '/v1/credit-notes/preview',
    errors: ['not_found', 'conflict', 'amount_exceeds_remaining'],
    variables: (r) => ({ input: r.body as Ops.CreateCreditNoteInput }),
  }),
  route<Ops.GetCreditNotePdfQueryVariables>({
    id: 'getCreditNotePdf',
    method: 'GET',
    path: '/v1/credit-notes/:id/credit-note.pdf',
    download: true,
    variables: id,
  }),
  route<Ops.GetCreditNoteHtmlQueryVariables>({
    id: 'getCreditNoteHtml',
    method: 'GET',
    path: '/v1/credit-notes/:id/credit-note.html',
    download: true,
    variables: id,
  }),
  route<Ops.GetCreditNoteEscposQueryVariables>({
    id: 'getCreditNoteEscpos',
    method: 'GET',
    path: '/v1/credit-notes/:id/credit-note.escpos',
    download: true,
    variables: (r) => ({ id: r.params.id, ...listQuery(r, { width: 'int' }) }),
  }),
  route<Ops.SendCreditNoteEmailMutationVariables>({
    id: 'sendCreditNoteEmail',
    method: 'POST',
    path: '/v1/credit-notes/:id/send-email',
    errors: ['no_recipient', 'email_failed'],
    variables: (r) => ({ id: r.params.id, to: (r.body.to as string | undefined) ?? null }),
  }),
  route<Ops.VoidCreditNoteMutationVariables>({
    id: 'voidCreditNote',
    method: 'POST',
    path: '/v1/credit-notes/:id/void',
    errors: ['conflict'],
    variables: (r) => ({ ...noBody(r), ...id(r) }),
  }),

  // Customer balance (docs/credit-notes.md, Customer balance): lower-case codes
  route<Ops.GetCustomerBalanceQueryVariables>({
    id: 'getCustomerBalance',
    method: 'GET',
    path: '/v1/customers/:id/balance',
    variables: (r) => ({ customerId: r.params.id }),
  }),
  route<Ops.ListCustomerBalanceTransactionsQueryVariables>({
    id: 'listCustomerBalanceTransactions',
    method: 'GET',
    path: '/v1/customers/:id/balance-transactions',
    variables: (r) => ({ ...listQuery(r, { currency: 'string', type: 'string' }), customerId: r.params.id }),
  }),
  route<Ops.GetCustomerBalanceTransactionQueryVariables>({
    id: 'getCustomerBalanceTransaction',
    method: 'GET',
    path: '/v1/customers/:id/balance-transactions/:txnId',
    variables: (r) => ({ id: r.params.txnId, customerId: r.params.id }),
  }),
  route<Ops.CreateCustomerBalanceTransactionMutationVariables>({
    id: 'createCustomerBalanceTransaction',
    method: 'POST',
    path: '/v1/customers/:id/balance-transactions',
    errors: ['not_found', 'unsupported_currency', 'insufficient_balance'],
    status: 201,
    variables: (r) => ({
      customerId: r.params.id,
      input: r.body as Ops.CreateCustomerBalanceTransactionInput,
    }),
  }),

  // Refunds (spec Refunds): every code upper case
  route<Ops.ListRefundsQueryVariables>({
    id: 'listRefunds',
    method: 'GET',
    path: '/v1/refunds',
    variables: (r) => listQuery(r, { order: 'string', chargeId: 'string', status: 'string' }),
  }),
  route<Ops.GetRefundQueryVariables>({
    id: 'getRefund',
    method: 'GET',
    path: '/v1/refunds/:id',
    variables: id,
  }),
  route<Ops.CreateRefundMutationVariables>({
    id: 'createRefund',
    method: 'POST',
    path: '/v1/refunds',
    errors: ['not_found', 'amount_exceeds_remaining', 'provider_error'],
    status: 201,
    variables: (r) => ({ input: r.body as Ops.CreateRefundInput }),
  }),
  // spec Payment flow: test mode only
  route<Ops.SimulateRefundMutationVariables>({
    id: 'simulateRefund',
    method: 'POST',
    path: '/v1/refunds/:id/simulate',
    errors: ['forbidden_in_live_mode', 'conflict'],
    variables: (r) => ({ id: r.params.id, input: r.body as Ops.SimulateRefundInput }),
  }),

  // Payouts (spec Payouts, spec Response shapes)
  route<Ops.ListPayoutsQueryVariables>({
    id: 'listPayouts',
    method: 'GET',
    path: '/v1/payouts',
    variables: (r) =>
      listQuery(r, { status: 'string', currency: 'string', createdSince: 'instant', createdUntil: 'instant' }),
  }),
  route<Ops.GetPayoutBalanceQueryVariables>({
    id: 'getPayoutBalance',
    method: 'GET',
    path: '/v1/payouts/balance',
    variables: (r) => listQuery(r, { currency: 'string' }),
  }),
  route<Ops.GetPayoutBankAccountQueryVariables>({
    id: 'getPayoutBankAccount',
    method: 'GET',
    path: '/v1/payouts/bank-account',
    variables: () => ({}),
  }),
  route<Ops.UpdatePayoutBankAccountMutationVariables>({
    id: 'updatePayoutBankAccount',
    method: 'PATCH',
    path: '/v1/payouts/bank-account',
    variables: (r) => ({ input: r.body as Ops.UpdatePayoutBankAccountInput }),
  }),
  route<Ops.GetPayoutScheduleQueryVariables>({
    id: 'getPayoutSchedule',
    method: 'GET',
    path: '/v1/payouts/schedule',
    variables: () => ({}),
  }),
  route<Ops.UpdatePayoutScheduleMutationVariables>({
    id: 'updatePayoutSchedule',
    method: 'PATCH',
    path: '/v1/payouts/schedule',
    variables: (r) => ({ input: r.body as Ops.UpdatePayoutScheduleInput }),
  }),
  route<Ops.GetPayoutQueryVariables>({
    id: 'getPayout',
    method: 'GET',
    path: '/v1/payouts/:id',
    variables: id,
  }),
  route<Ops.CreatePayoutMutationVariables>({
    id: 'createPayout',
    method: 'POST',
    path: '/v1/payouts',
    errors: ['invalid_amount', 'bank_account_missing', 'insufficient_balance'],
    status: 201,
    variables: (r) => ({ input: r.body as Ops.CreatePayoutInput }),
  }),
  route<Ops.CancelPayoutMutationVariables>({
    id: 'cancelPayout',
    method: 'POST',
    path: '/v1/payouts/:id/cancel',
    errors: ['invalid_transition'],
    variables: id,
  }),
  // spec Response shapes: platform-admin reconciliation, each returns the payout
  route<Ops.MarkPayoutInTransitMutationVariables>({
    id: 'markPayoutInTransit',
    method: 'POST',
    path: '/v1/payouts/:id/mark-in-transit',
    errors: ['invalid_transition'],
    variables: id,
  }),
  route<Ops.MarkPayoutPaidMutationVariables>({
    id: 'markPayoutPaid',
    method: 'POST',
    path: '/v1/payouts/:id/mark-paid',
    errors: ['invalid_transition'],
    variables: id,
  }),
  route<Ops.MarkPayoutFailedMutationVariables>({
    id: 'markPayoutFailed',
    method: 'POST',
    path: '/v1/payouts/:id/mark-failed',
    errors: ['invalid_transition'],
    variables: (r) => ({ id: r.params.id, input: r.body as Ops.MarkPayoutFailedInput }),
  }),

  // Ledger and reports (spec Response shapes). GET /v1/reports/ledger.csv streams outside this table (src/modules/ledger/export.ts).
  route<Ops.ListLedgerEntriesQueryVariables>({
    id: 'listLedgerEntries',
    method: 'GET',
    path: '/v1/ledger',
    variables: (r) =>
      listQuery(r, { order: 'string', txId: 'string', code: 'string', sourceType: 'string', sourceId: 'string' }),
  }),
  route<Ops.GetLedgerBalancesQueryVariables>({
    id: 'getLedgerBalances',
    method: 'GET',
    path: '/v1/ledger/balances',
    variables: (r) => listQuery(r, { currency: 'string' }),
  }),
  route<Ops.GetPnlReportQueryVariables>({
    id: 'getPnlReport',
    method: 'GET',
    path: '/v1/reports/pnl',
    // A missing from or to is refused by the variables' coercion (400 validation_error, field from or to).
    variables: (r) =>
      listQuery(r, { from: 'string', to: 'string', currency: 'string' }) as Ops.GetPnlReportQueryVariables,
  }),
  route<Ops.GetCashFlowReportQueryVariables>({
    id: 'getCashFlowReport',
    method: 'GET',
    path: '/v1/reports/cash-flow',
    // A missing from or to is refused by the variables' coercion (400 validation_error, field from or to).
    variables: (r) =>
      listQuery(r, { from: 'string', to: 'string', currency: 'string' }) as Ops.GetCashFlowReportQueryVariables,
  }),

  // Receipts
  route<Ops.ListReceiptsQueryVariables>({
    id: 'listReceipts',
    method: 'GET',
    path: '/v1/receipts',
    variables: (r) =>
      listQuery(r, { sourceType: 'string', customerId: 'string', issuedAfter: 'instant', issuedBefore: 'instant' }),
  }),
  route<Ops.GetReceiptQueryVariables>({
    id: 'getReceipt',
    method: 'GET',
    path: '/v1/receipts/:id',
    variables: id,
  }),
  route<Ops.GetReceiptPdfQueryVariables>({
    id: 'getReceiptPdf',
    method: 'GET',
    path: '/v1/receipts/:id/receipt.pdf',
    download: true,
    variables: id,
  }),
  route<Ops.GetReceiptHtmlQueryVariables>({
    id: 'getReceiptHtml',
    method: 'GET',
    path: '/v1/receipts/:id/receipt.html',
    download: true,
    variables: id,
  }),
  route<Ops.GetReceiptEscposQueryVariables>({
    id: 'getReceiptEscpos',
    method: 'GET',
    path: '/v1/receipts/:id/receipt.escpos',
    download: true,
    variables: (r) => ({ id: r.params.id, ...listQuery(r, { width: 'int' }) }),
  }),
  route<Ops.EmailReceiptMutationVariables>({
    id: 'emailReceipt',
    method: 'POST',
    path: '/v1/receipts/:id/email',
    errors: ['no_recipient', 'email_failed'],
    variables: (r) => ({ id: r.params.id, to: (r.body.to as string | undefined) ?? null }),
  }),

  // Plans and prices (spec Plans and prices): upper-case codes; price routes use the plans' spelling.
  route<Ops.ListPlansQueryVariables>({
    id: 'listPlans',
    method: 'GET',
    path: '/v1/plans',
    variables: (r) => listQuery(r, { order: 'string', active: 'boolean' }),
  }),
  route<Ops.GetPlanQueryVariables>({
    id: 'getPlan',
    method: 'GET',
    path: '/v1/plans/:id',
    variables: id,
  }),
  route<Ops.CreatePlanMutationVariables>({
    id: 'createPlan',
    method: 'POST',
    path: '/v1/plans',
    errors: ['unsupported_currency'],
    status: 201,
    variables: (r) => ({ input: r.body as Ops.CreatePlanInput }),
  }),
  route<Ops.UpdatePlanMutationVariables>({
    id: 'updatePlan',
    method: 'PATCH',
    path: '/v1/plans/:id',
    variables: (r) => ({ id: r.params.id, input: r.body as Ops.UpdatePlanInput }),
  }),
  route<Ops.ArchivePlanMutationVariables>({
    id: 'archivePlan',
    method: 'POST',
    path: '/v1/plans/:id/archive',
    variables: (r) => ({ ...noBody(r), ...id(r) }),
  }),
  route<Ops.AddPriceMutationVariables>({
    id: 'addPrice',
    method: 'POST',
    path: '/v1/plans/:id/prices',
    errors: ['unsupported_currency'],
    status: 201,
    variables: (r) => ({ planId: r.params.id, input: r.body as Ops.PriceInput }),
  }),
  route<Ops.UpdatePriceMutationVariables>({
    id: 'updatePrice',
    method: 'PATCH',
    path: '/v1/prices/:id',
    variables: (r) => ({ id: r.params.id, input: r.body as Ops.UpdatePriceInput }),
  }),

  // Meters (docs/guides/meters.md): plan configuration, spelled as plans.
  route<Ops.ListMetersQueryVariables>({
    id: 'listMeters',
    method: 'GET',
    path: '/v1/meters',
    variables: (r) => listQuery(r, { order: 'string', eventName: 'string', archived: 'boolean' }),
  }),
  route<Ops.GetMeterQueryVariables>({
    id: 'getMeter',
    method: 'GET',
    path: '/v1/meters/:id',
    variables: id,
  }),
  route<Ops.CreateMeterMutationVariables>({
    id: 'createMeter',
    method: 'POST',
    path: '/v1/meters',
    errors: ['conflict'],
    status: 201,
    variables: (r) => ({ input: r.body as Ops.CreateMeterInput }),
  }),
  route<Ops.UpdateMeterMutationVariables>({
    id: 'updateMeter',
    method: 'PATCH',
    path: '/v1/meters/:id',
    variables: (r) => ({ id: r.params.id, input: r.body as Ops.UpdateMeterInput }),
  }),
  route<Ops.ArchiveMeterMutationVariables>({
    id: 'archiveMeter',
    method: 'POST',
    path: '/v1/meters/:id/archive',
    variables: (r) => ({ ...noBody(r), ...id(r) }),
  }),

  // Usage events (docs/guides/usage-events.md): lower-case codes, one answer per event.
  route<Ops.IngestUsageEventsMutationVariables>({
    id: 'ingestUsageEvents',
    method: 'POST',
    path: '/v1/usage-events',
    errors: ['payload_too_large', 'service_unavailable'],
    bodyLimit: config.usageBodyLimitBytes,
    variables: (r) => ({ input: r.body as Ops.IngestUsageEventsInput }),
  }),
  route<Ops.ListUsageEventsQueryVariables>({
    id: 'listUsageEvents',
    method: 'GET',
    path: '/v1/usage-events',
    variables: (r) =>
      listQuery(r, {
        order: 'string',
        customerId: 'string',
        externalCustomerId: 'string',
        eventName: 'string',
        status: 'string',
        from: 'string',
        to: 'string',
      }),
  }),
  route<Ops.GetUsageEventQueryVariables>({
    id: 'getUsageEvent',
    method: 'GET',
    path: '/v1/usage-events/:id',
    variables: id,
  }),
  route<Ops.VoidUsageEventMutationVariables>({
    id: 'voidUsageEvent',
    method: 'POST',
    path: '/v1/usage-events/:id/void',
    errors: ['period_closed'],
    variables: (r) => ({ ...noBody(r), ...id(r) }),
  }),

  // Reconciliation (docs/reconciliation.md, Import pipeline): codes lower case; the upload is src/server/uploads.ts.
  route<Ops.ListReconciliationImportsQueryVariables>({
    id: 'listReconciliationImports',
    method: 'GET',
    path: '/v1/reconciliation/imports',
    variables: (r) =>
      listQuery(r, { order: 'string', source: 'string', adapter: 'string', origin: 'string', status: 'string' }),
  }),
  route<Ops.GetReconciliationImportQueryVariables>({
    id: 'getReconciliationImport',
    method: 'GET',
    path: '/v1/reconciliation/imports/:id',
    variables: id,
  }),
  route<Ops.ListReconciliationRowsQueryVariables>({
    id: 'listReconciliationRows',
    method: 'GET',
    path: '/v1/reconciliation/rows',
    variables: (r) =>
      listQuery(r, {
        order: 'string',
        importId: 'string',
        batchId: 'string',
        status: 'string',
        type: 'string',
        transactionId: 'string',
        reference: 'string',
        objectId: 'string',
        source: 'string',
      }),
  }),
  route<Ops.GetReconciliationRowQueryVariables>({
    id: 'getReconciliationRow',
    method: 'GET',
    path: '/v1/reconciliation/rows/:id',
    variables: id,
  }),
  route<Ops.ListSettlementBatchesQueryVariables>({
    id: 'listSettlementBatches',
    method: 'GET',
    path: '/v1/reconciliation/batches',
    variables: (r) =>
      listQuery(r, {
        order: 'string',
        adapter: 'string',
        currency: 'string',
        status: 'string',
        settlementId: 'string',
      }),
  }),
  route<Ops.GetSettlementBatchQueryVariables>({
    id: 'getSettlementBatch',
    method: 'GET',
    path: '/v1/reconciliation/batches/:id',
    variables: id,
  }),
  route<Ops.ListReconciliationRunsQueryVariables>({
    id: 'listReconciliationRuns',
    method: 'GET',
    path: '/v1/reconciliation/runs',
    variables: (r) => listQuery(r, { order: 'string', status: 'string', importId: 'string' }),
  }),
  route<Ops.GetReconciliationRunQueryVariables>({
    id: 'getReconciliationRun',
    method: 'GET',
    path: '/v1/reconciliation/runs/:id',
    variables: id,
  }),
  route<Ops.CreateReconciliationRunMutationVariables>({
    id: 'createReconciliationRun',
    method: 'POST',
    path: '/v1/reconciliation/runs',
    status: 201,
    variables: (r) => ({ input: r.body as Ops.CreateReconciliationRunInput }),
  }),
  route<Ops.ListReconciliationMatchesQueryVariables>({
    id: 'listReconciliationMatches',
    method: 'GET',
    path: '/v1/reconciliation/matches',
    variables: (r) =>
      listQuery(r, { order: 'string', runId: 'string', rowId: 'string', objectId: 'string', batchId: 'string' }),
  }),
  route<Ops.GetReconciliationMatchQueryVariables>({
    id: 'getReconciliationMatch',
    method: 'GET',
    path: '/v1/reconciliation/matches/:id',
    variables: id,
  }),
  route<Ops.ListReconciliationExceptionsQueryVariables>({
    id: 'listReconciliationExceptions',
    method: 'GET',
    path: '/v1/reconciliation/exceptions',
    variables: (r) =>
      listQuery(r, {
        order: 'string',
        category: 'string',
        status: 'string',
        importId: 'string',
        runId: 'string',
        objectId: 'string',
        batchId: 'string',
        adapter: 'string',
        currency: 'string',
        assignee: 'string',
      }),
  }),
  route<Ops.GetReconciliationExceptionQueryVariables>({
    id: 'getReconciliationException',
    method: 'GET',
    path: '/v1/reconciliation/exceptions/:id',
    variables: id,
  }),
  route<Ops.GetReconciliationSettingsQueryVariables>({
    id: 'getReconciliationSettings',
    method: 'GET',
    path: '/v1/reconciliation/settings',
    variables: () => ({}),
  }),
  route<Ops.UpdateReconciliationSettingsMutationVariables>({
    id: 'updateReconciliationSettings',
    method: 'PATCH',
    path: '/v1/reconciliation/settings',
    errors: ['unsupported_currency'],
    variables: (r) => ({ input: r.body as Ops.UpdateReconciliationSettingsInput }),
  }),

  // Current usage (docs/guides/current-usage.md): read from rollups.
  route<Ops.SubscriptionCurrentUsageQueryVariables>({
    id: 'subscriptionCurrentUsage',
    method: 'GET',
    path: '/v1/subscriptions/:id/current-usage',
    variables: (r) => ({ subscriptionId: r.params.id, ...listQuery(r, { meterId: 'string', groupBy: 'string' }) }),
  }),
  route<Ops.CustomerCurrentUsageQueryVariables>({
    id: 'customerCurrentUsage',
    method: 'GET',
    path: '/v1/customers/:id/current-usage',
    variables: (r) => ({ customerId: r.params.id, ...listQuery(r, { meterId: 'string', groupBy: 'string' }) }),
  }),

  // Coupons (docs/coupons.md): spelled as plans.
  route<Ops.ListCouponsQueryVariables>({
    id: 'listCoupons',
    method: 'GET',
    path: '/v1/coupons',
    variables: (r) => listQuery(r, { order: 'string', archived: 'boolean' }),
  }),
  route<Ops.GetCouponQueryVariables>({
    id: 'getCoupon',
    method: 'GET',
    path: '/v1/coupons/:id',
    variables: id,
  }),
  route<Ops.CreateCouponMutationVariables>({
    id: 'createCoupon',
    method: 'POST',
    path: '/v1/coupons',
    errors: ['unsupported_currency'],
    status: 201,
    variables: (r) => ({ input: r.body as Ops.CreateCouponInput }),
  }),
  route<Ops.UpdateCouponMutationVariables>({
    id: 'updateCoupon',
    method: 'PATCH',
    path: '/v1/coupons/:id',
    variables: (r) => ({ id: r.params.id, input: r.body as Ops.UpdateCouponInput }),
  }),
  route<Ops.ArchiveCouponMutationVariables>({
    id: 'archiveCoupon',
    method: 'POST',
    path: '/v1/coupons/:id/archive',
    variables: (r) => ({ ...noBody(r), ...id(r) }),
  }),

  // Dunning policies (DECISIONS §3; docs/decisions.md): plan configuration, spelled as plans.
  route<Ops.ListDunningPoliciesQueryVariables>({
    id: 'listDunningPolicies',
    method: 'GET',
    path: '/v1/dunning-policies',
    variables: (r) => listQuery(r, { order: 'string' }),
  }),
  route<Ops.GetDunningPolicyQueryVariables>({
    id: 'getDunningPolicy',
    method: 'GET',
    path: '/v1/dunning-policies/:id',
    variables: id,
  }),
  route<Ops.CreateDunningPolicyMutationVariables>({
    id: 'createDunningPolicy',
    method: 'POST',
    path: '/v1/dunning-policies',
    status: 201,
    variables: (r) => ({ input: r.body as Ops.CreateDunningPolicyInput }),
  }),
  route<Ops.UpdateDunningPolicyMutationVariables>({
    id: 'updateDunningPolicy',
    method: 'PATCH',
    path: '/v1/dunning-policies/:id',
    variables: (r) => ({ id: r.params.id, input: r.body as Ops.UpdateDunningPolicyInput }),
  }),

  // Test clocks (DECISIONS §3; docs/decisions.md, Test clocks): test mode only.
  route<Ops.ListTestClocksQueryVariables>({
    id: 'listTestClocks',
    method: 'GET',
    path: '/v1/test-clocks',
    variables: (r) => listQuery(r, { order: 'string' }),
  }),
  route<Ops.GetTestClockQueryVariables>({
    id: 'getTestClock',
    method: 'GET',
    path: '/v1/test-clocks/:id',
    variables: id,
  }),
  route<Ops.CreateTestClockMutationVariables>({
    id: 'createTestClock',
    method: 'POST',
    path: '/v1/test-clocks',
    errors: ['forbidden_in_live_mode', 'tier_cap_reached'],
    status: 201,
    variables: (r) => ({ input: r.body as Ops.CreateTestClockInput }),
  }),
  route<Ops.AdvanceTestClockMutationVariables>({
    id: 'advanceTestClock',
    method: 'POST',
    path: '/v1/test-clocks/:id/advance',
    errors: ['forbidden_in_live_mode', 'conflict'],
    variables: (r) => ({ id: r.params.id, input: r.body as Ops.AdvanceTestClockInput }),
  }),
  route<Ops.DeleteTestClockMutationVariables>({
    id: 'deleteTestClock',
    method: 'DELETE',
    path: '/v1/test-clocks/:id',
    status: 204,
    variables: id,
  }),

  // Subscriptions (DECISIONS §3; docs/decisions.md, Subscriptions): lower-case codes.
  route<Ops.ListSubscriptionsQueryVariables>({
    id: 'listSubscriptions',
    method: 'GET',
    path: '/v1/subscriptions',
    variables: (r) =>
      listQuery(r, { order: 'string', customerId: 'string', planId: 'string', priceId: 'string', status: 'string' }),
  }),
  route<Ops.GetSubscriptionQueryVariables>({
    id: 'getSubscription',
    method: 'GET',
    path: '/v1/subscriptions/:id',
    variables: id,
  }),
  route<Ops.CreateSubscriptionMutationVariables>({
    id: 'createSubscription',
    method: 'POST',
    path: '/v1/subscriptions',
    errors: ['not_found'],
    status: 201,
    variables: (r) => ({ input: r.body as Ops.CreateSubscriptionInput }),
  }),
  route<Ops.UpdateSubscriptionMutationVariables>({
    id: 'updateSubscription',
    method: 'PATCH',
    path: '/v1/subscriptions/:id',
    errors: ['conflict'],
    variables: (r) => ({ id: r.params.id, input: r.body as Ops.UpdateSubscriptionInput }),
  }),
  route<Ops.CancelSubscriptionMutationVariables>({
    id: 'cancelSubscription',
    method: 'POST',
    path: '/v1/subscriptions/:id/cancel',
    errors: ['conflict'],
    variables: (r) => ({ id: r.params.id, input: (r.body ?? {}) as Ops.CancelSubscriptionInput }),
  }),
  route<Ops.PauseSubscriptionMutationVariables>({
    id: 'pauseSubscription',
    method: 'POST',
    path: '/v1/subscriptions/:id/pause',
    errors: ['conflict'],
    variables: (r) => ({ ...noBody(r), ...id(r) }),
  }),
  route<Ops.ResumeSubscriptionMutationVariables>({
    id: 'resumeSubscription',
    method: 'POST',
    path: '/v1/subscriptions/:id/resume',
    errors: ['conflict'],
    variables: (r) => ({ ...noBody(r), ...id(r) }),
  }),

  // Invoice documents (the invoice resource's own routes are above; GET /v1/invoices/:id/pdf, a 302, is in
  // src/server/downloads.ts)
  route<Ops.GetInvoicePdfQueryVariables>({
    id: 'getInvoicePdf',
    method: 'GET',
    path: '/v1/invoices/:id/invoice.pdf',
    download: true,
    variables: id,
  }),
  route<Ops.GetInvoiceHtmlQueryVariables>({
    id: 'getInvoiceHtml',
    method: 'GET',
    path: '/v1/invoices/:id/invoice.html',
    download: true,
    variables: id,
  }),
  route<Ops.GetInvoiceEscposQueryVariables>({
    id: 'getInvoiceEscpos',
    method: 'GET',
    path: '/v1/invoices/:id/invoice.escpos',
    download: true,
    variables: (r) => ({ id: r.params.id, ...listQuery(r, { width: 'int' }) }),
  }),
  route<Ops.SendInvoiceEmailMutationVariables>({
    id: 'sendInvoiceEmail',
    method: 'POST',
    path: '/v1/invoices/:id/send-email',
    errors: ['no_recipient', 'email_failed'],
    variables: (r) => ({ id: r.params.id, to: (r.body.to as string | undefined) ?? null }),
  }),
  // Usage records (DECISIONS §3; docs/decisions.md, Usage): Idempotency-Key required (the mutation field says so).
  route<Ops.CreateUsageRecordMutationVariables>({
    id: 'createUsageRecord',
    method: 'POST',
    path: '/v1/subscriptions/:id/usage',
    errors: ['conflict'],
    status: 201,
    variables: (r) => ({ subscriptionId: r.params.id, input: r.body as Ops.CreateUsageRecordInput }),
  }),
  // Portal sessions (spec Portal sessions): the only route; unknown fields are 400 VALIDATION_ERROR.
  route<Ops.CreatePortalSessionMutationVariables>({
    id: 'createPortalSession',
    method: 'POST',
    path: '/v1/portal-sessions',
    status: 201,
    variables: (r) => ({ input: r.body as Ops.CreatePortalSessionInput }),
  }),
];
