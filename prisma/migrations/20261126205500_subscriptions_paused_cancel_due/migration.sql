-- A paused subscription is not renewed, yet a cancel at its period end (its own, or a workspace
-- archive's) still falls due (src/modules/subscriptions/states.ts, `periodEndDue`): the billing
-- tick finds those rows on the real clock through this index, beside subscriptions_renewal_due_idx.
CREATE INDEX subscriptions_paused_cancel_due_idx ON subscriptions ("currentPeriodEnd")
  WHERE status = 'paused' AND "cancelAtPeriodEnd" AND "testClockId" IS NULL;
