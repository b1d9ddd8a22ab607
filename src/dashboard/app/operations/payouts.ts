// The payouts screen (payouts.tsx).
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
