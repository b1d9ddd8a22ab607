-- CreateTable
CREATE TABLE "adapters" (
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "secrets" BYTEA,
    "secretKeyLast4" TEXT,
    "publicConfig" JSONB NOT NULL,
    "callbackTokenHash" TEXT,
    "configuredAt" TIMESTAMPTZ(3) NOT NULL,
    "lastErrorAt" TIMESTAMPTZ(3),
    "lastErrorCode" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "adapters_pkey" PRIMARY KEY ("workspaceId","mode","kind")
);

-- CreateTable
CREATE TABLE "managed_accounts" (
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "subAccountId" TEXT,
    "email" TEXT,
    "kybStatus" TEXT NOT NULL DEFAULT 'not_started',
    "capabilitiesStatus" TEXT NOT NULL DEFAULT 'inactive',
    "payoutsReady" BOOLEAN NOT NULL DEFAULT false,
    "onboardingUrl" TEXT,
    "status" TEXT NOT NULL DEFAULT 'active',
    "lastErrorAt" TIMESTAMPTZ(3),
    "lastErrorCode" TEXT,
    "lastWebhookAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "managed_accounts_pkey" PRIMARY KEY ("workspaceId","mode")
);

-- CreateTable
CREATE TABLE "provider_events" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "providerEventId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "objectId" TEXT,
    "outcome" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "receivedAt" TIMESTAMPTZ(3) NOT NULL,
    "processedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "provider_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "provider_calls" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT,
    "mode" TEXT,
    "provider" TEXT NOT NULL,
    "direction" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "requestId" TEXT,
    "providerRequestId" TEXT,
    "statusCode" INTEGER,
    "latencyMs" INTEGER,
    "requestHeaders" JSONB,
    "requestBody" BYTEA,
    "responseBody" BYTEA,
    "error" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "provider_calls_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "customers" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "name" TEXT,
    "email" TEXT,
    "phone" TEXT,
    "metadata" JSONB,
    "testClockId" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "customers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "templates" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "isDefault" BOOLEAN NOT NULL DEFAULT false,
    "footerText" TEXT,
    "thankYouText" TEXT,
    "showTax" BOOLEAN NOT NULL DEFAULT false,
    "taxLabel" TEXT NOT NULL DEFAULT 'PPN',
    "taxRate" DECIMAL(6,5),
    "cashierLabel" TEXT,
    "showMerchantAddress" BOOLEAN NOT NULL DEFAULT true,
    "merchantAddress" TEXT,
    "merchantTaxId" TEXT,
    "logoUrl" TEXT,
    "accentColor" TEXT,
    "tagline" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "templates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "checkout_sessions" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'open',
    "amount" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "methods" TEXT[],
    "adapter" TEXT,
    "lineItems" JSONB NOT NULL DEFAULT '[]',
    "successUrl" TEXT NOT NULL,
    "cancelUrl" TEXT NOT NULL,
    "customerId" TEXT,
    "templateId" TEXT,
    "metadata" JSONB,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "completedAt" TIMESTAMPTZ(3),
    "canceledAt" TIMESTAMPTZ(3),
    "expiredAt" TIMESTAMPTZ(3),
    "paymentId" TEXT,
    "invoiceId" TEXT,
    "subscriptionId" TEXT,
    "attemptMethod" TEXT,
    "attemptCount" INTEGER NOT NULL DEFAULT 0,
    "attemptedAt" TIMESTAMPTZ(3),
    "providerReference" TEXT,
    "attemptData" JSONB,
    "attemptExpiresAt" TIMESTAMPTZ(3),
    "declaredPaidAt" TIMESTAMPTZ(3),
    "failureCode" TEXT,
    "failureMessage" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "checkout_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "payments" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "amountRefunded" BIGINT NOT NULL DEFAULT 0,
    "currency" TEXT NOT NULL,
    "method" TEXT,
    "adapter" TEXT,
    "customerId" TEXT,
    "checkoutSessionId" TEXT,
    "invoiceId" TEXT,
    "providerReference" TEXT,
    "fee" BIGINT,
    "failureCode" TEXT,
    "failureMessage" TEXT,
    "metadata" JSONB,
    "capturedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "payments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "receipts" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "number" TEXT NOT NULL,
    "sourceType" TEXT NOT NULL,
    "sourceId" TEXT NOT NULL,
    "paymentId" TEXT,
    "customerId" TEXT,
    "templateId" TEXT,
    "status" TEXT NOT NULL,
    "paidAt" TIMESTAMPTZ(3),
    "amount" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "method" TEXT,
    "methodLabel" TEXT,
    "adapter" TEXT,
    "customer" JSONB,
    "merchant" JSONB NOT NULL,
    "lineItems" JSONB NOT NULL,
    "subtotal" BIGINT NOT NULL,
    "taxAmount" BIGINT NOT NULL DEFAULT 0,
    "total" BIGINT NOT NULL,
    "template" JSONB NOT NULL,
    "issuedAt" TIMESTAMPTZ(3) NOT NULL,
    "emailedAt" TIMESTAMPTZ(3),
    "emailedTo" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "receipts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ledger_entries" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "txId" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "direction" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "sourceType" TEXT NOT NULL,
    "sourceId" TEXT NOT NULL,
    "memo" TEXT,
    "postedAt" TIMESTAMPTZ(3) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ledger_entries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "adapters_callbackTokenHash_idx" ON "adapters"("callbackTokenHash");

