-- DropIndex
DROP INDEX "payouts_workspaceId_mode_idempotencyRef_key";

-- AlterTable
ALTER TABLE "payouts" DROP COLUMN "idempotencyRef";

-- CreateTable
CREATE TABLE "idempotent_operations" (
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "operationId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "resourceId" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "idempotent_operations_pkey" PRIMARY KEY ("workspaceId","mode","operationId")
);

-- CreateIndex
CREATE INDEX "idempotent_operations_createdAt_idx" ON "idempotent_operations"("createdAt");

-- Tenant rows under RLS like every table with workspaceId (src/core/operations.ts writes them in the
-- tenant's transaction). Payouts found their request by a column of their own until now: the one
-- mechanism replaces it (an in-flight takeover across this migration is not worth keeping the column).
SELECT enable_tenant_isolation('idempotent_operations');
