-- AlterTable
ALTER TABLE "invoices" ADD COLUMN     "applyCustomerBalance" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "balanceApplied" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "creditedAmount" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "prePaymentCreditedAmount" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "prePaymentCreditedTax" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "refunds" ADD COLUMN     "creditNoteId" TEXT;

-- CreateTable
CREATE TABLE "credit_notes" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "invoiceId" TEXT NOT NULL,
    "customerId" TEXT NOT NULL,
    "number" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "reason" TEXT,
    "memo" TEXT,
    "currency" TEXT NOT NULL,
    "subtotal" BIGINT NOT NULL,
    "discountAmount" BIGINT NOT NULL,
    "tax" BIGINT NOT NULL,
    "taxIncluded" BIGINT NOT NULL,
    "total" BIGINT NOT NULL,
    "prePaymentAmount" BIGINT NOT NULL,
    "postPaymentAmount" BIGINT NOT NULL,
    "refundAmount" BIGINT NOT NULL,
    "creditAmount" BIGINT NOT NULL,
    "outOfBandAmount" BIGINT NOT NULL,
    "prePaymentTax" BIGINT NOT NULL DEFAULT 0,
    "refundId" TEXT,
    "refundStatus" TEXT,
    "balanceTransactionId" TEXT,
    "testClockId" TEXT,
    "issuedAt" TIMESTAMPTZ(3) NOT NULL,
    "voidedAt" TIMESTAMPTZ(3),
    "metadata" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "credit_notes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "credit_note_lines" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "creditNoteId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "invoiceLineId" TEXT,
    "creditedBy" TEXT,
    "description" TEXT NOT NULL,
    "quantity" INTEGER NOT NULL,
    "unitAmount" BIGINT NOT NULL,
    "amount" BIGINT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "credit_note_lines_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "customer_balances" (
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "customerId" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "amount" BIGINT NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "customer_balances_pkey" PRIMARY KEY ("workspaceId","mode","customerId","currency")
);

-- CreateTable
CREATE TABLE "customer_balance_transactions" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "customerId" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "endingBalance" BIGINT NOT NULL,
    "type" TEXT NOT NULL,
    "creditNoteId" TEXT,
    "invoiceId" TEXT,
    "description" TEXT,
    "metadata" JSONB,
    "ledgerTxId" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "customer_balance_transactions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "credit_notes_workspaceId_mode_createdAt_id_idx" ON "credit_notes"("workspaceId", "mode", "createdAt", "id");

