-- AlterTable
ALTER TABLE "checkout_sessions" ADD COLUMN     "hostedSecret" TEXT NOT NULL DEFAULT substr(encode(sha256(convert_to(((gen_random_uuid())::text || (gen_random_uuid())::text), 'UTF8'::name)), 'hex'::text), 1, 40);

-- Issue 12: the hosted checkout URL carries a secret (src/core/hosted-link.ts); the session id alone
-- opens nothing. The volatile default above mints it: for every existing row while the column is
-- added (PostgreSQL evaluates it per row) and for every new session, so the secret never appears in
-- the app's SQL text. gen_random_uuid() draws from the server's strong random source.
