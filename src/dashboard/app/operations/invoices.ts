// The invoice list and one invoice (invoices.tsx, invoice.tsx).
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

export const SendInvoiceDocument = /* GraphQL */ `
  mutation DashboardSendInvoice($id: ID!, $idempotencyKey: String!) {
    sendInvoiceEmail(id: $id, idempotencyKey: $idempotencyKey) {
      sent
      to
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
