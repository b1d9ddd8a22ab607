-- AlterTable
ALTER TABLE "payouts" ADD COLUMN     "idempotencyRef" TEXT;

-- AlterTable
ALTER TABLE "idempotency_keys" ADD COLUMN     "apiKeyId" TEXT,
ADD COLUMN     "claimId" TEXT,
ADD COLUMN     "leaseUntil" TIMESTAMPTZ(3),
ADD COLUMN     "operationId" TEXT,
ADD COLUMN     "scopes" TEXT[];

-- CreateIndex
CREATE UNIQUE INDEX "payouts_workspaceId_mode_idempotencyRef_key" ON "payouts"("workspaceId", "mode", "idempotencyRef");
