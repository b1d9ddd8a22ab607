-- The hosted invoice page pays through a checkout session tied to the invoice (BILLING §2.5):
-- at most one live session per invoice, so two sessions can never be paying one invoice at once.
-- The live statuses are the checkout session state table's non-terminal ones (states.ts).
CREATE UNIQUE INDEX checkout_sessions_one_live_per_invoice_idx ON checkout_sessions ("workspaceId", mode, "invoiceId")
  WHERE "invoiceId" IS NOT NULL AND status IN ('open', 'pending', 'pending_review');
