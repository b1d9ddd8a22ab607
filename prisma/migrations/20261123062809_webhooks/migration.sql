-- AlterTable
ALTER TABLE "events" ADD COLUMN     "publishedPosition" BIGINT;

-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "events" TEXT[],
    "description" TEXT,
    "status" TEXT NOT NULL,
    "signatureFormat" TEXT NOT NULL DEFAULT 'svc',
    "secret" BYTEA NOT NULL,
    "previousSecret" BYTEA,
    "previousSecretExpiresAt" TIMESTAMPTZ(3),
    "consecutiveFailures" INTEGER NOT NULL DEFAULT 0,
    "lastEventId" TEXT,
    "lastAttemptedAt" TIMESTAMPTZ(3),
    "lastStatusCode" INTEGER,
    "lastDurationMs" INTEGER,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "endpointId" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "eventType" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "statusCode" INTEGER,
    "durationMs" INTEGER,
    "retryCount" INTEGER NOT NULL DEFAULT 0,
    "attemptedAt" TIMESTAMPTZ(3),
    "nextRetryAt" TIMESTAMPTZ(3),
    "responseBodyPreview" TEXT,
    "manual" BOOLEAN NOT NULL DEFAULT false,
    "enqueuedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhook_endpoints_workspaceId_mode_createdAt_id_idx" ON "webhook_endpoints"("workspaceId", "mode", "createdAt", "id");

-- CreateIndex
CREATE INDEX "webhook_endpoints_workspaceId_mode_status_createdAt_id_idx" ON "webhook_endpoints"("workspaceId", "mode", "status", "createdAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_endpoints_workspaceId_mode_id_key" ON "webhook_endpoints"("workspaceId", "mode", "id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_endpointId_createdAt_id_idx" ON "webhook_deliveries"("endpointId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_endpointId_status_createdAt_id_idx" ON "webhook_deliveries"("endpointId", "status", "createdAt", "id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_endpointId_eventType_createdAt_id_idx" ON "webhook_deliveries"("endpointId", "eventType", "createdAt", "id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_createdAt_idx" ON "webhook_deliveries"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "events_publishedPosition_key" ON "events"("publishedPosition");

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_workspaceId_mode_endpointId_fkey" FOREIGN KEY ("workspaceId", "mode", "endpointId") REFERENCES "webhook_endpoints"("workspaceId", "mode", "id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written below this line.
SELECT enable_tenant_isolation(t) FROM unnest(ARRAY['webhook_endpoints', 'webhook_deliveries']) AS t;

ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_status_check CHECK (status IN ('active', 'disabled', 'errored'));
ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_format_check CHECK ("signatureFormat" IN ('svc', 'standard'));
ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_failures_check CHECK ("consecutiveFailures" >= 0);
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('pending', 'succeeded', 'failed'));
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_retry_check CHECK ("retryCount" >= 0);

-- Inserts only wake the relay now: one notification per transaction (identical payloads
-- collapse), whatever the number of events. Subscribers are told by the relay, after it has
-- published in commit order (channel svc_published, jobs/outbox-relay.ts).
DROP TRIGGER events_notify ON events;
DROP FUNCTION notify_event();
CREATE FUNCTION notify_events_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('svc_events', '');
  RETURN NULL;
END $$;
CREATE TRIGGER events_notify AFTER INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION notify_events_inserted();

-- Events published before this migration keep their insert position as their published one.
UPDATE events SET "publishedPosition" = position WHERE "publishedAt" IS NOT NULL;

-- The relay's second queue: deliveries without a job, new or waiting for their retry time.
CREATE INDEX webhook_deliveries_unqueued_idx ON webhook_deliveries ("nextRetryAt") WHERE "enqueuedAt" IS NULL;
