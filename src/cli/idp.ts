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

/** Starts the provider and makes it this process's `config.oidc`. */
export async function startConfiguredIdp(): Promise<DevIdp> {
  const uris = [callback(), `http://localhost:${config.port}/dashboard/auth/callback`];
  const idp = await startDevIdp({ port: idpPort(), redirectUris: [...new Set(uris)] });
  Object.assign(config.oidc, { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret });
  console.error(
    `svc development identity provider on ${idp.issuer}: ${DEV_USERS.map((u) => u.email).join(', ')} ` +
      `(password "${DEV_PASSWORD}"); sign in at ${callback().replace(/auth\/callback$/, '')}`,
  );
  return idp;
}

/** `svc idp`: the provider alone, with the environment lines a separately started server needs. */
export async function runIdp() {
  const idp = await startConfiguredIdp();
  console.log(
    `SVC_OIDC_ISSUER=${idp.issuer}\nSVC_OIDC_CLIENT_ID=${idp.clientId}\nSVC_OIDC_CLIENT_SECRET=${idp.clientSecret}`,
  );
  const stop = () => void idp.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
