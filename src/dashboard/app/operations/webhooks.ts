// The webhooks screen (webhooks.tsx).
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
