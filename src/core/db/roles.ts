import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The two database identities (README, "Database roles"):
 * - the tenant pool logs in as APP_LOGIN_ROLE, a member of APP_ROLE (the privileges), bound by
 *   row-level security, which every tenant table forces;
 * - the infrastructure pool logs in with DATABASE_URL, the tables' owner, which must be able to
 *   bypass row-level security (superuser or BYPASSRLS): it works across tenants.
 */
export const APP_ROLE = 'svc_app';
export const APP_LOGIN_ROLE = 'svc_app_login';

/**
 * The tenant pool's URL: SVC_APP_DATABASE_URL, else DATABASE_URL with the app login role and
 * SVC_APP_PASSWORD (no password: the server must trust the connection, e.g. trust or peer in dev).
 */
export function appDatabaseUrl(ownerUrl: string): string {
  const explicit = process.env.SVC_APP_DATABASE_URL;
  if (explicit) return explicit;
  const u = new URL(ownerUrl);
  u.username = APP_LOGIN_ROLE;
  u.password = process.env.SVC_APP_PASSWORD ? encodeURIComponent(process.env.SVC_APP_PASSWORD) : '';
  return u.toString();
}

/** A SCRAM-SHA-256 verifier, so the password itself never appears in SQL text or server logs. */
export function scramVerifier(password: string): string {
  const salt = randomBytes(16);
  const iterations = 4096;
  const salted = pbkdf2Sync(password.normalize('NFKC'), salt, iterations, 32, 'sha256');
  const stored = createHash('sha256').update(createHmac('sha256', salted).update('Client Key').digest()).digest();
  const server = createHmac('sha256', salted).update('Server Key').digest();
  const b64 = (b: Buffer) => b.toString('base64');
  return `SCRAM-SHA-256$${iterations}:${b64(salt)}$${b64(stored)}:${b64(server)}`;
}

async function canLogIn(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await c.connect();
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => {});
  }
}

/**
 * Part of `svc migrate`: gives the app login role SVC_APP_PASSWORD when it cannot log in with it
 * yet (so repeated runs, and many databases of one cluster, write the role once). Needs an owner
 * allowed to alter the role (superuser, or CREATEROLE with ADMIN on it).
 */
export async function ensureAppLogin(owner: pg.ClientBase, ownerUrl: string, log: (line: string) => void = () => {}) {
  const password = process.env.SVC_APP_PASSWORD;
  if (!password || process.env.SVC_APP_DATABASE_URL) return;
  if (await canLogIn(appDatabaseUrl(ownerUrl))) return;
  for (let attempt = 1; ; attempt++) {
    try {
      await owner.query(`ALTER ROLE ${APP_LOGIN_ROLE} WITH LOGIN PASSWORD '${scramVerifier(password)}'`);
      log(`set the password of ${APP_LOGIN_ROLE} from SVC_APP_PASSWORD`);
      return;
    } catch (e) {
      // "tuple concurrently updated": another database of the cluster is migrating at the same moment
      if (attempt >= 3 || !/concurrently/.test((e as Error).message)) throw e;
    }
  }
}

/**
 * Refuses to serve with the wrong identities: a tenant pool that is not the app login role (or
 * that can bypass RLS) would not be bound by row-level security, and an infrastructure pool that
 * cannot bypass it would see no tenant rows (every tenant table forces RLS).
 */
export async function assertDatabaseRoles(pools: { app: pg.Pool; system: pg.Pool }) {
  const who = async (pool: pg.Pool) =>
    (
      await pool.query<{ user: string; bypass: boolean }>(
        `SELECT current_user AS user, rolsuper OR rolbypassrls AS bypass FROM pg_roles WHERE rolname = current_user`,
      )
    ).rows[0];
  const [app, system] = await Promise.all([who(pools.app), who(pools.system)]);
  if (app.user !== APP_LOGIN_ROLE || app.bypass) {
    throw new Error(
      `refusing to serve: the tenant pool connects as "${app.user}"` +
        `${app.bypass ? ' (which bypasses row-level security)' : ''}, not as ${APP_LOGIN_ROLE}; ` +
        'check SVC_APP_DATABASE_URL / SVC_APP_PASSWORD (README, "Database roles")',
    );
  }
  if (!system.bypass) {
    throw new Error(
      `refusing to serve: the infrastructure connection (DATABASE_URL) is "${system.user}", ` +
        'which is neither superuser nor BYPASSRLS; tenant tables force row-level security, ' +
        'so it would see no rows (README, "Database roles")',
    );
  }
}
