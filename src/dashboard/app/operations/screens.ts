// The overview, payments, refunds and customers screens (screens.tsx).
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
