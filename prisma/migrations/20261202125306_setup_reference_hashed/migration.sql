-- ---- hand-written: data (docs/security.md, Saved-method tokens stay where they belong) ----

-- An attempt that saved a token keeps only the hash of its provider reference (providerTokenHash:
-- sha256 of adapter, a zero byte and the reference; a provider_a reference is the charge token itself)
-- and only the kind of its instructions (a redirect URL may carry the reference).
UPDATE setup_attempts
   SET "providerRef" = CASE WHEN "providerRef" IS NULL THEN NULL ELSE encode(
         sha256(convert_to(adapter, 'UTF8') || '\x00'::bytea || convert_to("providerRef", 'UTF8')), 'hex') END,
       instructions = CASE WHEN jsonb_typeof(instructions -> 'kind') = 'string'
         THEN jsonb_build_object('kind', instructions -> 'kind') END
 WHERE status IN ('completed', 'completed_unapplied');
