-- AlterTable
ALTER TABLE "payments" ADD COLUMN     "leaseUntil" TIMESTAMPTZ(3),
ADD COLUMN     "nextAction" JSONB;

-- Off-session outcomes (src/modules/payments/states.ts, docs/guides/payment-methods.md "Requires action"):
-- a charge may wait for the customer to authenticate it.
ALTER TABLE payments DROP CONSTRAINT payments_status_check,
  ADD CONSTRAINT payments_status_check
    CHECK (status IN ('succeeded', 'failed', 'refunded', 'partially_refunded', 'pending', 'requires_action'));

-- One charge in flight per invoice is a database fact, not a read (docs/decisions.md, Off-session
-- outcomes): only off-session charges (subscriptions/collect.ts) are ever written pending or
-- requires_action; hosted-page payments are written succeeded by their session's completion.
CREATE UNIQUE INDEX payments_in_flight_key ON payments ("workspaceId", mode, "invoiceId")
  WHERE status IN ('pending', 'requires_action') AND "invoiceId" IS NOT NULL;

-- The pending sweep's claim (jobs/pending-sweep.ts): off-session charges still pending, oldest lease first.
CREATE INDEX payments_pending_lease_idx ON payments ("leaseUntil") WHERE status = 'pending';
-- The action-expiry sweep (billing-tick): waiting charges by their customer's deadline.
CREATE INDEX payments_action_expiry_idx ON payments ((("nextAction"->>'expiresAt')::text))
  WHERE status = 'requires_action';
