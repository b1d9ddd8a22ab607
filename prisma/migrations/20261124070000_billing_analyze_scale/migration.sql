-- Statistics after bulk writes (docs/decisions.md): the append-heavy billing tables are analyzed by
-- autovacuum after 2% of their rows changed (the default 10% lets a table of millions take a long
-- burst on stale statistics). The threshold stays the default, so a young table is analyzed early.
-- The renewal path also analyzes what a burst grew (src/core/db/analyze.ts).
ALTER TABLE subscriptions SET (autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE invoices SET (autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE invoice_lines SET (autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE payments SET (autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE receipts SET (autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE ledger_entries SET (autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE events SET (autovacuum_analyze_scale_factor = 0.02);
