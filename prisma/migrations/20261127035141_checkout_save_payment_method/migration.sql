-- AlterTable
ALTER TABLE "checkout_sessions" ADD COLUMN     "savePaymentMethod" TEXT NOT NULL DEFAULT 'none',
ADD COLUMN     "savedPaymentMethodId" TEXT;

-- AlterTable
ALTER TABLE "checkout_attempts" ADD COLUMN     "savePaymentMethod" BOOLEAN NOT NULL DEFAULT false;


-- ---- hand-written: integrity (docs/guides/checkout-sessions.md, Saving the payment method) ----

ALTER TABLE checkout_sessions
  ADD CONSTRAINT checkout_sessions_save_payment_method_check
    CHECK ("savePaymentMethod" IN ('none', 'optional', 'required')),
  -- Saving needs a customer to own the method.
  ADD CONSTRAINT checkout_sessions_save_customer_check
    CHECK ("savePaymentMethod" = 'none' OR "customerId" IS NOT NULL),
  -- The saved method is one of the session's customer's own (same workspace, mode and customer).
  ADD CONSTRAINT checkout_sessions_saved_payment_method_fkey
    FOREIGN KEY ("workspaceId", mode, "customerId", "savedPaymentMethodId")
    REFERENCES payment_methods ("workspaceId", mode, "customerId", id) ON DELETE RESTRICT ON UPDATE CASCADE;
