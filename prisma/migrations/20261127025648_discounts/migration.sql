-- AlterTable
ALTER TABLE "invoices" ADD COLUMN     "discounts" JSONB NOT NULL DEFAULT '[]';

-- AlterTable
ALTER TABLE "subscriptions" ADD COLUMN     "discount" JSONB;

-- CreateTable
CREATE TABLE "discounts" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "couponId" TEXT NOT NULL,
    "customerId" TEXT NOT NULL,
    "subscriptionId" TEXT,
    "invoiceId" TEXT,
    "start" TIMESTAMPTZ(3) NOT NULL,
    "end" TIMESTAMPTZ(3),
    "status" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "discounts_pkey" PRIMARY KEY ("workspaceId","mode","id")
);

-- CreateIndex
CREATE INDEX "discounts_workspaceId_mode_subscriptionId_status_idx" ON "discounts"("workspaceId", "mode", "subscriptionId", "status");

-- CreateIndex
CREATE INDEX "discounts_workspaceId_mode_invoiceId_idx" ON "discounts"("workspaceId", "mode", "invoiceId");

-- Hand-written below: tenancy, checks, keys (docs/coupons.md, Discounts).
SELECT enable_tenant_isolation('discounts');

ALTER TABLE discounts
  ADD CONSTRAINT discounts_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT discounts_status_check CHECK (status IN ('active', 'ended', 'removed')),
  ADD CONSTRAINT discounts_target_check CHECK (("subscriptionId" IS NULL) <> ("invoiceId" IS NULL)),
  ADD CONSTRAINT discounts_end_check CHECK ("end" IS NULL OR "end" >= start),
  ADD CONSTRAINT discounts_coupon_fkey FOREIGN KEY ("workspaceId", mode, "couponId") REFERENCES coupons ("workspaceId", mode, id),
  ADD CONSTRAINT discounts_customer_fkey FOREIGN KEY ("workspaceId", mode, "customerId") REFERENCES customers ("workspaceId", mode, id),
  ADD CONSTRAINT discounts_subscription_fkey FOREIGN KEY ("workspaceId", mode, "subscriptionId") REFERENCES subscriptions ("workspaceId", mode, id),
  -- Deferred: an invoice's discount is written just before its draft (the draft's discounts[] names it).
  ADD CONSTRAINT discounts_invoice_fkey FOREIGN KEY ("workspaceId", mode, "invoiceId") REFERENCES invoices ("workspaceId", mode, id)
    DEFERRABLE INITIALLY DEFERRED;

-- One active discount per subscription, and at most one coupon per invoice (settled point 14).
CREATE UNIQUE INDEX discounts_one_active_per_subscription ON discounts ("workspaceId", mode, "subscriptionId")
  WHERE status = 'active' AND "subscriptionId" IS NOT NULL;
CREATE UNIQUE INDEX discounts_one_active_per_invoice ON discounts ("workspaceId", mode, "invoiceId")
  WHERE status = 'active' AND "invoiceId" IS NOT NULL;

-- A caller's flat discount on a manual invoice is an entry without a coupon (docs/coupons.md, Invoice discounts).
UPDATE invoices SET discounts = jsonb_build_array(jsonb_build_object(
    'couponId', NULL, 'discountId', NULL, 'name', 'Diskon / Discount', 'amount', discount))
  WHERE discount > 0;

ALTER TABLE invoices ADD CONSTRAINT invoices_discounts_check CHECK (jsonb_typeof(discounts) = 'array');

-- discounts is frozen with the other amounts once the invoice leaves draft.
CREATE OR REPLACE FUNCTION invoices_locked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status <> 'draft' AND (NEW.subtotal, NEW.discount, NEW.discounts, NEW.tax, NEW.total, NEW.currency,
      NEW."customerId", NEW.number, NEW."issuedAt", NEW."subscriptionId") IS DISTINCT FROM (OLD.subtotal,
      OLD.discount, OLD.discounts, OLD.tax, OLD.total, OLD.currency, OLD."customerId", OLD.number, OLD."issuedAt",
      OLD."subscriptionId") THEN
    RAISE EXCEPTION 'invoice % is %: its lines, amounts, customer and number are locked', OLD.id, OLD.status
      USING ERRCODE = 'check_violation';
  END IF;
  IF OLD.status <> 'draft' AND NEW.status = 'draft' THEN
    RAISE EXCEPTION 'invoice % cannot return to draft', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
