/**
 * The development identity provider (docs/dashboard.md, Development sign-in): a real OpenID Connect
 * provider (`oidc-provider`) with the users the README names, so the dashboard's sign-in runs the
 * whole protocol (authorization code with PKCE) in development and tests. Never for production:
 * its users and password are public. `svc idp` runs it; tests start it in process.
 */
import { DevIdpStore } from './dev-idp-store.ts';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface DevUser {
  sub: string;
  email: string;
  name: string;
  /** What the provider says of the email (`email_verified`); true unless a test says otherwise. */
  emailVerified?: boolean;
}
/** The README's users (one password for all: `DEV_PASSWORD`). */
export const DEV_USERS: readonly DevUser[] = [
  { sub: 'dev-owner', email: 'owner@example.com', name: 'Olivia Owner' },
  { sub: 'dev-admin', email: 'admin@example.com', name: 'Adi Admin' },
  { sub: 'dev-member', email: 'member@example.com', name: 'Maya Member' },
  { sub: 'dev-readonly', email: 'readonly@example.com', name: 'Rudi Readonly' },
];
export const DEV_PASSWORD = 'dev';
export const DEV_CLIENT_ID = 'svc-dashboard';
export const DEV_CLIENT_SECRET = 'svc-dashboard-dev-secret';

export interface DevIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Users made at run time (tests): the same password. */
  addUser(user: DevUser): void;
  close(): Promise<void>;
}

const html = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function loginPage(uid: string, error?: string) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in (development)</title>
<meta name="viewport" content="width=device-width"></head><body style="font-family:sans-serif;max-width:28rem;margin:3rem auto">
<h1>Development sign-in</h1><p>Users are listed in the README; the password is the same for all.</p>
${error ? `<p role="alert">${html(error)}</p>` : ''}
<form method="post" action="/interaction/${html(uid)}">
<label>Email <input name="email" type="email" autocomplete="username" required></label><br>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label><br>
<button type="submit">Sign in</button></form></body></html>`;
}

async function formOf(req: IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > 10_000) break;
  }
  return new URLSearchParams(body);
}

/** Starts the provider on `port` (0: any free one) of 127.0.0.1; `redirectUris` are the dashboard's callbacks. */
export async function startDevIdp(opts: { port?: number; redirectUris: string[]; host?: string }): Promise<DevIdp> {
  const users = new Map(DEV_USERS.map((u) => [u.sub, u]));
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve));
  const issuer = `http://${opts.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;
  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: DEV_CLIENT_ID,
        client_secret: DEV_CLIENT_SECRET,
        redirect_uris: opts.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    // A signing key of this run: tokens from an earlier run do not verify.
    jwks: { keys: [{ ...signingKey.export({ format: 'jwk' }), kid: 'dev', use: 'sig', alg: 'RS256' }] as never },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: { devInteractions: { enabled: false } },
    adapter: DevIdpStore,
    // Lifetimes stated (the library otherwise notes its defaults on every sign-in): short, as a development sign-in is.
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      IdToken: 600,
      Interaction: 600,
      Session: 12 * 3600,
      Grant: 12 * 3600,
    },
    findAccount: (_ctx, sub) => {
      const u = users.get(sub);
      if (!u) return undefined;
      return {
        accountId: sub,
        claims: () => ({ sub, email: u.email, email_verified: u.emailVerified ?? true, name: u.name }),
      };
    },
  });
  // The dashboard is the provider's own first-party client: no consent screen.
  const finish = async (req: IncomingMessage, res: ServerResponse, sub: string) => {
    const details = await provider.interactionDetails(req, res);
    const grant = new provider.Grant({ accountId: sub, clientId: String(details.params.client_id) });
    grant.addOIDCScope(String(details.params.scope ?? 'openid'));
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { login: { accountId: sub }, consent: { grantId } });
  };
  const callback = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const m = /^\/interaction\/([\w-]+)$/.exec(req.url ?? '');
    if (!m) return void callback(req, res);
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      if (req.method === 'POST') {
        const form = await formOf(req);
        const email = (form.get('email') ?? '').trim().toLowerCase();
        const user = [...users.values()].find((u) => u.email.toLowerCase() === email);
        if (user && form.get('password') === DEV_PASSWORD) return finish(req, res, user.sub);
        res.writeHead(401, { 'content-type': 'text/html; charset=utf-8' });
        return res.end(loginPage(m[1]!, 'Unknown user or wrong password'));
      }
      // Already signed in at the provider: only the grant is missing.
      if (details.prompt.name === 'consent' && details.session?.accountId)
        return finish(req, res, details.session.accountId);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(loginPage(m[1]!));
    })().catch((e) => {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end(String((e as Error).message));
    });
  });
  return {
    issuer,
    clientId: DEV_CLIENT_ID,
    clientSecret: DEV_CLIENT_SECRET,
    addUser: (u) => void users.set(u.sub, u),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
