-- AlterTable
ALTER TABLE "workspaces" ADD COLUMN     "purgeStartedAt" TIMESTAMPTZ(3);
