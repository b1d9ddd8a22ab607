-- AlterTable
ALTER TABLE "idempotency_keys" ADD COLUMN     "apiKeyId" TEXT,
ADD COLUMN     "claimId" TEXT,
ADD COLUMN     "leaseUntil" TIMESTAMPTZ(3),
ADD COLUMN     "scopes" TEXT[];
