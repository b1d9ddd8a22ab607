-- CreateTable
CREATE TABLE "refunds" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "paymentId" TEXT NOT NULL,
    "invoiceId" TEXT,
    "amount" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "reason" TEXT,
    "status" TEXT NOT NULL,
    "failureCode" TEXT,
    "failureMessage" TEXT,
    "metadata" JSONB,
    "adapter" TEXT,
    "providerRefundId" TEXT,
    "settledAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "refunds_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "payouts" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "bankCode" TEXT,
    "bankName" TEXT NOT NULL,
    "bankAccountNumber" TEXT NOT NULL,
    "bankAccountHolder" TEXT NOT NULL,
    "note" TEXT,
    "reference" TEXT,
    "failureReason" TEXT,
    "ledgerTransactionId" TEXT,
    "trigger" TEXT NOT NULL DEFAULT 'api',
    "processedAt" TIMESTAMPTZ(3),
    "completedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "payouts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "payout_settings" (
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "bankCode" TEXT,
    "bankName" TEXT,
    "bankAccountNumber" TEXT,
    "bankAccountHolder" TEXT,
    "schedule" TEXT NOT NULL DEFAULT 'manual',
    "scheduleMethod" TEXT NOT NULL DEFAULT 'manual',
    "minimumAmount" BIGINT NOT NULL DEFAULT 1,
    "lastScheduledAt" TIMESTAMPTZ(3),
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "payout_settings_pkey" PRIMARY KEY ("workspaceId","mode")
);

-- CreateTable
CREATE TABLE "ledger_daily" (
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "code" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "shard" SMALLINT NOT NULL,
    "debits" BIGINT NOT NULL DEFAULT 0,
    "credits" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "ledger_daily_pkey" PRIMARY KEY ("workspaceId","mode","code","currency","day","shard")
);

-- CreateIndex
CREATE INDEX "refunds_workspaceId_mode_createdAt_id_idx" ON "refunds"("workspaceId", "mode", "createdAt", "id");

