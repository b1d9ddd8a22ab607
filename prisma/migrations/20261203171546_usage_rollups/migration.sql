-- CreateTable
CREATE TABLE "usage_rollups" (
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "subscriptionId" TEXT NOT NULL,
    "meterId" TEXT NOT NULL,
    "periodStart" TIMESTAMPTZ(3) NOT NULL,
    "groupKey" TEXT NOT NULL,
    "periodEnd" TIMESTAMPTZ(3) NOT NULL,
    "dimensions" JSONB,
    "count" BIGINT NOT NULL DEFAULT 0,
    "sum" DECIMAL NOT NULL DEFAULT 0,
    "min" DECIMAL,
    "max" DECIMAL,
    "latestAt" TIMESTAMPTZ(3),
    "latestSeq" BIGINT,
    "latestValue" DECIMAL,
    "distinctCount" BIGINT NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "usage_rollups_pkey" PRIMARY KEY ("workspaceId","mode","subscriptionId","periodStart","meterId","groupKey")
);

-- CreateTable
CREATE TABLE "usage_distinct" (
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "subscriptionId" TEXT NOT NULL,
    "meterId" TEXT NOT NULL,
    "periodStart" TIMESTAMPTZ(3) NOT NULL,
    "groupKey" TEXT NOT NULL,
    "valueHash" BYTEA NOT NULL,
    "refs" BIGINT NOT NULL,

    CONSTRAINT "usage_distinct_pkey" PRIMARY KEY ("workspaceId","mode","subscriptionId","periodStart","meterId","groupKey","valueHash")
);

ALTER TABLE usage_rollups ADD CONSTRAINT usage_rollups_subscription_fkey
  FOREIGN KEY ("workspaceId", mode, "subscriptionId") REFERENCES subscriptions ("workspaceId", mode, id) ON DELETE CASCADE;
ALTER TABLE usage_rollups ADD CONSTRAINT usage_rollups_meter_fkey
  FOREIGN KEY ("workspaceId", mode, "meterId") REFERENCES meters ("workspaceId", mode, id) ON DELETE CASCADE;
ALTER TABLE usage_distinct ADD CONSTRAINT usage_distinct_refs_check CHECK (refs >= 0);
SELECT enable_tenant_isolation('usage_rollups');
SELECT enable_tenant_isolation('usage_distinct');
