// The billing screen: subscriptions and plans (billing.tsx).
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
