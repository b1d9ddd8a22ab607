-- AlterTable
ALTER TABLE "recon_runs" ADD COLUMN     "dispatchedAt" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "recon_matches" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "rule" TEXT NOT NULL,
    "matchedBy" TEXT NOT NULL,
    "rowIds" TEXT[],
    "objects" JSONB NOT NULL DEFAULT '[]',
    "objectIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "batchIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "currency" TEXT NOT NULL,
    "difference" BIGINT NOT NULL DEFAULT 0,
    "transferFee" BIGINT,
    "ledgerTxId" TEXT,
    "runId" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "recon_matches_pkey" PRIMARY KEY ("workspaceId","mode","id")
);

-- CreateTable
CREATE TABLE "recon_exceptions" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "resolution" TEXT,
    "adapter" TEXT,
    "currency" TEXT,
    "rowIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "objectType" TEXT,
    "objectId" TEXT,
    "batchId" TEXT,
    "expectedAmount" BIGINT,
    "actualAmount" BIGINT,
    "difference" BIGINT,
    "details" JSONB NOT NULL DEFAULT '{}',
    "importId" TEXT,
    "runId" TEXT,
    "openedAt" TIMESTAMPTZ(3) NOT NULL,
    "resolvedAt" TIMESTAMPTZ(3),
    "resolvedBy" JSONB,
    "resolutionNote" TEXT,
    "writeOffAccount" TEXT,
    "ledgerTxId" TEXT,
    "linkedMatchId" TEXT,
    "assignee" TEXT,
    "metadata" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "recon_exceptions_pkey" PRIMARY KEY ("workspaceId","mode","id")
);

-- CreateTable
CREATE TABLE "recon_exception_history" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "exceptionId" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "action" TEXT NOT NULL,
    "actor" JSONB NOT NULL,
    "note" TEXT,
    "requestId" TEXT,

    CONSTRAINT "recon_exception_history_pkey" PRIMARY KEY ("workspaceId","mode","id")
);

-- CreateIndex
CREATE INDEX "recon_matches_workspaceId_mode_createdAt_id_idx" ON "recon_matches"("workspaceId", "mode", "createdAt", "id");

-- CreateIndex
CREATE INDEX "recon_matches_workspaceId_mode_runId_idx" ON "recon_matches"("workspaceId", "mode", "runId");

-- CreateIndex
CREATE INDEX "recon_exceptions_workspaceId_mode_createdAt_id_idx" ON "recon_exceptions"("workspaceId", "mode", "createdAt", "id");

-- CreateIndex
CREATE INDEX "recon_exceptions_workspaceId_mode_objectId_idx" ON "recon_exceptions"("workspaceId", "mode", "objectId");

-- CreateIndex
CREATE INDEX "recon_exceptions_workspaceId_mode_batchId_idx" ON "recon_exceptions"("workspaceId", "mode", "batchId");

-- CreateIndex
CREATE INDEX "recon_exceptions_workspaceId_mode_runId_idx" ON "recon_exceptions"("workspaceId", "mode", "runId");

-- CreateIndex
CREATE INDEX "recon_exception_history_workspaceId_mode_exceptionId_at_idx" ON "recon_exception_history"("workspaceId", "mode", "exceptionId", "at");

-- Hand-written: tenancy, checks, the claim fact (docs/reconciliation.md, Runs).
SELECT enable_tenant_isolation('recon_matches');
SELECT enable_tenant_isolation('recon_exceptions');
SELECT enable_tenant_isolation('recon_exception_history');

ALTER TABLE recon_matches
  ADD CONSTRAINT recon_matches_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT recon_matches_kind_check CHECK (kind IN ('provider', 'bank')),
  ADD CONSTRAINT recon_matches_rule_check CHECK (rule IN ('provider_reference', 'reference', 'amount_date',
    'standalone_fee', 'batch_transfer', 'bank_reference', 'bank_amount', 'payout_reference', 'manual')),
  ADD CONSTRAINT recon_matches_matched_by_check CHECK ("matchedBy" IN ('auto', 'manual')),
  ADD CONSTRAINT recon_matches_objects_check CHECK (jsonb_typeof(objects) = 'array'),
  ADD CONSTRAINT recon_matches_transfer_fee_check CHECK ("transferFee" IS NULL OR "transferFee" >= 0),
  ADD CONSTRAINT recon_matches_run_fkey FOREIGN KEY ("workspaceId", mode, "runId")
    REFERENCES recon_runs ("workspaceId", mode, id);

