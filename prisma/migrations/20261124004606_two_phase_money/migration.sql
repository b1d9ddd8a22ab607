-- AlterTable
ALTER TABLE "refunds" ADD COLUMN     "providerKey" TEXT,
ADD COLUMN     "submittedAt" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "payouts" ADD COLUMN     "claimedAt" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "checkout_attempts" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "checkoutSessionId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "adapter" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "providerReference" TEXT,
    "providerPaymentId" TEXT,
    "amount" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "attemptData" JSONB,
    "idempotencyKey" TEXT NOT NULL,
    "voidedAt" TIMESTAMPTZ(3),
    "paidAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "checkout_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "checkout_attempts_providerReference_idx" ON "checkout_attempts"("providerReference");

-- CreateIndex
CREATE INDEX "checkout_attempts_status_createdAt_idx" ON "checkout_attempts"("status", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "checkout_attempts_workspaceId_mode_id_key" ON "checkout_attempts"("workspaceId", "mode", "id");

-- CreateIndex
CREATE UNIQUE INDEX "checkout_attempts_workspaceId_mode_checkoutSessionId_number_key" ON "checkout_attempts"("workspaceId", "mode", "checkoutSessionId", "number");

-- CreateIndex
CREATE UNIQUE INDEX "checkout_attempts_adapter_providerReference_key" ON "checkout_attempts"("adapter", "providerReference");

-- CreateIndex
CREATE UNIQUE INDEX "refunds_workspaceId_mode_providerKey_key" ON "refunds"("workspaceId", "mode", "providerKey");

-- Hand-written below this line.
SELECT enable_tenant_isolation('checkout_attempts');

ALTER TABLE checkout_attempts
  ADD CONSTRAINT checkout_attempts_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT checkout_attempts_status_check CHECK (status IN ('creating', 'open', 'capturing', 'superseded', 'voided', 'failed', 'paid', 'paid_unapplied')),
  ADD CONSTRAINT checkout_attempts_number_check CHECK (number > 0),
  ADD CONSTRAINT checkout_attempts_amount_check CHECK (amount > 0),
  ADD CONSTRAINT checkout_attempts_currency_check CHECK (currency ~ '^[A-Z]{3}$'),
  ADD CONSTRAINT checkout_attempts_session_fkey FOREIGN KEY ("workspaceId", mode, "checkoutSessionId") REFERENCES checkout_sessions ("workspaceId", mode, id);
-- Money that arrived is never forgotten.
REVOKE DELETE ON checkout_attempts FROM svc_app;

-- The attempts made before this migration: the current one of each session that has one.
INSERT INTO checkout_attempts (id, "workspaceId", mode, "checkoutSessionId", number, adapter, method, status, "providerReference", amount, currency, "attemptData", "idempotencyKey", "createdAt", "updatedAt")
SELECT 'catt_' || substr(s.id, 4), s."workspaceId", s.mode, s.id, s."attemptCount", s.adapter, s."attemptMethod",
       CASE WHEN s.status = 'completed' THEN 'paid' ELSE 'open' END,
       s."providerReference", s.amount, s.currency, s."attemptData", s.id || ':' || s."attemptCount", coalesce(s."attemptedAt", s."createdAt"), s."updatedAt"
FROM checkout_sessions s
WHERE s."attemptCount" > 0 AND s.adapter IS NOT NULL AND s."attemptMethod" IS NOT NULL
ON CONFLICT DO NOTHING;

-- Refunds made before this migration were submitted in the transaction that created them.
UPDATE refunds SET "submittedAt" = "createdAt" WHERE "submittedAt" IS NULL;
-- The sweep's work queue: refunds whose provider call has no recorded outcome.
CREATE INDEX refunds_unsubmitted_idx ON refunds ("createdAt") WHERE "submittedAt" IS NULL;
