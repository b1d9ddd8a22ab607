// The dashboard's GraphQL operations; `npm run codegen` types them (generated/operations.ts, codegen.yml).
export const HomeDocument = /* GraphQL */ `
  query DashboardHome($from: String!, $to: String!) {
    idr: payoutBalance(currency: "IDR") {
      currency
      available
      ledgerBalance
      locked
    }
    usd: payoutBalance(currency: "USD") {
      currency
      available
      ledgerBalance
      locked
    }
    idrFlow: cashFlowReport(currency: "IDR", from: $from, to: $to) {
      currency
      inflows
      byDay {
        date
        inflows
      }
    }
    recent: events(first: 15) {
      edges {
        node {
          id
          type
          occurredAt
          data
        }
      }
    }
  }
`;

export const PaymentsDocument = /* GraphQL */ `
  query DashboardPayments($first: Int, $after: String, $status: String, $customerId: String) {
    payments(first: $first, after: $after, status: $status, customerId: $customerId) {
      edges {
        cursor
        node {
          id
          amount
          amountRefunded
          currency
          status
          method
          customerId
          createdAt
        }
      }
      pageInfo {
        endCursor
        hasNextPage
      }
    }
  }
`;

export const PaymentDocument = /* GraphQL */ `
  query DashboardPayment($id: ID!, $objectId: String!) {
    payment(id: $id) {
      id
      amount
      amountRefunded
      currency
      status
      method
      adapter
      customerId
      customer {
        id
        name
        email
      }
      checkoutSessionId
      invoiceId
      createdAt
      capturedAt
      refunds(first: 20) {
        edges {
          node {
            id
            amount
            status
            reason
            createdAt
          }
        }
      }
    }
    timeline: events(objectId: $objectId, first: 50) {
      edges {
        node {
          id
          type
          occurredAt
        }
      }
    }
  }
`;

export const RefundDocument = /* GraphQL */ `
  mutation DashboardRefund($input: CreateRefundInput!, $idempotencyKey: String!) {
    createRefund(input: $input, idempotencyKey: $idempotencyKey) {
      id
      amount
      status
      payment {
        id
        amountRefunded
        status
      }
    }
  }
`;

export const CustomersDocument = /* GraphQL */ `
  query DashboardCustomers($first: Int, $after: String) {
    customers(first: $first, after: $after) {
      edges {
        node {
          id
          name
          email
          createdAt
        }
      }
      pageInfo {
        endCursor
        hasNextPage
      }
    }
  }
`;

export const FeedDocument = /* GraphQL */ `
  subscription DashboardFeed($after: ID) {
    events(after: $after) {
      id
      type
      occurredAt
      data
    }
  }
`;

export const TeamDocument = /* GraphQL */ `
  query DashboardTeam($workspaceId: ID!) {
    members(workspaceId: $workspaceId, first: 100) {
      edges {
        node {
          id
          email
          role
          status
          joinedAt
          invitedAt
        }
      }
    }
  }
`;

export const InviteDocument = /* GraphQL */ `
  mutation DashboardInvite($workspaceId: ID!, $input: InviteMemberInput!, $idempotencyKey: String!) {
    inviteMember(workspaceId: $workspaceId, input: $input, idempotencyKey: $idempotencyKey) {
      id
      email
      role
      status
      joinedAt
      invitedAt
    }
  }
`;

export const DevelopersDocument = /* GraphQL */ `
  query DashboardDevelopers {
    auditLog(first: 20) {
      edges {
        node {
          id
          action
          at
          actorKeyId
          actorMemberId
          targetId
          requestId
        }
      }
    }
    apiKeys(first: 50) {
      edges {
        node {
          id
          keyId
          name
          role
          environment
          createdAt
          lastUsedAt
          revokedAt
        }
      }
    }
    webhookEndpoints(first: 50) {
      edges {
        node {
          id
          url
          status
          events
        }
      }
    }
    events(first: 20) {
      edges {
        node {
          id
          type
          occurredAt
        }
      }
    }
  }
`;

export const InvoicesDocument = /* GraphQL */ `
  query DashboardInvoices($first: Int, $after: String) {
    invoices(first: $first, after: $after) {
      edges {
        node {
          id
          number
          status
          total
          amountDue
          currency
          customerId
          createdAt
          pdfUrl
        }
      }
      pageInfo {
        endCursor
        hasNextPage
      }
    }
    customers(first: 100) {
      edges {
        node {
          id
          name
          email
        }
      }
    }
  }
`;

export const CreateInvoiceDocument = /* GraphQL */ `
  mutation DashboardCreateInvoice($input: CreateInvoiceInput!, $idempotencyKey: String!) {
    createInvoice(input: $input, idempotencyKey: $idempotencyKey) {
      id
      status
    }
  }
`;

