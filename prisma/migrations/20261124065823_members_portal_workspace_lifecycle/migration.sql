-- DropIndex
DROP INDEX "members_workspaceId_email_key";

-- AlterTable
ALTER TABLE "workspaces" ADD COLUMN     "portalSettings" JSONB NOT NULL DEFAULT '{"cancel": true, "changePlan": true, "viewInvoices": true, "updatePaymentMethod": true}',
ADD COLUMN     "purgedAt" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "members" ADD COLUMN     "identityIssuer" TEXT,
ADD COLUMN     "identitySubject" TEXT,
ADD COLUMN     "inviteMode" TEXT,
ADD COLUMN     "inviteTokenHash" TEXT,
ADD COLUMN     "invitedBy" TEXT;

-- CreateTable
CREATE TABLE "portal_sessions" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "customerId" TEXT NOT NULL,
    "returnUrl" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "portal_sessions_pkey" PRIMARY KEY ("workspaceId","mode","id")
);

-- CreateIndex
CREATE INDEX "portal_sessions_id_idx" ON "portal_sessions"("id");

-- ---- from 20261124055443_members_invitations ----
-- Hand-written (CONTRIBUTING.md, Migrations).
-- One live row per email (a removed member's row stays as history; its email may be invited again as a new member).
CREATE UNIQUE INDEX "members_workspaceId_email_live_key" ON "members" ("workspaceId", lower(email)) WHERE status <> 'removed';
-- spec Workspace and member: exactly one owner per workspace.
CREATE UNIQUE INDEX "members_workspaceId_owner_key" ON "members" ("workspaceId") WHERE role = 'owner' AND status <> 'removed';
-- An external identity is one member of a workspace.
CREATE UNIQUE INDEX "members_workspaceId_identity_key" ON "members" ("workspaceId", "identityIssuer", "identitySubject")
  WHERE status <> 'removed' AND "identitySubject" IS NOT NULL;

ALTER TABLE members
  ADD CONSTRAINT members_status_check CHECK (status IN ('invited', 'joined', 'expired', 'removed')),
  ADD CONSTRAINT members_role_check CHECK (role IN ('owner', 'admin', 'member', 'read_only')),
  ADD CONSTRAINT members_invite_mode_check CHECK ("inviteMode" IS NULL OR "inviteMode" IN ('test', 'live')),
  -- A pending invitation carries its token's hash (kept on expiry, so the link answers 410 only to its holder);
  -- joined and removed members carry none. An owner is never an invitation.
  ADD CONSTRAINT members_token_check CHECK (CASE status WHEN 'invited' THEN "inviteTokenHash" IS NOT NULL
    WHEN 'expired' THEN true ELSE "inviteTokenHash" IS NULL END),
  ADD CONSTRAINT members_owner_joined_check CHECK (role <> 'owner' OR status IN ('joined', 'removed'));

-- ---- from 20261124055513_portal_sessions ----
-- spec Portal session: per workspace and mode, under RLS like every tenant table.
SELECT enable_tenant_isolation('portal_sessions');

ALTER TABLE portal_sessions
  ADD CONSTRAINT portal_sessions_mode_check CHECK (mode IN ('test', 'live')),
  ADD CONSTRAINT portal_sessions_return_url_check CHECK ("returnUrl" LIKE 'https://%' AND length("returnUrl") <= 2048),
  -- A session outlives nothing: it goes with its customer (a workspace purge deletes both).
  ADD CONSTRAINT portal_sessions_customer_fkey FOREIGN KEY ("workspaceId", mode, "customerId")
    REFERENCES customers ("workspaceId", mode, id) ON DELETE CASCADE ON UPDATE CASCADE;

-- spec Portal sessions: the workspace's toggles are four booleans, all present.
ALTER TABLE workspaces ADD CONSTRAINT workspaces_portal_settings_check CHECK (
  jsonb_typeof("portalSettings" -> 'cancel') = 'boolean'
  AND jsonb_typeof("portalSettings" -> 'updatePaymentMethod') = 'boolean'
  AND jsonb_typeof("portalSettings" -> 'viewInvoices') = 'boolean'
  AND jsonb_typeof("portalSettings" -> 'changePlan') = 'boolean'
);

-- ---- from 20261124055624_workspace_lifecycle ----
-- The purge of an archived workspace (docs/decisions.md, "Workspace lifecycle") deletes every row of
-- the workspace, finalized invoices' lines included. Only a role that bypasses RLS (the owner pool) may do it, and only for the
-- workspace it names in `app.purge_workspace` for its transaction; the app role never can.
CREATE OR REPLACE FUNCTION invoice_lines_locked() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  line invoice_lines := COALESCE(NEW, OLD);
  st text;
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('app.purge_workspace', true) = OLD."workspaceId"
      AND (SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user) THEN
    RETURN OLD;
  END IF;
  SELECT status INTO st FROM invoices
   WHERE "workspaceId" = line."workspaceId" AND mode = line.mode AND id = line."invoiceId";
  IF st IS DISTINCT FROM 'draft' THEN
    RAISE EXCEPTION 'invoice % is %: its lines are locked', line."invoiceId", st USING ERRCODE = 'check_violation';
  END IF;
  RETURN COALESCE(NEW, OLD);
END $$;
