// The live event feed (api.ts, useLiveFeed).
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