-- CreateIndex
CREATE INDEX "refunds_workspaceId_mode_paymentId_createdAt_id_idx" ON "refunds"("workspaceId", "mode", "paymentId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "refunds_workspaceId_mode_status_createdAt_id_idx" ON "refunds"("workspaceId", "mode", "status", "createdAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "refunds_workspaceId_mode_id_key" ON "refunds"("workspaceId", "mode", "id");

-- CreateIndex
CREATE UNIQUE INDEX "refunds_adapter_providerRefundId_key" ON "refunds"("adapter", "providerRefundId");

-- CreateIndex
CREATE INDEX "payouts_workspaceId_mode_createdAt_id_idx" ON "payouts"("workspaceId", "mode", "createdAt", "id");

-- CreateIndex
CREATE INDEX "payouts_workspaceId_mode_status_createdAt_id_idx" ON "payouts"("workspaceId", "mode", "status", "createdAt", "id");

-- CreateIndex
CREATE INDEX "payouts_workspaceId_mode_currency_status_idx" ON "payouts"("workspaceId", "mode", "currency", "status");

-- CreateIndex
CREATE INDEX "payouts_reference_idx" ON "payouts"("reference");

-- CreateIndex
CREATE UNIQUE INDEX "payouts_workspaceId_mode_id_key" ON "payouts"("workspaceId", "mode", "id");

-- CreateIndex
CREATE INDEX "ledger_daily_workspaceId_mode_currency_day_idx" ON "ledger_daily"("workspaceId", "mode", "currency", "day");

-- CreateIndex
CREATE INDEX "ledger_entries_workspaceId_mode_sourceId_idx" ON "ledger_entries"("workspaceId", "mode", "sourceId");


-- ---- hand-written: row-level security, integrity, the ledger's daily totals ----

SELECT enable_tenant_isolation(t) FROM unnest(ARRAY['refunds', 'payouts', 'payout_settings', 'ledger_daily']) AS t;

ALTER TABLE refunds
  ADD CONSTRAINT refunds_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT refunds_status_check CHECK (status IN ('pending', 'succeeded', 'failed', 'canceled')),
  ADD CONSTRAINT refunds_reason_check CHECK (reason IS NULL OR reason IN ('requested_by_customer', 'duplicate', 'fraudulent', 'other')),
  ADD CONSTRAINT refunds_amount_check CHECK (amount > 0),
  ADD CONSTRAINT refunds_currency_check CHECK (currency ~ '^[A-Z]{3}$'),
  ADD CONSTRAINT refunds_failed_check CHECK (status <> 'failed' OR "failureCode" IS NOT NULL),
  ADD CONSTRAINT refunds_payment_fkey FOREIGN KEY ("workspaceId", mode, "paymentId") REFERENCES payments ("workspaceId", mode, id);
ALTER TABLE payouts
  ADD CONSTRAINT payouts_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT payouts_status_check CHECK (status IN ('pending', 'in_transit', 'paid', 'failed', 'cancelled')),
  ADD CONSTRAINT payouts_method_check CHECK (method IN ('manual', 'provider_a_disbursement')),
  ADD CONSTRAINT payouts_trigger_check CHECK (trigger IN ('api', 'schedule')),
  ADD CONSTRAINT payouts_amount_check CHECK (amount > 0),
  ADD CONSTRAINT payouts_currency_check CHECK (currency ~ '^[A-Z]{3}$'),
  ADD CONSTRAINT payouts_note_check CHECK (note IS NULL OR char_length(note) <= 500),
  ADD CONSTRAINT payouts_paid_check CHECK (status <> 'paid' OR ("ledgerTransactionId" IS NOT NULL AND "completedAt" IS NOT NULL)),
  ADD CONSTRAINT payouts_failed_check CHECK (status <> 'failed' OR "failureReason" IS NOT NULL);
ALTER TABLE payout_settings
  ADD CONSTRAINT payout_settings_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT payout_settings_schedule_check CHECK (schedule IN ('manual', 'daily', 'weekly')),
  ADD CONSTRAINT payout_settings_method_check CHECK ("scheduleMethod" IN ('manual', 'provider_a_disbursement')),
  ADD CONSTRAINT payout_settings_minimum_check CHECK ("minimumAmount" > 0);

-- Totals are written only by the trigger below (as the owner); the app reads them.
REVOKE INSERT, UPDATE, DELETE ON ledger_daily FROM svc_app;

-- Every statement that inserts entries adds them to the per-day, per-code totals in the same
-- transaction, so balances and reports read a few thousand rows instead of millions. The shard
-- (a hash of the txId) spreads concurrent postings of one workspace over 16 rows per code and
-- day; rows are upserted in key order, so two postings never wait on each other in a cycle.
CREATE FUNCTION ledger_daily_add() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  INSERT INTO ledger_daily ("workspaceId", mode, code, currency, day, shard, debits, credits)
  SELECT "workspaceId", mode, code, currency, ("postedAt" AT TIME ZONE 'UTC')::date, (hashtext("txId") & 15)::smallint,
         sum(CASE WHEN direction = 'debit' THEN amount ELSE 0 END), sum(CASE WHEN direction = 'credit' THEN amount ELSE 0 END)
    FROM new_entries
   GROUP BY 1, 2, 3, 4, 5, 6
   ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT ("workspaceId", mode, code, currency, day, shard)
  DO UPDATE SET debits = ledger_daily.debits + EXCLUDED.debits, credits = ledger_daily.credits + EXCLUDED.credits;
  RETURN NULL;
END $$;
CREATE TRIGGER ledger_entries_daily AFTER INSERT ON ledger_entries REFERENCING NEW TABLE AS new_entries
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_daily_add();

-- Totals for entries written before this migration.
INSERT INTO ledger_daily ("workspaceId", mode, code, currency, day, shard, debits, credits)
SELECT "workspaceId", mode, code, currency, ("postedAt" AT TIME ZONE 'UTC')::date, (hashtext("txId") & 15)::smallint,
       sum(CASE WHEN direction = 'debit' THEN amount ELSE 0 END), sum(CASE WHEN direction = 'credit' THEN amount ELSE 0 END)
  FROM ledger_entries GROUP BY 1, 2, 3, 4, 5, 6;