export const FinalizeInvoiceDocument = /* GraphQL */ `
  mutation DashboardFinalizeInvoice($id: ID!, $idempotencyKey: String!) {
    finalizeInvoice(id: $id, idempotencyKey: $idempotencyKey) {
      id
      number
      status
      total
      amountDue
      pdfUrl
    }
  }
`;

export const VoidInvoiceDocument = /* GraphQL */ `
  mutation DashboardVoidInvoice($id: ID!, $idempotencyKey: String!) {
    voidInvoice(id: $id, idempotencyKey: $idempotencyKey) {
      id
      status
      amountDue
    }
  }
`;

export const PayoutsDocument = /* GraphQL */ `
  query DashboardPayouts($first: Int, $after: String) {
    idr: payoutBalance(currency: "IDR") {
      currency
      available
      ledgerBalance
      locked
    }
    payoutBankAccount {
      bankCode
      bankName
      bankAccountNumber
      bankAccountHolder
    }
    payouts(first: $first, after: $after) {
      edges {
        node {
          id
          amount
          currency
          status
          bankName
          createdAt
        }
      }
      pageInfo {
        endCursor
        hasNextPage
      }
    }
  }
`;

export const CustomerDocument = /* GraphQL */ `
  query DashboardCustomer($id: ID!, $customerId: String!) {
    customer(id: $id) {
      id
      name
      email
      phone
      createdAt
      balance {
        balances {
          amount
          currency
        }
      }
      paymentMethods(first: 10) {
        edges {
          node {
            id
            type
            status
            isDefault
            expiresAt
            card
            ewallet
            directDebit
            paypal
          }
        }
      }
      payments(first: 10) {
        edges {
          node {
            id
            amount
            currency
            status
            createdAt
          }
        }
      }
    }
    invoices(customerId: $customerId, first: 10) {
      edges {
        node {
          id
          number
          status
          total
          currency
        }
      }
    }
    subscriptions(customerId: $customerId, first: 10) {
      edges {
        node {
          id
          status
          createdAt
        }
      }
    }
  }
`;

export const BillingDocument = /* GraphQL */ `
  query DashboardBilling {
    plans(first: 50) {
      edges {
        node {
          id
          name
          interval
          intervalCount
          active
        }
      }
    }
    subscriptions(first: 50) {
      edges {
        node {
          id
          status
          customerId
          currency
          currentPeriodEnd
          cancelAtPeriodEnd
          pausedAt
          plan {
            id
            name
          }
        }
      }
    }
  }
`;

export const CancelSubscriptionDocument = /* GraphQL */ `
  mutation DashboardCancelSubscription($id: ID!, $idempotencyKey: String!, $input: CancelSubscriptionInput) {
    cancelSubscription(id: $id, idempotencyKey: $idempotencyKey, input: $input) {
      id
      status
      customerId
      currency
      currentPeriodEnd
      cancelAtPeriodEnd
      pausedAt
      plan {
        id
        name
      }
    }
  }
`;

export const PauseSubscriptionDocument = /* GraphQL */ `
  mutation DashboardPauseSubscription($id: ID!, $idempotencyKey: String!) {
    pauseSubscription(id: $id, idempotencyKey: $idempotencyKey) {
      id
      status
      customerId
      currency
      currentPeriodEnd
      cancelAtPeriodEnd
      pausedAt
      plan {
        id
        name
      }
    }
  }
`;

export const ResumeSubscriptionDocument = /* GraphQL */ `
  mutation DashboardResumeSubscription($id: ID!, $idempotencyKey: String!) {
    resumeSubscription(id: $id, idempotencyKey: $idempotencyKey) {
      id
      status
      customerId
      currency
      currentPeriodEnd
      cancelAtPeriodEnd
      pausedAt
      plan {
        id
        name
      }
    }
  }
`;

export const WebhooksDocument = /* GraphQL */ `
  query DashboardWebhooks {
    webhookEndpoints(first: 50) {
      edges {
        node {
          id
          url
          status
          events
          description
          signatureFormat
          createdAt
        }
      }
    }
  }
`;

export const WebhookDeliveriesDocument = /* GraphQL */ `
  query DashboardWebhookDeliveries($endpointId: ID!) {
    webhookDeliveries(endpointId: $endpointId, first: 30) {
      edges {
        node {
          id
          eventId
          eventType
          status
          statusCode
          retryCount
          attemptedAt
          nextRetryAt
          durationMs
        }
      }
    }
  }
`;

export const CreateWebhookDocument = /* GraphQL */ `
  mutation DashboardCreateWebhook($input: CreateWebhookEndpointInput!, $idempotencyKey: String!) {
    createWebhookEndpoint(input: $input, idempotencyKey: $idempotencyKey) {
      id
      url
      status
      events
      description
      signatureFormat
      createdAt
      signingSecret
    }
  }
`;

export const RotateWebhookDocument = /* GraphQL */ `
  mutation DashboardRotateWebhook($id: ID!) {
    rotateWebhookEndpointSecret(id: $id) {
      id
      signingSecret
    }
  }
`;