ALTER TABLE recon_exceptions
  ADD CONSTRAINT recon_exceptions_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT recon_exceptions_status_check CHECK (status IN ('open', 'resolved')),
  ADD CONSTRAINT recon_exceptions_category_check CHECK (category IN ('missing_in_ledger', 'missing_at_provider',
    'amount_mismatch', 'fee_mismatch', 'currency_mismatch', 'duplicate', 'late_settlement', 'unknown_bank_credit')),
  ADD CONSTRAINT recon_exceptions_resolution_check CHECK (
    (status = 'open' AND resolution IS NULL AND "resolvedAt" IS NULL)
    OR (status = 'resolved' AND resolution IN ('accepted', 'written_off', 'linked', 'auto_resolved')
      AND "resolvedAt" IS NOT NULL)),
  ADD CONSTRAINT recon_exceptions_object_type_check CHECK (
    "objectType" IS NULL OR "objectType" IN ('payment', 'refund', 'payout', 'settlement_batch')),
  ADD CONSTRAINT recon_exceptions_details_check CHECK (jsonb_typeof(details) = 'object'),
  ADD CONSTRAINT recon_exceptions_note_check CHECK (char_length("resolutionNote") <= 500),
  ADD CONSTRAINT recon_exceptions_assignee_check CHECK (char_length(assignee) <= 80),
  ADD CONSTRAINT recon_exceptions_run_fkey FOREIGN KEY ("workspaceId", mode, "runId")
    REFERENCES recon_runs ("workspaceId", mode, id),
  ADD CONSTRAINT recon_exceptions_import_fkey FOREIGN KEY ("workspaceId", mode, "importId")
    REFERENCES recon_imports ("workspaceId", mode, id),
  ADD CONSTRAINT recon_exceptions_batch_fkey FOREIGN KEY ("workspaceId", mode, "batchId")
    REFERENCES recon_batches ("workspaceId", mode, id);

ALTER TABLE recon_exception_history
  ADD CONSTRAINT recon_exception_history_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT recon_exception_history_action_check CHECK (
    action IN ('opened', 'updated', 'accepted', 'written_off', 'linked', 'auto_resolved')),
  ADD CONSTRAINT recon_exception_history_exception_fkey FOREIGN KEY ("workspaceId", mode, "exceptionId")
    REFERENCES recon_exceptions ("workspaceId", mode, id);

-- An object or batch nobody reported is open once: a second run finds it and adds nothing.
CREATE UNIQUE INDEX recon_exceptions_open_once_idx ON recon_exceptions ("workspaceId", mode, category, "objectId")
  WHERE status = 'open' AND category IN ('missing_at_provider', 'late_settlement');
-- The open queue and the sweep's question (open exceptions a run may resolve).
CREATE INDEX recon_exceptions_open_idx ON recon_exceptions ("workspaceId", mode, category, "createdAt", id)
  WHERE status = 'open';

-- No object is claimed twice by provider rows of one kind, matched or named by a mismatch exception; a bank
-- credit claims a payout once. 1:N credits share a batch, so batches stay out.
DROP INDEX recon_rows_one_claim_idx;
CREATE UNIQUE INDEX recon_rows_one_claim_idx ON recon_rows ("workspaceId", mode, "objectType", "objectId", type)
  WHERE "objectId" IS NOT NULL AND "objectType" <> 'settlement_batch';

-- Runs the relay has not handed to the `reconciliation-run` queue yet.
CREATE INDEX recon_runs_undispatched_idx ON recon_runs ("createdAt") WHERE "dispatchedAt" IS NULL;

-- The amount+date rule's candidates.
CREATE INDEX payments_recon_amount_idx ON payments ("workspaceId", mode, adapter, currency, amount, "capturedAt");

ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_source_type_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_source_type_check
  CHECK ("sourceType" IN ('checkout_session', 'invoice', 'refund', 'payout', 'adjustment', 'dispute', 'credit_note',
    'reconciliation'));
