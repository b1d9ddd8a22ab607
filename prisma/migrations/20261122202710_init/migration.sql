-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "keyId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "scopes" TEXT[],
    "signingKey" BYTEA NOT NULL,
    "memberId" TEXT,
    "lastUsedAt" TIMESTAMPTZ(3),
    "revokedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "events" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "objectId" TEXT,
    "sequence" INTEGER NOT NULL,
    "occurredAt" TIMESTAMPTZ(3) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "publishedAt" TIMESTAMPTZ(3),
    "data" JSONB NOT NULL,
    "metadata" JSONB NOT NULL,
    "position" BIGSERIAL NOT NULL,

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "object_sequences" (
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "objectId" TEXT NOT NULL,
    "value" INTEGER NOT NULL,

    CONSTRAINT "object_sequences_pkey" PRIMARY KEY ("workspaceId","mode","objectId")
);

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "statusCode" INTEGER,
    "headers" JSONB,
    "body" BYTEA,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("workspaceId","mode","key")
);

-- CreateTable
CREATE TABLE "workspaces" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "partnerId" TEXT,
    "isPlatformAdmin" BOOLEAN NOT NULL DEFAULT false,
    "name" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "region" TEXT NOT NULL DEFAULT 'id-jakarta',
    "defaultCurrency" TEXT NOT NULL,
    "timezone" TEXT NOT NULL,
    "mode" TEXT NOT NULL DEFAULT 'test',
    "brandName" TEXT,
    "businessEmail" TEXT,
    "tier" TEXT NOT NULL DEFAULT 'starter',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "archivedAt" TIMESTAMPTZ(3),

    CONSTRAINT "workspaces_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "retired_slugs" (
    "slug" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "retiredAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "retired_slugs_pkey" PRIMARY KEY ("slug")
);

-- CreateTable
CREATE TABLE "members" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'joined',
    "invitedAt" TIMESTAMPTZ(3),
    "expiresAt" TIMESTAMPTZ(3),
    "joinedAt" TIMESTAMPTZ(3),
    "removedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "members_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "counters" (
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "value" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "counters_pkey" PRIMARY KEY ("workspaceId","mode","name")
);

-- CreateTable
CREATE TABLE "audit_log" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "actorKeyId" TEXT,
    "actorMember" TEXT,
    "action" TEXT NOT NULL,
    "targetId" TEXT,
    "requestId" TEXT,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_keyId_key" ON "api_keys"("keyId");

-- CreateIndex
CREATE INDEX "api_keys_workspaceId_mode_createdAt_id_idx" ON "api_keys"("workspaceId", "mode", "createdAt", "id");

-- CreateIndex
CREATE INDEX "api_keys_workspaceId_createdAt_id_idx" ON "api_keys"("workspaceId", "createdAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "events_position_key" ON "events"("position");

-- CreateIndex
CREATE INDEX "events_workspaceId_occurredAt_id_idx" ON "events"("workspaceId", "occurredAt", "id");

-- CreateIndex
CREATE INDEX "events_workspaceId_type_occurredAt_id_idx" ON "events"("workspaceId", "type", "occurredAt", "id");

-- CreateIndex
CREATE INDEX "events_workspaceId_objectId_occurredAt_id_idx" ON "events"("workspaceId", "objectId", "occurredAt", "id");

-- CreateIndex
CREATE INDEX "idempotency_keys_expiresAt_idx" ON "idempotency_keys"("expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "workspaces_accountId_key" ON "workspaces"("accountId");

-- CreateIndex
CREATE UNIQUE INDEX "workspaces_slug_key" ON "workspaces"("slug");

-- CreateIndex
CREATE INDEX "workspaces_partnerId_createdAt_id_idx" ON "workspaces"("partnerId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "retired_slugs_workspaceId_idx" ON "retired_slugs"("workspaceId");

-- CreateIndex
CREATE INDEX "members_workspaceId_createdAt_id_idx" ON "members"("workspaceId", "createdAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "members_workspaceId_email_key" ON "members"("workspaceId", "email");

-- CreateIndex
CREATE INDEX "audit_log_workspaceId_mode_at_id_idx" ON "audit_log"("workspaceId", "mode", "at", "id");


-- ---- hand-written: roles, row-level security, notifications ----

-- The role every tenant query runs as (SET ROLE on each pooled connection). It owns nothing,
-- so row-level security always applies to it; the owner (migrations, relay, auth) is not bound.
DO $$ BEGIN CREATE ROLE svc_app NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
DO $$ BEGIN EXECUTE format('GRANT svc_app TO %I', current_user); EXCEPTION WHEN others THEN NULL; END $$;
GRANT USAGE ON SCHEMA public TO svc_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO svc_app;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO svc_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO svc_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO svc_app;
REVOKE ALL ON "_prisma_migrations" FROM svc_app;

-- The request's scope, set per transaction with set_config(..., true).
CREATE FUNCTION app_workspace() RETURNS text LANGUAGE sql STABLE AS $$ SELECT nullif(current_setting('app.workspace_id', true), '') $$;
CREATE FUNCTION app_modes() RETURNS text[] LANGUAGE sql STABLE AS $$ SELECT string_to_array(nullif(current_setting('app.modes', true), ''), ',') $$;

-- Tenant isolation for one table; later migrations call it for every table they add.
-- The settings are read through (SELECT ...) so PostgreSQL evaluates them once per query (an
-- InitPlan), not once per row.
CREATE FUNCTION enable_tenant_isolation(t text, per_mode boolean DEFAULT true) RETURNS void LANGUAGE plpgsql AS $$
DECLARE rule text := '"workspaceId" = (SELECT app_workspace())' || CASE WHEN per_mode THEN ' AND mode = ANY ((SELECT app_modes())::text[])' ELSE '' END;
BEGIN
  EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
  EXECUTE format('CREATE POLICY tenant_isolation ON %I USING (%s) WITH CHECK (%s)', t, rule, rule);
END $$;

SELECT enable_tenant_isolation(t) FROM unnest(ARRAY['api_keys', 'events', 'object_sequences', 'idempotency_keys', 'counters', 'audit_log']) AS t;
-- Workspace-level tables (no mode: members and slugs span test and live).
SELECT enable_tenant_isolation(t, false) FROM unnest(ARRAY['members', 'retired_slugs']) AS t;

-- A workspace is visible to itself and to the partner it was provisioned under.
ALTER TABLE workspaces ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON workspaces
  USING (id = (SELECT app_workspace()) OR "partnerId" = (SELECT app_workspace()))
  WITH CHECK (id = (SELECT app_workspace()) OR "partnerId" = (SELECT app_workspace()));

-- Every committed event is announced to every server instance (payload: position only; the
-- row is read back, so the 8000-byte NOTIFY cap never matters).
CREATE FUNCTION notify_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('svc_events', NEW.position::text || ':' || NEW."workspaceId" || ':' || NEW.mode);
  RETURN NULL;
END $$;
CREATE TRIGGER events_notify AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION notify_event();

-- The relay's work queue: unpublished events in commit order.
CREATE INDEX events_unpublished_idx ON events (position) WHERE "publishedAt" IS NULL;