export const RetryDeliveryDocument = /* GraphQL */ `
  mutation DashboardRetryDelivery($endpointId: ID!, $deliveryId: ID!, $idempotencyKey: String!) {
    retryWebhookDelivery(endpointId: $endpointId, deliveryId: $deliveryId, idempotencyKey: $idempotencyKey) {
      id
      eventId
      eventType
      status
      statusCode
      retryCount
      attemptedAt
      nextRetryAt
      durationMs
    }
  }
`;

export const ReportsDocument = /* GraphQL */ `
  query DashboardReports($currency: String!, $from: String!, $to: String!) {
    pnlReport(currency: $currency, from: $from, to: $to) {
      currency
      from
      to
      revenue {
        code
        amount
      }
      totalRevenue
      refunds
      fees
      tax
      netIncome
    }
    cashFlowReport(currency: $currency, from: $from, to: $to) {
      currency
      openingBalance
      inflows
      outflows
      closingBalance
      byDay {
        date
        inflows
        outflows
      }
    }
  }
`;

export const SettingsDocument = /* GraphQL */ `
  query DashboardSettings($workspaceId: ID!) {
    workspace(id: $workspaceId) {
      id
      name
      brandName
      portalSettings
    }
    templates(first: 50) {
      edges {
        node {
          id
          kind
          name
          isDefault
          accentColor
          logoUrl
          tagline
          footerText
          thankYouText
        }
      }
    }
  }
`;

export const UpdateWorkspaceDocument = /* GraphQL */ `
  mutation DashboardUpdateWorkspace($id: ID!, $input: UpdateWorkspaceInput!) {
    updateWorkspace(id: $id, input: $input) {
      id
      name
      brandName
      portalSettings
    }
  }
`;

export const CreateTemplateDocument = /* GraphQL */ `
  mutation DashboardCreateTemplate($input: CreateTemplateInput!, $idempotencyKey: String!) {
    createTemplate(input: $input, idempotencyKey: $idempotencyKey) {
      id
      kind
      name
      isDefault
      accentColor
      logoUrl
      tagline
      footerText
      thankYouText
    }
  }
`;

export const UpdateTemplateDocument = /* GraphQL */ `
  mutation DashboardUpdateTemplate($id: ID!, $input: UpdateTemplateInput!, $idempotencyKey: String!) {
    updateTemplate(id: $id, input: $input, idempotencyKey: $idempotencyKey) {
      id
      kind
      name
      isDefault
      accentColor
      logoUrl
      tagline
      footerText
      thankYouText
    }
  }
`;

export const InvoiceDocument = /* GraphQL */ `
  query DashboardInvoice($id: ID!) {
    invoice(id: $id) {
      id
      number
      status
      currency
      customerId
      subtotal
      tax
      total
      amountDue
      amountPaid
      creditedAmount
      amountRemaining
      createdAt
      pdfUrl
      lines {
        id
        description
        quantity
        unitAmount
        amount
      }
      creditNotes {
        id
        number
        status
        reason
        memo
        total
        currency
        issuedAt
        pdfUrl
      }
    }
  }
`;

export const CreateCreditNoteDocument = /* GraphQL */ `
  mutation DashboardCreateCreditNote($input: CreateCreditNoteInput!, $idempotencyKey: String!) {
    createCreditNote(input: $input, idempotencyKey: $idempotencyKey) {
      id
      number
      total
    }
  }
`;

export const CreatePayoutDocument = /* GraphQL */ `
  mutation DashboardCreatePayout($input: CreatePayoutInput!, $idempotencyKey: String!) {
    createPayout(input: $input, idempotencyKey: $idempotencyKey) {
      id
      amount
      status
    }
  }
`;

export const UpdateBankAccountDocument = /* GraphQL */ `
  mutation DashboardUpdateBankAccount($input: UpdatePayoutBankAccountInput!) {
    updatePayoutBankAccount(input: $input) {
      bankCode
      bankName
      bankAccountNumber
      bankAccountHolder
    }
  }
`;

export const SendInvoiceDocument = /* GraphQL */ `
  mutation DashboardSendInvoice($id: ID!, $idempotencyKey: String!) {
    sendInvoiceEmail(id: $id, idempotencyKey: $idempotencyKey) {
      sent
      to
    }
  }
`;

export const CreatePlanDocument = /* GraphQL */ `
  mutation DashboardCreatePlan($input: CreatePlanInput!, $idempotencyKey: String!) {
    createPlan(input: $input, idempotencyKey: $idempotencyKey) {
      id
      name
      interval
      intervalCount
      active
    }
  }
`;

export const ArchivePlanDocument = /* GraphQL */ `
  mutation DashboardArchivePlan($id: ID!, $idempotencyKey: String!) {
    archivePlan(id: $id, idempotencyKey: $idempotencyKey) {
      id
      active
    }
  }
`;
