-- AlterTable
ALTER TABLE "payments" ADD COLUMN     "paymentMethodId" TEXT;