-- CreateIndex
CREATE INDEX "managed_accounts_subAccountId_idx" ON "managed_accounts"("subAccountId");

-- CreateIndex
CREATE INDEX "provider_events_workspaceId_mode_receivedAt_id_idx" ON "provider_events"("workspaceId", "mode", "receivedAt", "id");

-- CreateIndex
CREATE INDEX "provider_events_workspaceId_objectId_idx" ON "provider_events"("workspaceId", "objectId");

-- CreateIndex
CREATE UNIQUE INDEX "provider_events_provider_providerEventId_key" ON "provider_events"("provider", "providerEventId");

-- CreateIndex
CREATE INDEX "provider_calls_workspaceId_mode_createdAt_id_idx" ON "provider_calls"("workspaceId", "mode", "createdAt", "id");

-- CreateIndex
CREATE INDEX "provider_calls_provider_createdAt_idx" ON "provider_calls"("provider", "createdAt");

-- CreateIndex
CREATE INDEX "customers_workspaceId_mode_createdAt_id_idx" ON "customers"("workspaceId", "mode", "createdAt", "id");

-- CreateIndex
CREATE INDEX "customers_workspaceId_mode_email_idx" ON "customers"("workspaceId", "mode", "email");

-- CreateIndex
CREATE UNIQUE INDEX "customers_workspaceId_mode_id_key" ON "customers"("workspaceId", "mode", "id");

-- CreateIndex
CREATE INDEX "templates_workspaceId_mode_createdAt_id_idx" ON "templates"("workspaceId", "mode", "createdAt", "id");

