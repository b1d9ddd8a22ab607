-- CreateTable
CREATE TABLE "subscriptions" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "customerId" TEXT NOT NULL,
    "planId" TEXT NOT NULL,
    "priceId" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "quantity" INTEGER NOT NULL DEFAULT 1,
    "paymentMethod" TEXT,
    "anchorAt" TIMESTAMPTZ(3) NOT NULL,
    "periodIndex" INTEGER NOT NULL DEFAULT 0,
    "currentPeriodStart" TIMESTAMPTZ(3) NOT NULL,
    "currentPeriodEnd" TIMESTAMPTZ(3) NOT NULL,
    "trialEnd" TIMESTAMPTZ(3),
    "cancelAtPeriodEnd" BOOLEAN NOT NULL DEFAULT false,
    "canceledAt" TIMESTAMPTZ(3),
    "pausedAt" TIMESTAMPTZ(3),
    "pendingPriceId" TEXT,
    "pendingQuantity" INTEGER,
    "latestInvoiceId" TEXT,
    "testClockId" TEXT,
    "metadata" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "subscriptions_pkey" PRIMARY KEY ("workspaceId","mode","id")
);

-- CreateIndex
CREATE INDEX "subscriptions_workspaceId_mode_createdAt_id_idx" ON "subscriptions"("workspaceId", "mode", "createdAt", "id");

-- CreateIndex
CREATE INDEX "subscriptions_workspaceId_mode_customerId_createdAt_id_idx" ON "subscriptions"("workspaceId", "mode", "customerId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "subscriptions_workspaceId_mode_status_createdAt_id_idx" ON "subscriptions"("workspaceId", "mode", "status", "createdAt", "id");

-- CreateIndex
CREATE INDEX "subscriptions_workspaceId_mode_testClockId_idx" ON "subscriptions"("workspaceId", "mode", "testClockId");

-- CreateIndex
CREATE UNIQUE INDEX "invoices_cycle_key" ON "invoices"("workspaceId", "mode", "subscriptionId", "periodStart", "billingReason");

-- Hand-written below: tenancy, checks, composite foreign keys, the renewal index.
SELECT enable_tenant_isolation('subscriptions');

ALTER TABLE subscriptions
  ADD CONSTRAINT subscriptions_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT subscriptions_status_check
    CHECK (status IN ('trialing', 'active', 'past_due', 'paused', 'canceled', 'incomplete')),
  ADD CONSTRAINT subscriptions_quantity_check CHECK (quantity > 0 AND ("pendingQuantity" IS NULL OR "pendingQuantity" > 0)),
  ADD CONSTRAINT subscriptions_period_check CHECK ("currentPeriodEnd" > "currentPeriodStart"),
  ADD CONSTRAINT subscriptions_customer_fkey FOREIGN KEY ("workspaceId", mode, "customerId")
    REFERENCES customers ("workspaceId", mode, id) ON DELETE RESTRICT ON UPDATE CASCADE,
  ADD CONSTRAINT subscriptions_plan_fkey FOREIGN KEY ("workspaceId", mode, "planId")
    REFERENCES plans ("workspaceId", mode, id) ON DELETE RESTRICT ON UPDATE CASCADE,
  ADD CONSTRAINT subscriptions_price_fkey FOREIGN KEY ("workspaceId", mode, "priceId")
    REFERENCES prices ("workspaceId", mode, id) ON DELETE RESTRICT ON UPDATE CASCADE,
  ADD CONSTRAINT subscriptions_pending_price_fkey FOREIGN KEY ("workspaceId", mode, "pendingPriceId")
    REFERENCES prices ("workspaceId", mode, id) ON DELETE RESTRICT ON UPDATE CASCADE,
  ADD CONSTRAINT subscriptions_latest_invoice_fkey FOREIGN KEY ("workspaceId", mode, "latestInvoiceId")
    REFERENCES invoices ("workspaceId", mode, id) ON DELETE RESTRICT ON UPDATE CASCADE;

ALTER TABLE invoices
  ADD CONSTRAINT invoices_subscription_fkey FOREIGN KEY ("workspaceId", mode, "subscriptionId")
    REFERENCES subscriptions ("workspaceId", mode, id) ON DELETE RESTRICT ON UPDATE CASCADE;

-- The billing tick's renewals on the real clock (BILLING §7.3): due rows of the renewable statuses
-- (src/modules/subscriptions/states.ts, `renewable`); subscriptions on a test clock move with their clock.
CREATE INDEX subscriptions_renewal_due_idx ON subscriptions ("currentPeriodEnd")
  WHERE status IN ('active', 'trialing', 'past_due') AND "testClockId" IS NULL;

-- BILLING §3.6: a proration credit ("unused time") is a negative line; only generated lines (they name
-- their price) may be negative, and the invoice's subtotal stays >= 0 (invoices_amounts_check).
ALTER TABLE invoice_lines DROP CONSTRAINT invoice_lines_amount_check,
  ADD CONSTRAINT invoice_lines_amount_check
    CHECK (quantity > 0 AND ("unitAmount" >= 0 OR "priceId" IS NOT NULL) AND amount = quantity * "unitAmount");

-- A stored-method charge is written `pending` before the provider is called (write pending, call,
-- reconcile: src/modules/subscriptions/collect.ts), then becomes `succeeded` or `failed`.
ALTER TABLE payments DROP CONSTRAINT payments_status_check,
  ADD CONSTRAINT payments_status_check
    CHECK (status IN ('succeeded', 'failed', 'refunded', 'partially_refunded', 'pending'));
