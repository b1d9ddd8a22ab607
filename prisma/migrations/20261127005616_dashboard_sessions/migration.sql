-- CreateTable
CREATE TABLE "dashboard_sessions" (
    "workspaceId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "memberId" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "revokedAt" TIMESTAMPTZ(3),

    CONSTRAINT "dashboard_sessions_pkey" PRIMARY KEY ("workspaceId","id")
);

-- CreateIndex
CREATE INDEX "dashboard_sessions_tokenHash_idx" ON "dashboard_sessions"("tokenHash");

-- CreateIndex
CREATE INDEX "dashboard_sessions_workspaceId_memberId_idx" ON "dashboard_sessions"("workspaceId", "memberId");

-- Workspace-level like members: a session spans test and live (docs/dashboard.md, Sessions).
SELECT enable_tenant_isolation('dashboard_sessions', false);
