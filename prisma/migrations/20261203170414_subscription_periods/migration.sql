-- CreateTable
CREATE TABLE "subscription_periods" (
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "subscriptionId" TEXT NOT NULL,
    "periodStart" TIMESTAMPTZ(3) NOT NULL,
    "periodEnd" TIMESTAMPTZ(3) NOT NULL,
    "customerId" TEXT NOT NULL,
    "subscriptionCreatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "subscription_periods_pkey" PRIMARY KEY ("workspaceId","mode","subscriptionId","periodStart")
);

-- CreateIndex
CREATE INDEX "subscription_periods_workspaceId_mode_customerId_periodStar_idx" ON "subscription_periods"("workspaceId", "mode", "customerId", "periodStart");

ALTER TABLE subscription_periods ADD CONSTRAINT subscription_periods_subscription_fkey
  FOREIGN KEY ("workspaceId", mode, "subscriptionId") REFERENCES subscriptions ("workspaceId", mode, id) ON DELETE CASCADE;
ALTER TABLE subscription_periods ADD CONSTRAINT subscription_periods_order_check CHECK ("periodEnd" >= "periodStart");
SELECT enable_tenant_isolation('subscription_periods');

-- The subscription's current period as its row says: ended at canceledAt when that comes first. A
-- period that began earlier and runs past the new start is cut there (an interval change restarts
-- the period), so a subscription's periods never overlap.
CREATE FUNCTION subscription_periods_track() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ends timestamptz := CASE WHEN NEW."canceledAt" IS NULL THEN NEW."currentPeriodEnd"
    ELSE LEAST(NEW."currentPeriodEnd", GREATEST(NEW."canceledAt", NEW."currentPeriodStart")) END;
BEGIN
  UPDATE subscription_periods SET "periodEnd" = NEW."currentPeriodStart"
   WHERE "workspaceId" = NEW."workspaceId" AND mode = NEW.mode AND "subscriptionId" = NEW.id
     AND "periodStart" < NEW."currentPeriodStart" AND "periodEnd" > NEW."currentPeriodStart";
  INSERT INTO subscription_periods ("workspaceId", mode, "subscriptionId", "periodStart", "periodEnd", "customerId",
      "subscriptionCreatedAt")
    VALUES (NEW."workspaceId", NEW.mode, NEW.id, NEW."currentPeriodStart", ends, NEW."customerId", NEW."createdAt")
    ON CONFLICT ("workspaceId", mode, "subscriptionId", "periodStart") DO UPDATE SET "periodEnd" = EXCLUDED."periodEnd"
    WHERE subscription_periods."periodEnd" IS DISTINCT FROM EXCLUDED."periodEnd";
  RETURN NULL;
END $$;

CREATE TRIGGER subscription_periods_track AFTER INSERT OR UPDATE OF "currentPeriodStart", "currentPeriodEnd", "canceledAt"
  ON subscriptions FOR EACH ROW EXECUTE FUNCTION subscription_periods_track();

-- Subscriptions made before this migration start with their current period.
INSERT INTO subscription_periods ("workspaceId", mode, "subscriptionId", "periodStart", "periodEnd", "customerId",
    "subscriptionCreatedAt")
  SELECT "workspaceId", mode, id, "currentPeriodStart",
         CASE WHEN "canceledAt" IS NULL THEN "currentPeriodEnd"
           ELSE LEAST("currentPeriodEnd", GREATEST("canceledAt", "currentPeriodStart")) END,
         "customerId", "createdAt"
    FROM subscriptions;
