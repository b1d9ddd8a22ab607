-- AlterTable
ALTER TABLE "invoices" ADD COLUMN     "dunningSnapshot" JSONB;

-- CreateTable
CREATE TABLE "usage_records" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "subscriptionId" TEXT NOT NULL,
    "quantity" INTEGER NOT NULL,
    "timestamp" TIMESTAMPTZ(3) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "usage_records_pkey" PRIMARY KEY ("workspaceId","mode","id")
);

-- CreateIndex
CREATE INDEX "usage_records_workspaceId_mode_subscriptionId_timestamp_idx" ON "usage_records"("workspaceId", "mode", "subscriptionId", "timestamp");

-- Hand-written below the generated part.
SELECT enable_tenant_isolation('usage_records');
ALTER TABLE usage_records
  ADD CONSTRAINT usage_records_quantity_check CHECK (quantity >= 0);
-- Usage records are facts reported by the merchant: never changed, never deleted.
REVOKE UPDATE, DELETE ON usage_records FROM svc_app;

-- Due dunning retries live in rows (docs/decisions.md, Renewals and dunning): the tick reads this index.
CREATE INDEX invoices_next_attempt_idx ON invoices ("nextAttemptAt") WHERE "nextAttemptAt" IS NOT NULL;
ALTER TABLE usage_records ADD CONSTRAINT usage_records_subscription_fkey FOREIGN KEY ("workspaceId", mode, "subscriptionId")
  REFERENCES subscriptions ("workspaceId", mode, id) ON DELETE RESTRICT ON UPDATE CASCADE;
