-- PATCH /v1/invoices/:id replaces a draft's lines (docs/decisions.md, Invoices): the app may delete
-- lines, and the invoice_lines_locked trigger still refuses it once the invoice has left draft.
-- Invoices themselves stay undeletable ("there is no delete").
GRANT DELETE ON invoice_lines TO svc_app;
