-- AlterTable
ALTER TABLE "checkout_sessions" ADD COLUMN     "hostedSecret" TEXT NOT NULL DEFAULT substr(encode(sha256(convert_to(((gen_random_uuid())::text || (gen_random_uuid())::text), 'UTF8'::name)), 'hex'::text), 1, 40);

-- Issue 12: the hosted checkout URL carries a secret (src/core/hosted-link.ts); the session id alone
-- opens nothing. The app writes its own (Node's CSPRNG); the volatile default above gives every
-- existing row its own secret while the column is added (PostgreSQL evaluates it per row) and fills
-- rows inserted without one. gen_random_uuid() draws from the server's strong random source.
