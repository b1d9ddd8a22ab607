-- AlterTable
ALTER TABLE "customers" ADD COLUMN     "externalId" TEXT;

-- CreateTable
CREATE TABLE "meters" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "eventName" TEXT NOT NULL,
    "aggregation" TEXT NOT NULL,
    "valueProperty" TEXT,
    "filters" JSONB NOT NULL DEFAULT '{}',
    "groupBy" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "unit" TEXT,
    "status" TEXT NOT NULL DEFAULT 'active',
    "archivedAt" TIMESTAMPTZ(3),
    "metadata" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "meters_pkey" PRIMARY KEY ("workspaceId","mode","id")
);

-- CreateTable
CREATE TABLE "usage_events" (
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "eventName" TEXT NOT NULL,
    "customerId" TEXT NOT NULL,
    "externalCustomerId" TEXT,
    "timestamp" TIMESTAMPTZ(3) NOT NULL,
    "receivedAt" TIMESTAMPTZ(3) NOT NULL,
    "properties" JSONB NOT NULL DEFAULT '{}',
    "meterIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "status" TEXT NOT NULL DEFAULT 'accepted',
    "voidedAt" TIMESTAMPTZ(3),
    "ingestSeq" BIGINT NOT NULL,
    "batchId" TEXT NOT NULL,

    CONSTRAINT "usage_events_pkey" PRIMARY KEY ("workspaceId","mode","ingestSeq","timestamp","receivedAt")
);

-- CreateTable
CREATE TABLE "usage_event_keys_0" (
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "hash" BYTEA NOT NULL,
    "acceptedAt" TIMESTAMPTZ(3) NOT NULL,
    "timestamp" TIMESTAMPTZ(3) NOT NULL,
    "receivedAt" TIMESTAMPTZ(3) NOT NULL,
    "ingestSeq" BIGINT NOT NULL,

    CONSTRAINT "usage_event_keys_0_pkey" PRIMARY KEY ("workspaceId","mode","id")
);

-- CreateTable
CREATE TABLE "usage_event_keys_1" (
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "hash" BYTEA NOT NULL,
    "acceptedAt" TIMESTAMPTZ(3) NOT NULL,
    "timestamp" TIMESTAMPTZ(3) NOT NULL,
    "receivedAt" TIMESTAMPTZ(3) NOT NULL,
    "ingestSeq" BIGINT NOT NULL,

    CONSTRAINT "usage_event_keys_1_pkey" PRIMARY KEY ("workspaceId","mode","id")
);

-- CreateTable
CREATE TABLE "usage_ingest_batches" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "eventCount" INTEGER NOT NULL,
    "firstSeq" BIGINT NOT NULL,
    "lastSeq" BIGINT NOT NULL,
    "receivedAt" TIMESTAMPTZ(3) NOT NULL,
    "foldedAt" TIMESTAMPTZ(3),

    CONSTRAINT "usage_ingest_batches_pkey" PRIMARY KEY ("workspaceId","mode","id")
);

-- CreateIndex
CREATE INDEX "meters_workspaceId_mode_createdAt_id_idx" ON "meters"("workspaceId", "mode", "createdAt", "id");

