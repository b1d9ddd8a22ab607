-- CreateTable
CREATE TABLE "recon_imports" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "adapter" TEXT,
    "bankAccountNumber" TEXT,
    "sourceAccount" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "filename" TEXT,
    "sha256" TEXT,
    "sizeBytes" BIGINT NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL,
    "failureCode" TEXT,
    "failureMessage" TEXT,
    "periodStart" TIMESTAMPTZ(3),
    "periodEnd" TIMESTAMPTZ(3),
    "rowsNew" INTEGER NOT NULL DEFAULT 0,
    "rowsDuplicate" INTEGER NOT NULL DEFAULT 0,
    "rowsSkipped" INTEGER NOT NULL DEFAULT 0,
    "currencies" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "totals" JSONB NOT NULL DEFAULT '[]',
    "runId" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "recon_imports_pkey" PRIMARY KEY ("workspaceId","mode","id")
);

-- CreateTable
CREATE TABLE "recon_rows" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "importId" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "adapter" TEXT,
    "bankAccountNumber" TEXT,
    "sourceAccount" TEXT NOT NULL,
    "rowKey" TEXT NOT NULL,
    "line" INTEGER NOT NULL,
    "transactionId" TEXT,
    "type" TEXT NOT NULL,
    "reference" TEXT,
    "providerReference" TEXT,
    "settlementId" TEXT,
    "method" TEXT,
    "description" TEXT,
    "occurredAt" TIMESTAMPTZ(3),
    "settledAt" TIMESTAMPTZ(3),
    "valueDate" DATE,
    "currency" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "fee" BIGINT NOT NULL DEFAULT 0,
    "feeVat" BIGINT NOT NULL DEFAULT 0,
    "withholdingTax" BIGINT NOT NULL DEFAULT 0,
    "net" BIGINT NOT NULL,
    "balanceAfter" BIGINT,
    "status" TEXT NOT NULL,
    "batchId" TEXT,
    "matchId" TEXT,
    "objectType" TEXT,
    "objectId" TEXT,
    "matchedBy" TEXT,
    "ledgerTxId" TEXT,
    "exceptionIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "recon_rows_pkey" PRIMARY KEY ("workspaceId","mode","id")
);

-- CreateTable
CREATE TABLE "recon_batches" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "adapter" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "settlementId" TEXT NOT NULL,
    "rowCount" INTEGER NOT NULL DEFAULT 0,
    "amount" BIGINT NOT NULL DEFAULT 0,
    "fee" BIGINT NOT NULL DEFAULT 0,
    "feeVat" BIGINT NOT NULL DEFAULT 0,
    "withholdingTax" BIGINT NOT NULL DEFAULT 0,
    "net" BIGINT NOT NULL DEFAULT 0,
    "payoutFees" BIGINT NOT NULL DEFAULT 0,
    "expectedAt" TIMESTAMPTZ(3),
    "status" TEXT NOT NULL,
    "matchId" TEXT,
    "bankRowIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "bankAmount" BIGINT,
    "transferFee" BIGINT,
    "matchedAt" TIMESTAMPTZ(3),
    "importIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "recon_batches_pkey" PRIMARY KEY ("workspaceId","mode","id")
);

-- CreateTable
CREATE TABLE "recon_runs" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "importId" TEXT,
    "adapter" TEXT,
    "periodStart" TIMESTAMPTZ(3),
    "periodEnd" TIMESTAMPTZ(3),
    "status" TEXT NOT NULL,
    "phase" TEXT NOT NULL DEFAULT 'queued',
    "rowsTotal" INTEGER NOT NULL DEFAULT 0,
    "rowsProcessed" INTEGER NOT NULL DEFAULT 0,
    "stats" JSONB NOT NULL DEFAULT '{}',
    "ledgerCheck" JSONB,
    "startedAt" TIMESTAMPTZ(3),
    "completedAt" TIMESTAMPTZ(3),
    "failureCode" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "recon_runs_pkey" PRIMARY KEY ("workspaceId","mode","id")
);

