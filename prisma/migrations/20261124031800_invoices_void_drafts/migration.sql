-- A draft can be voided before it was ever numbered (numbers are allocated at finalization): a
-- void invoice may have a number or not; every other issued status has one, a draft never.
ALTER TABLE invoices DROP CONSTRAINT invoices_number_check;
ALTER TABLE invoices ADD CONSTRAINT invoices_number_check CHECK (
  (status <> 'draft' OR number IS NULL) AND (number IS NOT NULL OR status IN ('draft', 'void')));