-- CreateIndex
CREATE INDEX "templates_workspaceId_mode_kind_createdAt_id_idx" ON "templates"("workspaceId", "mode", "kind", "createdAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "templates_workspaceId_mode_id_key" ON "templates"("workspaceId", "mode", "id");

-- CreateIndex
CREATE INDEX "checkout_sessions_workspaceId_mode_createdAt_id_idx" ON "checkout_sessions"("workspaceId", "mode", "createdAt", "id");

-- CreateIndex
CREATE INDEX "checkout_sessions_workspaceId_mode_status_createdAt_id_idx" ON "checkout_sessions"("workspaceId", "mode", "status", "createdAt", "id");

-- CreateIndex
CREATE INDEX "checkout_sessions_workspaceId_mode_customerId_createdAt_id_idx" ON "checkout_sessions"("workspaceId", "mode", "customerId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "checkout_sessions_providerReference_idx" ON "checkout_sessions"("providerReference");

-- CreateIndex
CREATE INDEX "checkout_sessions_status_expiresAt_idx" ON "checkout_sessions"("status", "expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "checkout_sessions_workspaceId_mode_id_key" ON "checkout_sessions"("workspaceId", "mode", "id");

-- CreateIndex
CREATE UNIQUE INDEX "payments_checkoutSessionId_key" ON "payments"("checkoutSessionId");

-- CreateIndex
CREATE INDEX "payments_workspaceId_mode_createdAt_id_idx" ON "payments"("workspaceId", "mode", "createdAt", "id");

-- CreateIndex
CREATE INDEX "payments_workspaceId_mode_customerId_createdAt_id_idx" ON "payments"("workspaceId", "mode", "customerId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "payments_workspaceId_mode_invoiceId_idx" ON "payments"("workspaceId", "mode", "invoiceId");

-- CreateIndex
CREATE UNIQUE INDEX "payments_workspaceId_mode_id_key" ON "payments"("workspaceId", "mode", "id");

-- CreateIndex
CREATE UNIQUE INDEX "payments_adapter_providerReference_key" ON "payments"("adapter", "providerReference");

-- CreateIndex
CREATE INDEX "receipts_workspaceId_mode_issuedAt_id_idx" ON "receipts"("workspaceId", "mode", "issuedAt", "id");

-- CreateIndex
CREATE INDEX "receipts_workspaceId_mode_customerId_issuedAt_id_idx" ON "receipts"("workspaceId", "mode", "customerId", "issuedAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "receipts_workspaceId_sourceType_sourceId_key" ON "receipts"("workspaceId", "sourceType", "sourceId");

-- CreateIndex
CREATE UNIQUE INDEX "receipts_workspaceId_mode_number_key" ON "receipts"("workspaceId", "mode", "number");

-- CreateIndex
CREATE INDEX "ledger_entries_workspaceId_mode_postedAt_id_idx" ON "ledger_entries"("workspaceId", "mode", "postedAt", "id");

-- CreateIndex
CREATE INDEX "ledger_entries_workspaceId_mode_txId_idx" ON "ledger_entries"("workspaceId", "mode", "txId");

-- CreateIndex
CREATE INDEX "ledger_entries_workspaceId_mode_code_postedAt_id_idx" ON "ledger_entries"("workspaceId", "mode", "code", "postedAt", "id");

-- CreateIndex
CREATE INDEX "ledger_entries_workspaceId_mode_sourceType_sourceId_idx" ON "ledger_entries"("workspaceId", "mode", "sourceType", "sourceId");


-- ---- hand-written: row-level security, integrity the schema cannot say, ledger balance ----

-- Tenant isolation for every new table (see enable_tenant_isolation in the init migration).
-- provider_calls keeps unroutable callbacks with a null workspace: no tenant ever sees those.
SELECT enable_tenant_isolation(t) FROM unnest(ARRAY[
  'customers', 'templates', 'adapters', 'managed_accounts', 'provider_events', 'provider_calls',
  'checkout_sessions', 'payments', 'receipts', 'ledger_entries'
]) AS t;

-- Closed value sets and money invariants, enforced for every writer.
ALTER TABLE customers ADD CONSTRAINT customers_mode_check CHECK (mode IN ('test', 'live'));
ALTER TABLE templates
  ADD CONSTRAINT templates_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT templates_kind_check CHECK (kind IN ('receipt', 'invoice')),
  ADD CONSTRAINT templates_tax_rate_check CHECK ("taxRate" IS NULL OR ("taxRate" >= 0 AND "taxRate" < 1));
ALTER TABLE adapters
  ADD CONSTRAINT adapters_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT adapters_kind_check CHECK (kind IN ('provider_a', 'provider_b', 'provider_c', 'manual')),
  ADD CONSTRAINT adapters_status_check CHECK (status IN ('active', 'disabled', 'error'));
ALTER TABLE managed_accounts
  ADD CONSTRAINT managed_accounts_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT managed_accounts_kyb_check CHECK ("kybStatus" IN ('not_started', 'invited', 'registered', 'live')),
  ADD CONSTRAINT managed_accounts_capabilities_check CHECK ("capabilitiesStatus" IN ('inactive', 'pending', 'active')),
  ADD CONSTRAINT managed_accounts_status_check CHECK (status IN ('active', 'disabled', 'error'));
ALTER TABLE provider_events ADD CONSTRAINT provider_events_mode_check CHECK (mode IN ('test', 'live'));
ALTER TABLE provider_calls ADD CONSTRAINT provider_calls_direction_check CHECK (direction IN ('inbound', 'outbound'));
ALTER TABLE checkout_sessions
  ADD CONSTRAINT checkout_sessions_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT checkout_sessions_status_check CHECK (status IN ('open', 'pending', 'pending_review', 'completed', 'expired', 'canceled')),
  ADD CONSTRAINT checkout_sessions_amount_check CHECK (amount > 0),
  ADD CONSTRAINT checkout_sessions_currency_check CHECK (currency ~ '^[A-Z]{3}$'),
  ADD CONSTRAINT checkout_sessions_completed_check CHECK (status <> 'completed' OR ("paymentId" IS NOT NULL AND "completedAt" IS NOT NULL));
ALTER TABLE payments
  ADD CONSTRAINT payments_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT payments_status_check CHECK (status IN ('succeeded', 'failed', 'refunded', 'partially_refunded')),
  ADD CONSTRAINT payments_amount_check CHECK (amount > 0 AND "amountRefunded" >= 0 AND "amountRefunded" <= amount),
  ADD CONSTRAINT payments_fee_check CHECK (fee IS NULL OR fee >= 0),
  ADD CONSTRAINT payments_currency_check CHECK (currency ~ '^[A-Z]{3}$');
ALTER TABLE receipts
  ADD CONSTRAINT receipts_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT receipts_source_type_check CHECK ("sourceType" IN ('checkout_session', 'invoice')),
  ADD CONSTRAINT receipts_number_check CHECK (number ~ '^SVC-RCPT-[0-9]{4}-[0-9]{2}-[0-9]{4,}$'),
  -- spec Receipt: total = subtotal + taxAmount, amount (gross) = total
  ADD CONSTRAINT receipts_totals_check CHECK ("taxAmount" >= 0 AND subtotal >= 0 AND total = subtotal + "taxAmount" AND amount = total),
  ADD CONSTRAINT receipts_currency_check CHECK (currency ~ '^[A-Z]{3}$');
ALTER TABLE ledger_entries
  ADD CONSTRAINT ledger_entries_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT ledger_entries_direction_check CHECK (direction IN ('debit', 'credit')),
  ADD CONSTRAINT ledger_entries_amount_check CHECK (amount > 0),
  ADD CONSTRAINT ledger_entries_currency_check CHECK (currency ~ '^[A-Z]{3}$'),
  ADD CONSTRAINT ledger_entries_source_type_check CHECK ("sourceType" IN ('checkout_session', 'invoice', 'refund', 'payout', 'adjustment', 'dispute'));

-- One default template per kind, workspace and mode.
CREATE UNIQUE INDEX templates_one_default_idx ON templates ("workspaceId", mode, kind) WHERE "isDefault";

-- References stay inside one workspace and mode: the keys include both, so a session can never
-- point at another tenant's customer even if a service forgot to check. (Foreign-key checks
-- bypass row-level security by design, so these hold for every writer.)
ALTER TABLE checkout_sessions
  ADD CONSTRAINT checkout_sessions_customer_fkey FOREIGN KEY ("workspaceId", mode, "customerId") REFERENCES customers ("workspaceId", mode, id),
  ADD CONSTRAINT checkout_sessions_template_fkey FOREIGN KEY ("workspaceId", mode, "templateId") REFERENCES templates ("workspaceId", mode, id);
ALTER TABLE payments
  ADD CONSTRAINT payments_checkout_session_fkey FOREIGN KEY ("workspaceId", mode, "checkoutSessionId") REFERENCES checkout_sessions ("workspaceId", mode, id),
  ADD CONSTRAINT payments_customer_fkey FOREIGN KEY ("workspaceId", mode, "customerId") REFERENCES customers ("workspaceId", mode, id);
ALTER TABLE receipts
  ADD CONSTRAINT receipts_payment_fkey FOREIGN KEY ("workspaceId", mode, "paymentId") REFERENCES payments ("workspaceId", mode, id),
  ADD CONSTRAINT receipts_customer_fkey FOREIGN KEY ("workspaceId", mode, "customerId") REFERENCES customers ("workspaceId", mode, id),
  ADD CONSTRAINT receipts_template_fkey FOREIGN KEY ("workspaceId", mode, "templateId") REFERENCES templates ("workspaceId", mode, id);

-- The ledger is append-only for the app; receipts are never deleted and frozen at issue.
REVOKE UPDATE, DELETE ON ledger_entries FROM svc_app;
REVOKE DELETE ON receipts FROM svc_app;

CREATE FUNCTION receipts_frozen() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- spec Receipt: all parts are frozen at issue; only the latest email send is recorded.
  IF (to_jsonb(NEW) - 'emailedAt' - 'emailedTo') IS DISTINCT FROM (to_jsonb(OLD) - 'emailedAt' - 'emailedTo') THEN
    RAISE EXCEPTION 'receipt % is frozen at issue; only emailedAt and emailedTo may change', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER receipts_frozen BEFORE UPDATE ON receipts FOR EACH ROW EXECUTE FUNCTION receipts_frozen();

-- Double entry: at commit, every txId touched must balance per currency (debits = credits).
-- Deferred, so a posting inserts its legs in any order inside one transaction. SECURITY DEFINER:
-- the check must see every leg of the txId, whatever tenant scope the transaction ends in.
CREATE FUNCTION ledger_assert_balanced() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  bad record;
BEGIN
  SELECT currency, sum(CASE WHEN direction = 'debit' THEN amount ELSE -amount END) AS net INTO bad
    FROM ledger_entries
   WHERE "workspaceId" = NEW."workspaceId" AND mode = NEW.mode AND "txId" = NEW."txId"
   GROUP BY currency
  HAVING sum(CASE WHEN direction = 'debit' THEN amount ELSE -amount END) <> 0
   LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'ledger transaction % does not balance in %: debits - credits = %', NEW."txId", bad.currency, bad.net
      USING ERRCODE = 'check_violation', CONSTRAINT = 'ledger_entries_balanced';
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER ledger_entries_balanced AFTER INSERT OR UPDATE ON ledger_entries
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_assert_balanced();
