-- CreateTable
CREATE TABLE "setup_sessions" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "customerId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "types" TEXT[],
    "currency" TEXT NOT NULL,
    "adapter" TEXT,
    "successUrl" TEXT NOT NULL,
    "cancelUrl" TEXT NOT NULL,
    "hostedSecret" TEXT NOT NULL DEFAULT substr(encode(sha256(convert_to(((gen_random_uuid())::text || (gen_random_uuid())::text), 'UTF8'::name)), 'hex'::text), 1, 40),
    "setDefault" BOOLEAN NOT NULL DEFAULT false,
    "subscriptionId" TEXT,
    "paymentMethodId" TEXT,
    "lastError" JSONB,
    "consentSource" TEXT NOT NULL DEFAULT 'setup_session',
    "attemptCount" INTEGER NOT NULL DEFAULT 0,
    "metadata" JSONB,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "completedAt" TIMESTAMPTZ(3),
    "canceledAt" TIMESTAMPTZ(3),
    "expiredAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "setup_sessions_pkey" PRIMARY KEY ("workspaceId","mode","id")
);

-- CreateTable
CREATE TABLE "setup_attempts" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "setupSessionId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "adapter" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "channel" TEXT,
    "status" TEXT NOT NULL,
    "providerRef" TEXT,
    "instructions" JSONB,
    "scenario" TEXT,
    "failureCode" TEXT,
    "idempotencyKey" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "setup_attempts_pkey" PRIMARY KEY ("workspaceId","mode","id")
);

-- CreateIndex
CREATE INDEX "setup_sessions_workspaceId_mode_createdAt_id_idx" ON "setup_sessions"("workspaceId", "mode", "createdAt", "id");

-- CreateIndex
CREATE INDEX "setup_sessions_workspaceId_mode_customerId_createdAt_id_idx" ON "setup_sessions"("workspaceId", "mode", "customerId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "setup_sessions_status_expiresAt_idx" ON "setup_sessions"("status", "expiresAt");

-- CreateIndex
CREATE INDEX "setup_attempts_adapter_providerRef_idx" ON "setup_attempts"("adapter", "providerRef");

-- CreateIndex
CREATE INDEX "setup_attempts_status_createdAt_idx" ON "setup_attempts"("status", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "setup_attempts_workspaceId_mode_setupSessionId_number_key" ON "setup_attempts"("workspaceId", "mode", "setupSessionId", "number");

-- ---- hand-written: row-level security, integrity (docs/guides/setup-sessions.md) ----

SELECT enable_tenant_isolation('setup_sessions');
SELECT enable_tenant_isolation('setup_attempts');

ALTER TABLE setup_sessions
  ADD CONSTRAINT setup_sessions_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT setup_sessions_status_check CHECK (status IN ('open', 'pending', 'completed', 'expired', 'canceled')),
  ADD CONSTRAINT setup_sessions_types_check CHECK (
    cardinality(types) >= 1 AND types <@ ARRAY['card', 'ewallet', 'direct_debit', 'paypal']::text[]),
  ADD CONSTRAINT setup_sessions_adapter_check CHECK (
    adapter IS NULL OR adapter IN ('provider_a', 'provider_b', 'provider_c', 'provider_a_platform')),
  ADD CONSTRAINT setup_sessions_consent_source_check CHECK ("consentSource" IN ('setup_session', 'portal')),
  ADD CONSTRAINT setup_sessions_attempts_check CHECK ("attemptCount" BETWEEN 0 AND 10),
  ADD CONSTRAINT setup_sessions_completed_check CHECK ((status = 'completed') = ("paymentMethodId" IS NOT NULL)),
  ADD CONSTRAINT setup_sessions_customer_fkey FOREIGN KEY ("workspaceId", mode, "customerId")
    REFERENCES customers ("workspaceId", mode, id) ON DELETE RESTRICT ON UPDATE CASCADE,
  ADD CONSTRAINT setup_sessions_subscription_fkey FOREIGN KEY ("workspaceId", mode, "subscriptionId")
    REFERENCES subscriptions ("workspaceId", mode, id) ON DELETE RESTRICT ON UPDATE CASCADE,
  -- The saved method is this customer's (payment_methods_owner_key).
  ADD CONSTRAINT setup_sessions_payment_method_fkey FOREIGN KEY ("workspaceId", mode, "customerId", "paymentMethodId")
    REFERENCES payment_methods ("workspaceId", mode, "customerId", id) ON DELETE RESTRICT ON UPDATE CASCADE;

ALTER TABLE setup_attempts
  ADD CONSTRAINT setup_attempts_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT setup_attempts_status_check CHECK (
    status IN ('creating', 'open', 'confirming', 'superseded', 'failed', 'completed', 'completed_unapplied')),
  ADD CONSTRAINT setup_attempts_type_check CHECK (type IN ('card', 'ewallet', 'direct_debit', 'paypal')),
  ADD CONSTRAINT setup_attempts_session_fkey FOREIGN KEY ("workspaceId", mode, "setupSessionId")
    REFERENCES setup_sessions ("workspaceId", mode, id) ON DELETE RESTRICT ON UPDATE CASCADE;
