-- AlterTable
ALTER TABLE "invoices" ADD COLUMN     "applyCustomerBalance" BOOLEAN NOT NULL DEFAULT true;
