-- ---- hand-written: the tenant pool's own LOGIN role, and row-level security forced ----

-- The tenant pool logs in as svc_app_login (no more `SET ROLE` through a startup parameter on an
-- owner connection). It has exactly svc_app's privileges (membership, INHERIT) and nothing else:
-- not superuser, no BYPASSRLS, owns nothing. Roles are cluster-wide: another database of the same
-- cluster may have created it already, or be creating it right now, hence the guards. Its password
-- is not set here: `svc migrate` sets it from SVC_APP_PASSWORD (see README, "Database roles").
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'svc_app_login') THEN
    BEGIN
      CREATE ROLE svc_app_login LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOREPLICATION INHERIT;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END;
  END IF;
  IF NOT pg_has_role('svc_app_login', 'svc_app', 'MEMBER') THEN
    BEGIN
      GRANT svc_app TO svc_app_login;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END;
  END IF;
END $$;

-- Every tenant table is FORCE ROW LEVEL SECURITY: even a connection as the tables' owner is bound
-- by the policies. The infrastructure connection (DATABASE_URL: migrations, auth lookups, the
-- relay, pg-boss, bootstrap) works across tenants, so that role must be superuser or BYPASSRLS;
-- the server refuses to start otherwise (src/core/db/roles.ts).
CREATE OR REPLACE FUNCTION enable_tenant_isolation(t text, per_mode boolean DEFAULT true) RETURNS void LANGUAGE plpgsql AS $$
DECLARE rule text := '"workspaceId" = (SELECT app_workspace())' || CASE WHEN per_mode THEN ' AND mode = ANY ((SELECT app_modes())::text[])' ELSE '' END;
BEGIN
  EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
  EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
  EXECUTE format('CREATE POLICY tenant_isolation ON %I USING (%s) WITH CHECK (%s)', t, rule, rule);
END $$;

DO $$
DECLARE t text;
BEGIN
  FOR t IN SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relrowsecurity
  LOOP
    EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
  END LOOP;
END $$;