-- CreateIndex
CREATE INDEX "meters_workspaceId_mode_eventName_createdAt_idx" ON "meters"("workspaceId", "mode", "eventName", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "meters_workspaceId_mode_key_key" ON "meters"("workspaceId", "mode", "key");

-- CreateIndex
CREATE INDEX "usage_events_workspaceId_mode_customerId_eventName_timestam_idx" ON "usage_events"("workspaceId", "mode", "customerId", "eventName", "timestamp");

-- CreateIndex
CREATE INDEX "usage_events_workspaceId_mode_timestamp_idx" ON "usage_events"("workspaceId", "mode", "timestamp");

-- CreateIndex
CREATE UNIQUE INDEX "usage_ingest_batches_workspaceId_mode_seq_key" ON "usage_ingest_batches"("workspaceId", "mode", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "customers_workspaceId_mode_externalId_key" ON "customers"("workspaceId", "mode", "externalId");

-- Hand-written (docs/usage.md, Tables).
-- Tenant isolation and checks.
SELECT enable_tenant_isolation('meters');
SELECT enable_tenant_isolation('usage_event_keys_0');
SELECT enable_tenant_isolation('usage_event_keys_1');
SELECT enable_tenant_isolation('usage_ingest_batches');
ALTER TABLE "meters" ADD CONSTRAINT "meters_mode_check" CHECK (mode IN ('test', 'live'));
ALTER TABLE "meters" ADD CONSTRAINT "meters_status_check" CHECK (status IN ('active', 'archived'));
ALTER TABLE "meters" ADD CONSTRAINT "meters_archived_check" CHECK ((status = 'archived') = ("archivedAt" IS NOT NULL));
ALTER TABLE "meters" ADD CONSTRAINT "meters_value_property_check" CHECK ((aggregation = 'count') = ("valueProperty" IS NULL));
ALTER TABLE "customers" ADD CONSTRAINT "customers_external_id_check" CHECK ("externalId" IS NULL OR "externalId" ~ '^[\x21-\x7E]{1,128}$');
ALTER TABLE "usage_ingest_batches" ADD CONSTRAINT "usage_ingest_batches_kind_check" CHECK (kind IN ('ingest', 'correction'));
-- The fold reads pending batches only.
CREATE INDEX "usage_ingest_batches_pending_idx" ON "usage_ingest_batches" ("workspaceId", "mode", seq) WHERE "foldedAt" IS NULL;

-- usage_events: the table Prisma describes, rebuilt partitioned. LIST by mode; live is RANGE by
-- `timestamp` (retention drops a month, backdating reaches the previous one), test by `receivedAt`
-- (test clocks stamp far-away times). Partitions live in schema usage_parts, out of Prisma's sight.
DROP TABLE "usage_events";
CREATE TABLE "usage_events" (
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "eventName" TEXT NOT NULL,
    "customerId" TEXT NOT NULL,
    "externalCustomerId" TEXT,
    "timestamp" TIMESTAMPTZ(3) NOT NULL,
    "receivedAt" TIMESTAMPTZ(3) NOT NULL,
    "properties" JSONB NOT NULL DEFAULT '{}',
    "meterIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "status" TEXT NOT NULL DEFAULT 'accepted',
    "voidedAt" TIMESTAMPTZ(3),
    "ingestSeq" BIGINT NOT NULL,
    "batchId" TEXT NOT NULL,
    CONSTRAINT "usage_events_pkey" PRIMARY KEY ("workspaceId","mode","ingestSeq","timestamp","receivedAt"),
    CONSTRAINT "usage_events_status_check" CHECK (status IN ('accepted', 'voided')),
    CONSTRAINT "usage_events_voided_check" CHECK ((status = 'voided') = ("voidedAt" IS NOT NULL))
) PARTITION BY LIST (mode);
CREATE INDEX "usage_events_workspaceId_mode_customerId_eventName_timestam_idx" ON "usage_events"("workspaceId", "mode", "customerId", "eventName", "timestamp");
CREATE INDEX "usage_events_workspaceId_mode_timestamp_idx" ON "usage_events"("workspaceId", "mode", "timestamp");
SELECT enable_tenant_isolation('usage_events');

CREATE SCHEMA IF NOT EXISTS usage_parts;
CREATE TABLE usage_parts.usage_events_live PARTITION OF "usage_events" FOR VALUES IN ('live') PARTITION BY RANGE ("timestamp");
CREATE TABLE usage_parts.usage_events_test PARTITION OF "usage_events" FOR VALUES IN ('test') PARTITION BY RANGE ("receivedAt");

-- One month's partition of a mode (idempotent): BRIN on time and journal position, RLS as the parent.
CREATE FUNCTION usage_partition_ensure(m text, month date) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  start date := date_trunc('month', month)::date;
  name text := format('usage_events_%s_%s', m, to_char(start, 'YYYY_MM'));
BEGIN
  IF to_regclass(format('usage_parts.%I', name)) IS NOT NULL THEN RETURN; END IF;
  EXECUTE format('CREATE TABLE usage_parts.%I PARTITION OF usage_parts.%I FOR VALUES FROM (%L) TO (%L)',
    name, 'usage_events_' || m, start, (start + interval '1 month')::date);
  EXECUTE format('CREATE INDEX ON usage_parts.%I USING brin (%I) WITH (pages_per_range = 32)', name,
    CASE WHEN m = 'live' THEN 'timestamp' ELSE 'receivedAt' END);
  EXECUTE format('CREATE INDEX ON usage_parts.%I USING brin ("ingestSeq") WITH (pages_per_range = 32)', name);
  EXECUTE format('ALTER TABLE usage_parts.%I ENABLE ROW LEVEL SECURITY', name);
  EXECUTE format('ALTER TABLE usage_parts.%I FORCE ROW LEVEL SECURITY', name);
END $$;

-- The months a mode needs now: the previous one (backdating up to 35 days) through `ahead` months on.
CREATE FUNCTION usage_partitions_premake(ahead int DEFAULT 3) RETURNS void LANGUAGE plpgsql AS $$
DECLARE i int;
BEGIN
  FOR i IN -2..ahead LOOP
    PERFORM usage_partition_ensure('live', (now() + make_interval(months => i))::date);
    PERFORM usage_partition_ensure('test', (now() + make_interval(months => i))::date);
  END LOOP;
END $$;
SELECT usage_partitions_premake(3);

-- Expired dedupe keys of the generation not being written (docs/usage.md, Dedupe generations): the
-- table is truncated once none of its keys is younger than 35 days, else its expired keys go.
CREATE FUNCTION usage_keys_rotate(at timestamptz DEFAULT now()) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  older text := format('usage_event_keys_%s', (floor(extract(epoch FROM at) / (35 * 86400))::bigint + 1) % 2);
  fresh boolean;
BEGIN
  EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE "acceptedAt" > $1 - interval ''35 days'')', older)
    INTO fresh USING at;
  IF fresh THEN
    EXECUTE format('DELETE FROM %I WHERE "acceptedAt" <= $1 - interval ''35 days''', older) USING at;
  ELSE
    EXECUTE format('TRUNCATE %I', older);
  END IF;
END $$;
