-- CreateTable
CREATE TABLE "invoices" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "customerId" TEXT NOT NULL,
    "subscriptionId" TEXT,
    "status" TEXT NOT NULL,
    "number" TEXT,
    "currency" TEXT NOT NULL,
    "subtotal" BIGINT NOT NULL,
    "discount" BIGINT NOT NULL DEFAULT 0,
    "tax" BIGINT NOT NULL DEFAULT 0,
    "total" BIGINT NOT NULL,
    "amountPaid" BIGINT NOT NULL DEFAULT 0,
    "amountDue" BIGINT NOT NULL,
    "dueAt" TIMESTAMPTZ(3),
    "issuedAt" TIMESTAMPTZ(3),
    "paidAt" TIMESTAMPTZ(3),
    "voidedAt" TIMESTAMPTZ(3),
    "pastDueAt" TIMESTAMPTZ(3),
    "uncollectibleAt" TIMESTAMPTZ(3),
    "hostedSecret" TEXT NOT NULL DEFAULT substr(encode(sha256(convert_to(((gen_random_uuid())::text || (gen_random_uuid())::text), 'UTF8'::name)), 'hex'::text), 1, 40),
    "collectionAttempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMPTZ(3),
    "templateId" TEXT,
    "periodStart" TIMESTAMPTZ(3),
    "periodEnd" TIMESTAMPTZ(3),
    "billingReason" TEXT,
    "testClockId" TEXT,
    "metadata" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "invoices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "invoice_lines" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "invoiceId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "description" TEXT NOT NULL,
    "quantity" INTEGER NOT NULL,
    "unitAmount" BIGINT NOT NULL,
    "amount" BIGINT NOT NULL,
    "priceId" TEXT,
    "metadata" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "invoice_lines_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "invoices_workspaceId_mode_createdAt_id_idx" ON "invoices"("workspaceId", "mode", "createdAt", "id");

-- CreateIndex
CREATE INDEX "invoices_workspaceId_mode_status_createdAt_id_idx" ON "invoices"("workspaceId", "mode", "status", "createdAt", "id");

-- CreateIndex
CREATE INDEX "invoices_workspaceId_mode_customerId_createdAt_id_idx" ON "invoices"("workspaceId", "mode", "customerId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "invoices_workspaceId_mode_subscriptionId_createdAt_id_idx" ON "invoices"("workspaceId", "mode", "subscriptionId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "invoices_status_dueAt_idx" ON "invoices"("status", "dueAt");

-- CreateIndex
CREATE UNIQUE INDEX "invoices_workspaceId_mode_id_key" ON "invoices"("workspaceId", "mode", "id");

-- CreateIndex
CREATE UNIQUE INDEX "invoices_workspaceId_mode_number_key" ON "invoices"("workspaceId", "mode", "number");

-- CreateIndex
CREATE UNIQUE INDEX "invoice_lines_workspaceId_mode_id_key" ON "invoice_lines"("workspaceId", "mode", "id");

-- CreateIndex
CREATE UNIQUE INDEX "invoice_lines_workspaceId_mode_invoiceId_position_key" ON "invoice_lines"("workspaceId", "mode", "invoiceId", "position");

-- AddForeignKey
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_customer_fkey" FOREIGN KEY ("workspaceId", "mode", "customerId") REFERENCES "customers"("workspaceId", "mode", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_template_fkey" FOREIGN KEY ("workspaceId", "mode", "templateId") REFERENCES "templates"("workspaceId", "mode", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "invoice_lines" ADD CONSTRAINT "invoice_lines_invoice_fkey" FOREIGN KEY ("workspaceId", "mode", "invoiceId") REFERENCES "invoices"("workspaceId", "mode", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Hand-written below: tenancy, checks, the lock after draft.
SELECT enable_tenant_isolation(t) FROM unnest(ARRAY['invoices', 'invoice_lines']) AS t;

ALTER TABLE invoices
  ADD CONSTRAINT invoices_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT invoices_status_check CHECK (status IN ('draft', 'open', 'past_due', 'paid', 'void', 'uncollectible')),
  -- spec Invoice: total = max(0, subtotal - discount + tax); amountDue = total - amountPaid.
  ADD CONSTRAINT invoices_amounts_check CHECK (
    discount >= 0 AND tax >= 0 AND subtotal >= 0 AND "amountPaid" >= 0
    AND total = greatest(0, subtotal - discount + tax) AND "amountDue" = total - "amountPaid"),
  -- Numbers are allocated at finalization: a draft has none, every issued invoice has one.
  ADD CONSTRAINT invoices_number_check CHECK ((status = 'draft') = (number IS NULL));
ALTER TABLE invoice_lines
  ADD CONSTRAINT invoice_lines_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT invoice_lines_amount_check CHECK (quantity > 0 AND "unitAmount" >= 0 AND amount = quantity * "unitAmount");

-- spec Invoice: "There is no delete".
REVOKE DELETE ON invoices, invoice_lines FROM svc_app;

-- spec Invoice: "Line items, discount and tax are locked once the invoice leaves draft". The service
-- refuses first (409 conflict); this makes it hold for every writer. Finalization itself (draft ->
-- open) may set the number and issuedAt; after that they are frozen too.
CREATE FUNCTION invoices_locked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status <> 'draft' AND (NEW.subtotal, NEW.discount, NEW.tax, NEW.total, NEW.currency, NEW."customerId",
      NEW.number, NEW."issuedAt", NEW."subscriptionId") IS DISTINCT FROM (OLD.subtotal, OLD.discount, OLD.tax,
      OLD.total, OLD.currency, OLD."customerId", OLD.number, OLD."issuedAt", OLD."subscriptionId") THEN
    RAISE EXCEPTION 'invoice % is %: its lines, amounts, customer and number are locked', OLD.id, OLD.status
      USING ERRCODE = 'check_violation';
  END IF;
  IF OLD.status <> 'draft' AND NEW.status = 'draft' THEN
    RAISE EXCEPTION 'invoice % cannot return to draft', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER invoices_locked BEFORE UPDATE ON invoices FOR EACH ROW EXECUTE FUNCTION invoices_locked();

-- Lines change only while their invoice is a draft (an invoice created open is written as a draft
-- and finalized in the same transaction).
CREATE FUNCTION invoice_lines_locked() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  line invoice_lines := COALESCE(NEW, OLD);
  st text;
BEGIN
  SELECT status INTO st FROM invoices
   WHERE "workspaceId" = line."workspaceId" AND mode = line.mode AND id = line."invoiceId";
  IF st IS DISTINCT FROM 'draft' THEN
    RAISE EXCEPTION 'invoice % is %: its lines are locked', line."invoiceId", st USING ERRCODE = 'check_violation';
  END IF;
  RETURN COALESCE(NEW, OLD);
END $$;
CREATE TRIGGER invoice_lines_locked BEFORE INSERT OR UPDATE OR DELETE ON invoice_lines
  FOR EACH ROW EXECUTE FUNCTION invoice_lines_locked();
