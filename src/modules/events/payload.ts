/**
 * The event object as `GET /v1/events/:id` returns it (spec Webhook delivery: the webhook body), with the
 * same fields in the same order as `rest-compat/operations/events.graphql` selects them, so a
 * delivery, `svc listen` and the REST response serialise to the same JSON. A test holds the three
 * together.
 */
export interface EventRowLike {
  id: string;
  type: string;
  occurredAt: Date;
  createdAt: Date;
  publishedAt: Date | null;
  mode: string | null;
  workspaceId: string;
  sequence: number;
  data: unknown;
  metadata: unknown;
}

export const eventObject = (e: EventRowLike) => ({
  id: e.id,
  type: e.type,
  occurredAt: e.occurredAt.toISOString(),
  createdAt: e.createdAt.toISOString(),
  publishedAt: e.publishedAt ? e.publishedAt.toISOString() : null,
  mode: e.mode,
  workspaceId: e.workspaceId,
  sequence: e.sequence,
  data: e.data,
  metadata: e.metadata,
});

export const eventBody = (e: EventRowLike) => JSON.stringify(eventObject(e));
