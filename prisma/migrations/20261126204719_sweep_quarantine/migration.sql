-- CreateTable
CREATE TABLE "sweep_quarantine" (
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "sweep" TEXT NOT NULL,
    "rowId" TEXT NOT NULL,
    "failures" INTEGER NOT NULL,
    "errorCode" TEXT,
    "error" TEXT NOT NULL,
    "firstFailedAt" TIMESTAMPTZ(3) NOT NULL,
    "lastFailedAt" TIMESTAMPTZ(3) NOT NULL,
    "retryAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sweep_quarantine_pkey" PRIMARY KEY ("workspaceId","mode","sweep","rowId")
);

-- CreateIndex
CREATE INDEX "sweep_quarantine_sweep_retryAt_idx" ON "sweep_quarantine"("sweep", "retryAt");

-- Written by the owner (sweeps span tenants: docs/scaling.md); read by tenant transactions, whose
-- claim queries leave a quarantined row out until its retry time (src/core/sweep.ts).
SELECT enable_tenant_isolation('sweep_quarantine');
