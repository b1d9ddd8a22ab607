// The team and developers screens (team.tsx).
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
