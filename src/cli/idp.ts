/**
 * The development identity provider from the CLI (docs/dashboard.md, Development sign-in):
 * `svc idp` runs it alone; `svc start` with `SVC_DEV_IDP=1` runs it beside the server and points
 * the dashboard's sign-in at it. Its users are the README's.
 */
import { config } from '../core/config.ts';
import { DEV_PASSWORD, DEV_USERS, startDevIdp, type DevIdp } from '../auth/dev-idp.ts';

const idpPort = () => Number(process.env.SVC_IDP_PORT ?? 4010);
const callback = () =>
  `${(config.publicUrl ?? `http://127.0.0.1:${config.port}`).replace(/\/$/, '')}/dashboard/auth/callback`;

/**
 * The provider's users and password are public, and `owner@example.com` is the owner `svc bootstrap`
 * makes in development: never beside a production configuration (docs/security.md, The development
 * identity provider). An explicit SVC_OIDC_ISSUER is never replaced: both set is refused.
 */
export function assertDevIdpAllowed(how: string, opts: { inServer: boolean }) {
  if (process.env.NODE_ENV === 'production')
    throw new Error(`${how} refuses to run with NODE_ENV=production: its users and password are public`);
  if (opts.inServer && config.oidc.issuer)
    throw new Error(
      `${how} would replace SVC_OIDC_ISSUER (${config.oidc.issuer}): unset one of SVC_DEV_IDP and SVC_OIDC_ISSUER`,
    );
}

/** With the database open: refused once any workspace is live (real money and members). */
export async function assertNoLiveWorkspace(how: string) {
  const { db } = await import('../core/db/client.ts');
  const { rows } = await db().system.query(`SELECT id FROM workspaces WHERE mode = 'live' LIMIT 1`);
  if (rows.length)
    throw new Error(
      `${how} refuses to run beside live workspaces (${rows[0].id} is live): its users and password are public`,
    );
}

/** Starts the provider; `inServer`: beside this process's server, which signs in with it (`config.oidc`). */
export async function startConfiguredIdp(opts: { inServer: boolean }): Promise<DevIdp> {
  assertDevIdpAllowed(opts.inServer ? 'SVC_DEV_IDP=1' : 'svc idp', opts);
  const uris = [callback(), `http://localhost:${config.port}/dashboard/auth/callback`];
  const idp = await startDevIdp({ port: idpPort(), redirectUris: [...new Set(uris)] });
  if (opts.inServer)
    Object.assign(config.oidc, { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret });
  console.error(
    `svc development identity provider on ${idp.issuer}: ${DEV_USERS.map((u) => u.email).join(', ')} ` +
      `(password "${DEV_PASSWORD}"); sign in at ${callback().replace(/auth\/callback$/, '')}`,
  );
  return idp;
}

/** `svc idp`: the provider alone, with the environment lines a separately started server needs. */
export async function runIdp() {
  const idp = await startConfiguredIdp({ inServer: false });
  console.log(
    `SVC_OIDC_ISSUER=${idp.issuer}\nSVC_OIDC_CLIENT_ID=${idp.clientId}\nSVC_OIDC_CLIENT_SECRET=${idp.clientSecret}`,
  );
  const stop = () => void idp.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