-- CreateTable
CREATE TABLE "recon_settings" (
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "dateToleranceDays" INTEGER NOT NULL DEFAULT 3,
    "lateSettlementDays" INTEGER NOT NULL DEFAULT 3,
    "amountTolerance" JSONB NOT NULL DEFAULT '{}',
    "feeTolerance" JSONB NOT NULL DEFAULT '{}',
    "transferFeeTolerance" JSONB NOT NULL DEFAULT '{"IDR": 6500}',
    "feeRules" JSONB NOT NULL DEFAULT '[]',
    "updatedAt" TIMESTAMPTZ(3),

    CONSTRAINT "recon_settings_pkey" PRIMARY KEY ("workspaceId","mode")
);

-- CreateIndex
CREATE INDEX "recon_imports_workspaceId_mode_createdAt_id_idx" ON "recon_imports"("workspaceId", "mode", "createdAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "recon_imports_workspaceId_mode_source_sourceAccount_sha256_key" ON "recon_imports"("workspaceId", "mode", "source", "sourceAccount", "sha256");

-- CreateIndex
CREATE INDEX "recon_rows_workspaceId_mode_createdAt_id_idx" ON "recon_rows"("workspaceId", "mode", "createdAt", "id");

-- CreateIndex
CREATE INDEX "recon_rows_workspaceId_mode_importId_line_idx" ON "recon_rows"("workspaceId", "mode", "importId", "line");

-- CreateIndex
CREATE INDEX "recon_rows_workspaceId_mode_adapter_providerReference_idx" ON "recon_rows"("workspaceId", "mode", "adapter", "providerReference");

-- CreateIndex
CREATE INDEX "recon_rows_workspaceId_mode_reference_idx" ON "recon_rows"("workspaceId", "mode", "reference");

-- CreateIndex
CREATE INDEX "recon_rows_workspaceId_mode_batchId_idx" ON "recon_rows"("workspaceId", "mode", "batchId");

-- CreateIndex
CREATE INDEX "recon_rows_workspaceId_mode_transactionId_idx" ON "recon_rows"("workspaceId", "mode", "transactionId");

-- CreateIndex
CREATE UNIQUE INDEX "recon_rows_workspaceId_mode_source_sourceAccount_rowKey_key" ON "recon_rows"("workspaceId", "mode", "source", "sourceAccount", "rowKey");

-- CreateIndex
CREATE INDEX "recon_batches_workspaceId_mode_createdAt_id_idx" ON "recon_batches"("workspaceId", "mode", "createdAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "recon_batches_workspaceId_mode_adapter_currency_settlementI_key" ON "recon_batches"("workspaceId", "mode", "adapter", "currency", "settlementId");

-- CreateIndex
CREATE INDEX "recon_runs_workspaceId_mode_createdAt_id_idx" ON "recon_runs"("workspaceId", "mode", "createdAt", "id");

-- CreateIndex
CREATE INDEX "recon_runs_workspaceId_mode_importId_idx" ON "recon_runs"("workspaceId", "mode", "importId");

-- Hand-written below: tenancy, checks, keys (docs/reconciliation.md, Import pipeline).
SELECT enable_tenant_isolation('recon_imports');
SELECT enable_tenant_isolation('recon_rows');
SELECT enable_tenant_isolation('recon_batches');
SELECT enable_tenant_isolation('recon_runs');
SELECT enable_tenant_isolation('recon_settings');

ALTER TABLE recon_imports
  ADD CONSTRAINT recon_imports_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT recon_imports_status_check CHECK (status IN ('pending', 'imported', 'failed')),
  ADD CONSTRAINT recon_imports_source_check CHECK (source IN ('provider_report', 'bank_statement')),
  ADD CONSTRAINT recon_imports_origin_check CHECK (origin IN ('upload', 'pull')),
  ADD CONSTRAINT recon_imports_account_check CHECK (
    (source = 'provider_report' AND adapter IS NOT NULL AND "bankAccountNumber" IS NULL AND "sourceAccount" = adapter)
    OR (source = 'bank_statement' AND adapter IS NULL AND "bankAccountNumber" IS NOT NULL
      AND "sourceAccount" = "bankAccountNumber")),
  ADD CONSTRAINT recon_imports_sha256_check CHECK (sha256 ~ '^[0-9a-f]{64}$' OR (sha256 IS NULL AND status <> 'imported')),
  ADD CONSTRAINT recon_imports_counts_check CHECK ("rowsNew" >= 0 AND "rowsDuplicate" >= 0 AND "rowsSkipped" >= 0),
  ADD CONSTRAINT recon_imports_totals_check CHECK (jsonb_typeof(totals) = 'array');

ALTER TABLE recon_runs
  ADD CONSTRAINT recon_runs_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT recon_runs_status_check CHECK (status IN ('queued', 'running', 'completed', 'failed')),
  ADD CONSTRAINT recon_runs_trigger_check CHECK (trigger IN ('import', 'manual', 'schedule')),
  ADD CONSTRAINT recon_runs_phase_check CHECK (phase IN ('queued', 'provider', 'bank', 'ledger', 'done')),
  ADD CONSTRAINT recon_runs_progress_check CHECK ("rowsProcessed" BETWEEN 0 AND "rowsTotal"),
  ADD CONSTRAINT recon_runs_import_fkey FOREIGN KEY ("workspaceId", mode, "importId")
    REFERENCES recon_imports ("workspaceId", mode, id);

-- The import names the run it queued, written in the same transaction just after it.
ALTER TABLE recon_imports
  ADD CONSTRAINT recon_imports_run_fkey FOREIGN KEY ("workspaceId", mode, "runId")
    REFERENCES recon_runs ("workspaceId", mode, id) DEFERRABLE INITIALLY DEFERRED;

ALTER TABLE recon_batches
  ADD CONSTRAINT recon_batches_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT recon_batches_status_check CHECK (status IN ('open', 'matched', 'exception', 'resolved')),
  ADD CONSTRAINT recon_batches_counts_check CHECK ("rowCount" >= 0 AND fee >= 0 AND "feeVat" >= 0
    AND "withholdingTax" >= 0 AND "payoutFees" >= 0);

ALTER TABLE recon_rows
  ADD CONSTRAINT recon_rows_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT recon_rows_status_check CHECK (status IN ('pending', 'matched', 'exception', 'resolved', 'ignored')),
  ADD CONSTRAINT recon_rows_source_check CHECK (source IN ('provider_report', 'bank_statement')),
  ADD CONSTRAINT recon_rows_type_check CHECK (
    (source = 'provider_report' AND type IN ('payment', 'refund', 'payout', 'fee', 'adjustment'))
    OR (source = 'bank_statement' AND type IN ('credit', 'debit'))),
  ADD CONSTRAINT recon_rows_net_check CHECK (
    (source = 'provider_report' AND net = amount - fee - "feeVat" - "withholdingTax")
    OR (source = 'bank_statement' AND amount > 0 AND net = CASE type WHEN 'credit' THEN amount ELSE -amount END)),
  ADD CONSTRAINT recon_rows_object_type_check CHECK (
    "objectType" IS NULL OR "objectType" IN ('payment', 'refund', 'payout', 'settlement_batch')),
  ADD CONSTRAINT recon_rows_matched_by_check CHECK ("matchedBy" IS NULL OR "matchedBy" IN ('auto', 'manual')),
  ADD CONSTRAINT recon_rows_import_fkey FOREIGN KEY ("workspaceId", mode, "importId")
    REFERENCES recon_imports ("workspaceId", mode, id),
  ADD CONSTRAINT recon_rows_batch_fkey FOREIGN KEY ("workspaceId", mode, "batchId")
    REFERENCES recon_batches ("workspaceId", mode, id);

-- What a run reads next: rows not evaluated yet and rows in an open exception.
CREATE INDEX recon_rows_open_idx ON recon_rows ("workspaceId", mode, status)
  WHERE status IN ('pending', 'exception');
-- No object is claimed twice by rows of one kind: a database fact, not a check in code.
CREATE UNIQUE INDEX recon_rows_one_claim_idx ON recon_rows ("workspaceId", mode, "objectType", "objectId", type)
  WHERE status = 'matched' AND "objectId" IS NOT NULL AND "objectType" <> 'settlement_batch';
-- The run queue: a workspace's runs in creation order.
CREATE INDEX recon_runs_waiting_idx ON recon_runs ("workspaceId", mode, "createdAt", id)
  WHERE status IN ('queued', 'running');
