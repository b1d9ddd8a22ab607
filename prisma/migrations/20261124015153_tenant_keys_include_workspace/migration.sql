-- DropIndex
DROP INDEX "payments_checkoutSessionId_key";

-- CreateIndex
CREATE UNIQUE INDEX "payments_checkoutSessionId_key" ON "payments"("workspaceId", "mode", "checkoutSessionId");
