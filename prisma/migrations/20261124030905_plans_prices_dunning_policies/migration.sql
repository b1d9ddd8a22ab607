-- CreateTable
CREATE TABLE "dunning_policies" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "retryScheduleDays" INTEGER[],
    "finalAction" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dunning_policies_pkey" PRIMARY KEY ("workspaceId","mode","id")
);

-- CreateTable
CREATE TABLE "plans" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "interval" TEXT NOT NULL,
    "intervalCount" INTEGER NOT NULL DEFAULT 1,
    "trialDays" INTEGER NOT NULL DEFAULT 0,
    "usageAggregate" TEXT,
    "meteredUnit" TEXT,
    "portalFeatures" JSONB NOT NULL,
    "dunningPolicyId" TEXT,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "archivedAt" TIMESTAMPTZ(3),
    "metadata" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "plans_pkey" PRIMARY KEY ("workspaceId","mode","id")
);

-- CreateTable
CREATE TABLE "prices" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "planId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "unitAmount" BIGINT,
    "tiers" JSONB,
    "taxMode" TEXT NOT NULL DEFAULT 'exclusive',
    "active" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "prices_pkey" PRIMARY KEY ("workspaceId","mode","id")
);

-- CreateIndex
CREATE INDEX "dunning_policies_workspaceId_mode_createdAt_id_idx" ON "dunning_policies"("workspaceId", "mode", "createdAt", "id");

-- CreateIndex
CREATE INDEX "plans_workspaceId_mode_createdAt_id_idx" ON "plans"("workspaceId", "mode", "createdAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "prices_workspaceId_mode_planId_position_key" ON "prices"("workspaceId", "mode", "planId", "position");

-- AddForeignKey
ALTER TABLE "prices" ADD CONSTRAINT "prices_workspaceId_mode_planId_fkey" FOREIGN KEY ("workspaceId", "mode", "planId") REFERENCES "plans"("workspaceId", "mode", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Hand-written below this line.
SELECT enable_tenant_isolation(t) FROM unnest(ARRAY['plans', 'prices', 'dunning_policies']) AS t;

-- A plan's policy is in its own workspace and mode; null is no policy (MATCH SIMPLE).
ALTER TABLE plans
  ADD CONSTRAINT plans_dunning_policy_fkey FOREIGN KEY ("workspaceId", mode, "dunningPolicyId")
    REFERENCES dunning_policies ("workspaceId", mode, id),
  ADD CONSTRAINT plans_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT plans_interval_check CHECK ("interval" IN ('day', 'week', 'month', 'year')),
  ADD CONSTRAINT plans_interval_count_check CHECK ("intervalCount" >= 1),
  ADD CONSTRAINT plans_trial_days_check CHECK ("trialDays" >= 0),
  ADD CONSTRAINT plans_usage_aggregate_check CHECK ("usageAggregate" IS NULL OR "usageAggregate" IN ('sum', 'max', 'last')),
  ADD CONSTRAINT plans_name_check CHECK (char_length(name) BETWEEN 1 AND 255),
  ADD CONSTRAINT plans_description_check CHECK (description IS NULL OR char_length(description) <= 1024),
  ADD CONSTRAINT plans_metered_unit_check CHECK ("meteredUnit" IS NULL OR char_length("meteredUnit") <= 64),
  -- spec Plan and price: archived implies not active (PATCH active: true clears archivedAt).
  ADD CONSTRAINT plans_archived_check CHECK ("archivedAt" IS NULL OR NOT active);

ALTER TABLE prices
  ADD CONSTRAINT prices_model_check CHECK (model IN ('flat', 'tiered', 'volume', 'usage')),
  ADD CONSTRAINT prices_tax_mode_check CHECK ("taxMode" IN ('inclusive', 'exclusive')),
  ADD CONSTRAINT prices_currency_check CHECK (currency ~ '^[A-Z]{3}$'),
  ADD CONSTRAINT prices_amount_check CHECK ("unitAmount" IS NULL OR "unitAmount" >= 0),
  -- spec Price: unitAmount for flat and usage, tiers for tiered and volume, never both.
  ADD CONSTRAINT prices_shape_check CHECK (
    CASE WHEN model IN ('flat', 'usage') THEN "unitAmount" IS NOT NULL AND tiers IS NULL
         ELSE "unitAmount" IS NULL AND jsonb_typeof(tiers) = 'array' END);

-- spec "Prices are versioned, one per currency and model": at most one active price each.
CREATE UNIQUE INDEX prices_one_active_key ON prices ("workspaceId", mode, "planId", currency, model) WHERE active;

-- Prices are never deleted (subscriptions keep billing them); only `active` changes after insert.
REVOKE DELETE ON prices, plans, dunning_policies FROM svc_app;
CREATE FUNCTION prices_frozen() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (NEW.id, NEW."workspaceId", NEW.mode, NEW."planId", NEW.position, NEW.currency, NEW.model, NEW."unitAmount",
      NEW.tiers, NEW."taxMode", NEW."createdAt")
     IS DISTINCT FROM
     (OLD.id, OLD."workspaceId", OLD.mode, OLD."planId", OLD.position, OLD.currency, OLD.model, OLD."unitAmount",
      OLD.tiers, OLD."taxMode", OLD."createdAt") THEN
    RAISE EXCEPTION 'prices are immutable but for active' USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER prices_frozen BEFORE UPDATE ON prices FOR EACH ROW EXECUTE FUNCTION prices_frozen();

ALTER TABLE dunning_policies
  ADD CONSTRAINT dunning_policies_final_action_check CHECK ("finalAction" IN ('uncollectible', 'void')),
  ADD CONSTRAINT dunning_policies_schedule_check CHECK (cardinality("retryScheduleDays") BETWEEN 1 AND 10);
