-- CreateTable
CREATE TABLE "coupons" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "percentOffHundredths" INTEGER,
    "amountOff" JSONB,
    "duration" TEXT NOT NULL,
    "durationInMonths" INTEGER,
    "maxRedemptions" INTEGER,
    "timesRedeemed" INTEGER NOT NULL DEFAULT 0,
    "redeemBy" TIMESTAMPTZ(3),
    "appliesTo" JSONB,
    "archivedAt" TIMESTAMPTZ(3),
    "metadata" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "coupons_pkey" PRIMARY KEY ("workspaceId","mode","id")
);

-- CreateIndex
CREATE INDEX "coupons_workspaceId_mode_createdAt_id_idx" ON "coupons"("workspaceId", "mode", "createdAt", "id");

-- Hand-written below: tenancy and checks (docs/coupons.md).
SELECT enable_tenant_isolation('coupons');

ALTER TABLE coupons
  ADD CONSTRAINT coupons_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT coupons_duration_check CHECK (duration IN ('once', 'repeating', 'forever')),
  ADD CONSTRAINT coupons_duration_months_check CHECK (
    (duration = 'repeating') = ("durationInMonths" IS NOT NULL)
    AND ("durationInMonths" IS NULL OR "durationInMonths" BETWEEN 1 AND 36)),
  -- percent XOR amount; a percent is 0 < x <= 100 with two decimals.
  ADD CONSTRAINT coupons_off_check CHECK (
    ("percentOffHundredths" IS NULL) <> ("amountOff" IS NULL)
    AND ("percentOffHundredths" IS NULL OR "percentOffHundredths" BETWEEN 1 AND 10000)),
  -- No overshoot under concurrency: redemptions raise timesRedeemed by a conditional UPDATE.
  ADD CONSTRAINT coupons_redemptions_check CHECK (
    "timesRedeemed" >= 0 AND ("maxRedemptions" IS NULL OR ("maxRedemptions" >= 1 AND "timesRedeemed" <= "maxRedemptions")));
