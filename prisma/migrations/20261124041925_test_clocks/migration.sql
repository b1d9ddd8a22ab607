-- CreateTable
CREATE TABLE "test_clocks" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "name" TEXT,
    "frozenTime" TIMESTAMPTZ(3) NOT NULL,
    "status" TEXT NOT NULL,
    "advanceTarget" TIMESTAMPTZ(3),
    "deletedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "test_clocks_pkey" PRIMARY KEY ("workspaceId","mode","id")
);

-- CreateIndex
CREATE INDEX "test_clocks_workspaceId_mode_createdAt_id_idx" ON "test_clocks"("workspaceId", "mode", "createdAt", "id");

-- CreateIndex
CREATE INDEX "customers_workspaceId_mode_testClockId_idx" ON "customers"("workspaceId", "mode", "testClockId");

-- Hand-written (CONTRIBUTING.md, Migrations).
SELECT enable_tenant_isolation('test_clocks');

ALTER TABLE test_clocks
  ADD CONSTRAINT test_clocks_mode_check CHECK (mode = 'test'),
  ADD CONSTRAINT test_clocks_status_check CHECK (status IN ('ready', 'advancing', 'internal_failure')),
  ADD CONSTRAINT test_clocks_name_check CHECK (name IS NULL OR char_length(name) BETWEEN 1 AND 255),
  ADD CONSTRAINT test_clocks_target_check CHECK ((status = 'advancing') = ("advanceTarget" IS NOT NULL));

-- A clock is in the workspace and mode of what lives on it (composite keys, as every tenant reference);
-- subscriptions and invoices copy their customer's clock.
ALTER TABLE customers
  ADD CONSTRAINT customers_test_clock_fkey FOREIGN KEY ("workspaceId", mode, "testClockId")
  REFERENCES test_clocks ("workspaceId", mode, id);
ALTER TABLE subscriptions
  ADD CONSTRAINT subscriptions_test_clock_fkey FOREIGN KEY ("workspaceId", mode, "testClockId")
  REFERENCES test_clocks ("workspaceId", mode, id);
ALTER TABLE invoices
  ADD CONSTRAINT invoices_test_clock_fkey FOREIGN KEY ("workspaceId", mode, "testClockId")
  REFERENCES test_clocks ("workspaceId", mode, id);

-- Clocks are deleted softly (deletedAt): customers and their invoices keep pointing at them.
REVOKE DELETE ON test_clocks FROM svc_app;