-- CreateIndex
CREATE INDEX "credit_notes_workspaceId_mode_invoiceId_createdAt_id_idx" ON "credit_notes"("workspaceId", "mode", "invoiceId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "credit_notes_workspaceId_mode_customerId_createdAt_id_idx" ON "credit_notes"("workspaceId", "mode", "customerId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "credit_notes_workspaceId_mode_status_createdAt_id_idx" ON "credit_notes"("workspaceId", "mode", "status", "createdAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "credit_notes_workspaceId_mode_id_key" ON "credit_notes"("workspaceId", "mode", "id");

-- CreateIndex
CREATE UNIQUE INDEX "credit_notes_workspaceId_mode_number_key" ON "credit_notes"("workspaceId", "mode", "number");

-- CreateIndex
CREATE INDEX "credit_note_lines_workspaceId_mode_invoiceLineId_idx" ON "credit_note_lines"("workspaceId", "mode", "invoiceLineId");

-- CreateIndex
CREATE UNIQUE INDEX "credit_note_lines_workspaceId_mode_id_key" ON "credit_note_lines"("workspaceId", "mode", "id");

-- CreateIndex
CREATE UNIQUE INDEX "credit_note_lines_workspaceId_mode_creditNoteId_position_key" ON "credit_note_lines"("workspaceId", "mode", "creditNoteId", "position");

-- CreateIndex
CREATE INDEX "customer_balance_transactions_workspaceId_mode_customerId_c_idx" ON "customer_balance_transactions"("workspaceId", "mode", "customerId", "createdAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "customer_balance_transactions_workspaceId_mode_id_key" ON "customer_balance_transactions"("workspaceId", "mode", "id");

-- AddForeignKey
ALTER TABLE "credit_note_lines" ADD CONSTRAINT "credit_note_lines_note_fkey" FOREIGN KEY ("workspaceId", "mode", "creditNoteId") REFERENCES "credit_notes"("workspaceId", "mode", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Hand-written below: tenancy, checks, foreign keys, the ledger's new source type.
SELECT enable_tenant_isolation(t)
  FROM unnest(ARRAY['credit_notes', 'credit_note_lines', 'customer_balances', 'customer_balance_transactions']) AS t;

ALTER TABLE credit_notes
  ADD CONSTRAINT credit_notes_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT credit_notes_status_check CHECK (status IN ('issued', 'void')),
  ADD CONSTRAINT credit_notes_reason_check CHECK (reason IS NULL OR reason IN
    ('duplicate', 'fraudulent', 'order_change', 'product_unsatisfactory', 'other')),
  ADD CONSTRAINT credit_notes_refund_status_check CHECK ("refundStatus" IS NULL OR "refundStatus" IN ('pending', 'succeeded', 'failed')),
  -- docs/credit-notes.md, Amounts: total = subtotal - discountAmount + tax; pre + post = total; the parts add up.
  ADD CONSTRAINT credit_notes_amounts_check CHECK (
    subtotal >= 0 AND "discountAmount" >= 0 AND tax >= 0 AND "taxIncluded" >= 0 AND total > 0
    AND total = subtotal - "discountAmount" + tax
    AND "prePaymentAmount" >= 0 AND "postPaymentAmount" >= 0 AND "prePaymentAmount" + "postPaymentAmount" = total
    AND "refundAmount" >= 0 AND "creditAmount" >= 0 AND "outOfBandAmount" >= 0
    AND "refundAmount" + "creditAmount" + "outOfBandAmount" = "postPaymentAmount"
    AND "prePaymentTax" >= 0 AND "prePaymentTax" <= tax),
  ADD CONSTRAINT credit_notes_void_check CHECK ((status = 'void') = ("voidedAt" IS NOT NULL)),
  ADD CONSTRAINT credit_notes_invoice_fkey FOREIGN KEY ("workspaceId", mode, "invoiceId") REFERENCES invoices ("workspaceId", mode, id),
  ADD CONSTRAINT credit_notes_customer_fkey FOREIGN KEY ("workspaceId", mode, "customerId") REFERENCES customers ("workspaceId", mode, id);
ALTER TABLE credit_note_lines
  ADD CONSTRAINT credit_note_lines_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT credit_note_lines_type_check CHECK (type IN ('invoice_line', 'custom')),
  ADD CONSTRAINT credit_note_lines_amount_check CHECK (quantity > 0 AND "unitAmount" >= 0 AND amount = quantity * "unitAmount"),
  ADD CONSTRAINT credit_note_lines_invoice_line_fkey FOREIGN KEY ("workspaceId", mode, "invoiceLineId") REFERENCES invoice_lines ("workspaceId", mode, id);
ALTER TABLE customer_balances
  ADD CONSTRAINT customer_balances_mode_check CHECK (mode IN ('test', 'live')),
  -- docs/credit-notes.md, Customer balance: never below 0.
  ADD CONSTRAINT customer_balances_amount_check CHECK (amount >= 0),
  ADD CONSTRAINT customer_balances_customer_fkey FOREIGN KEY ("workspaceId", mode, "customerId") REFERENCES customers ("workspaceId", mode, id);
ALTER TABLE customer_balance_transactions
  ADD CONSTRAINT customer_balance_transactions_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT customer_balance_transactions_type_check CHECK (type IN
    ('adjustment', 'credit_note', 'credit_note_void', 'applied_to_invoice', 'unapplied_from_invoice')),
  ADD CONSTRAINT customer_balance_transactions_amount_check CHECK (amount <> 0 AND "endingBalance" >= 0),
  ADD CONSTRAINT customer_balance_transactions_customer_fkey FOREIGN KEY ("workspaceId", mode, "customerId") REFERENCES customers ("workspaceId", mode, id);
-- Immutable records (docs/credit-notes.md, Customer balance).
REVOKE DELETE ON credit_notes, credit_note_lines, customer_balance_transactions FROM svc_app;
REVOKE UPDATE ON credit_note_lines, customer_balance_transactions FROM svc_app;

ALTER TABLE refunds
  ADD CONSTRAINT refunds_credit_note_fkey FOREIGN KEY ("workspaceId", mode, "creditNoteId") REFERENCES credit_notes ("workspaceId", mode, id);

-- docs/credit-notes.md, Invoice amounts: amountDue = total - balanceApplied - prePaymentCreditedAmount - amountPaid;
-- what is credited never exceeds the total.
ALTER TABLE invoices DROP CONSTRAINT invoices_amounts_check;
ALTER TABLE invoices ADD CONSTRAINT invoices_amounts_check CHECK (
    discount >= 0 AND tax >= 0 AND subtotal >= 0 AND "amountPaid" >= 0
    AND total = greatest(0, subtotal - discount + tax)
    AND "balanceApplied" >= 0 AND "creditedAmount" >= 0 AND "prePaymentCreditedAmount" >= 0
    AND "prePaymentCreditedTax" >= 0 AND "prePaymentCreditedTax" <= tax
    AND "creditedAmount" <= total AND "prePaymentCreditedAmount" <= "creditedAmount"
    AND "amountDue" >= 0
    AND "amountDue" = total - "balanceApplied" - "prePaymentCreditedAmount" - "amountPaid");

ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_source_type_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_source_type_check
  CHECK ("sourceType" IN ('checkout_session', 'invoice', 'refund', 'payout', 'adjustment', 'dispute', 'credit_note'));
