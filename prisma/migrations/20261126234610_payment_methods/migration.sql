-- AlterTable
ALTER TABLE "customers" ADD COLUMN     "defaultPaymentMethodId" TEXT;

-- CreateTable
CREATE TABLE "payment_methods" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "customerId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "adapter" TEXT NOT NULL,
    "card" JSONB,
    "ewallet" JSONB,
    "directDebit" JSONB,
    "paypal" JSONB,
    "isDefault" BOOLEAN NOT NULL DEFAULT false,
    "expiresAt" TIMESTAMPTZ(3),
    "consent" JSONB NOT NULL,
    "metadata" JSONB,
    "providerToken" BYTEA NOT NULL,
    "providerTokenHash" TEXT NOT NULL,
    "testClockId" TEXT,
    "detachedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "payment_methods_pkey" PRIMARY KEY ("workspaceId","mode","id")
);

-- CreateIndex
CREATE INDEX "payment_methods_workspaceId_mode_createdAt_id_idx" ON "payment_methods"("workspaceId", "mode", "createdAt", "id");

-- CreateIndex
CREATE INDEX "payment_methods_workspaceId_mode_customerId_createdAt_id_idx" ON "payment_methods"("workspaceId", "mode", "customerId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "payment_methods_providerTokenHash_idx" ON "payment_methods"("providerTokenHash");

-- CreateIndex
CREATE UNIQUE INDEX "payment_methods_workspaceId_mode_adapter_providerTokenHash_key" ON "payment_methods"("workspaceId", "mode", "adapter", "providerTokenHash");


-- ---- hand-written: row-level security, integrity ----

SELECT enable_tenant_isolation('payment_methods');

ALTER TABLE payment_methods
  ADD CONSTRAINT payment_methods_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT payment_methods_type_check CHECK (type IN ('card', 'ewallet', 'direct_debit', 'paypal')),
  ADD CONSTRAINT payment_methods_status_check CHECK (status IN ('active', 'requires_action', 'expired', 'revoked', 'detached')),
  ADD CONSTRAINT payment_methods_adapter_check CHECK (adapter IN ('provider_a', 'provider_b', 'provider_c', 'provider_a_platform')),
  ADD CONSTRAINT payment_methods_detached_check CHECK ((status = 'detached') = ("detachedAt" IS NOT NULL)),
  ADD CONSTRAINT payment_methods_customer_fkey FOREIGN KEY ("workspaceId", mode, "customerId")
    REFERENCES customers ("workspaceId", mode, id) ON DELETE RESTRICT ON UPDATE CASCADE;

-- A customer's default is one of its own methods (same workspace, mode and customer).
CREATE UNIQUE INDEX payment_methods_owner_key ON payment_methods ("workspaceId", mode, "customerId", id);
ALTER TABLE customers
  ADD CONSTRAINT customers_default_payment_method_fkey FOREIGN KEY ("workspaceId", mode, id, "defaultPaymentMethodId")
    REFERENCES payment_methods ("workspaceId", mode, "customerId", id) ON DELETE RESTRICT ON UPDATE CASCADE;

-- The card-expiry sweep reads active methods by expiry (docs/guides/payment-methods.md).
CREATE INDEX payment_methods_expiry_idx ON payment_methods ("expiresAt") WHERE status = 'active' AND "expiresAt" IS NOT NULL;

-- One default per customer, and it is an active method.
CREATE UNIQUE INDEX payment_methods_one_default_key ON payment_methods ("workspaceId", mode, "customerId") WHERE "isDefault";
ALTER TABLE payment_methods
  ADD CONSTRAINT payment_methods_default_active_check CHECK (NOT "isDefault" OR status = 'active');
