-- /metrics reads the webhook delivery backlog at each scrape (src/server/metrics.ts, across
-- tenants). Partial indexes keep that read proportional to the backlog, not to every delivery kept
-- for the retention period. The statuses are webhookDeliveryMachine's (src/modules/webhooks/states.ts):
-- test/server/metrics.test.ts fails if the scrape's queries stop using these indexes.
CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries ("nextRetryAt", "createdAt") WHERE status = 'pending';
CREATE INDEX webhook_deliveries_failed_idx ON webhook_deliveries (id) WHERE status = 'failed';
