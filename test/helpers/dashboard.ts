// The dashboard's sign-in as a browser does it, over real HTTP: the service's login route, the
// development identity provider's form (src/auth/dev-idp.ts), the callback; cookies kept per host.
import { afterAll, beforeAll, expect } from 'vitest';
import WebSocket from 'ws';
import { createClient as createSocketClient } from 'graphql-ws';
import { config } from '../../src/core/config.ts';
import { DEV_PASSWORD, startDevIdp, type DevIdp } from '../../src/auth/dev-idp.ts';
import type { TestServer } from './server.ts';

/** The development IdP for the file, registered with the server's callback and set as `config.oidc`. */
export function useDevIdp(server: TestServer): { readonly idp: DevIdp } {
  const held = {} as { idp: DevIdp };
  const previous = { ...config.oidc };
  beforeAll(async () => {
    held.idp = await startDevIdp({ redirectUris: [`${server.url}/dashboard/auth/callback`] });
    Object.assign(config.oidc, {
      issuer: held.idp.issuer,
      clientId: held.idp.clientId,
      clientSecret: held.idp.clientSecret,
    });
  });
  afterAll(async () => {
    Object.assign(config.oidc, previous);
    await held.idp?.close();
  });
  return held;
}

/** A cookie jar per origin, enough for these redirects (no Domain or Path matching beyond the host). */
export class Jar {
  private jars = new Map<string, Map<string, string>>();
  header(url: string) {
    const jar = this.jars.get(new URL(url).host);
    return jar ? [...jar].map(([k, v]) => `${k}=${v}`).join('; ') : '';
  }
  take(url: string, res: Response) {
    const host = new URL(url).host;
    const jar = this.jars.get(host) ?? new Map<string, string>();
    this.jars.set(host, jar);
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === '' || /max-age=0/i.test(line)) jar.delete(name);
      else jar.set(name, value);
    }
  }
}

export interface DashboardSession {
  cookie: string;
  csrf: string;
  setCookie: string[];
  me: {
    member: { id: string; email: string; role: string };
    workspace: { id: string };
    workspaces: { id: string; name: string; role: string }[];
  };
}

/** Follows redirects by hand, keeping cookies; returns the last response and its URL. */
export async function walk(jar: Jar, start: string, init?: RequestInit & { headers?: Record<string, string> }) {
  let url = start;
  let res = await fetch(url, { ...init, redirect: 'manual', headers: { ...init?.headers, cookie: jar.header(url) } });
  const setCookies: string[] = [...res.headers.getSetCookie()];
  jar.take(url, res);
  for (let i = 0; i < 10 && res.status >= 300 && res.status < 400; i++) {
    url = new URL(res.headers.get('location')!, url).href;
    res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header(url) } });
    setCookies.push(...res.headers.getSetCookie());
    jar.take(url, res);
  }
  return { res, url, setCookies };
}

/** The accept page's form (docs/dashboard.md, Accepting an invitation): its hidden fields, or null. */
export function acceptForm(html: string): { invitation: string; csrf: string } | null {
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
  const invitation = field('invitation');
  const csrf = field('csrf');
  return invitation && csrf ? { invitation: invitation.replace(/&amp;/g, '&'), csrf } : null;
}

/** Posts the accept page's form (what its Join button does) with this jar's cookies. */
export function postAccept(jar: Jar, serverUrl: string, fields: Record<string, string>) {
  return walk(jar, `${serverUrl}/dashboard/auth/accept`, {
    method: 'POST',
    body: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

/**
 * Signs in at the server as `email` through the dev IdP; `invitation` accepts one on the way (the
 * accept page's Join button). `jar` is the browser's cookies (default a new one).
 */
export async function signIn(
  serverUrl: string,
  email: string,
  opts: { invitation?: string; password?: string; jar?: Jar } = {},
): Promise<DashboardSession> {
  const jar = opts.jar ?? new Jar();
  const q = opts.invitation ? `?invitation=${encodeURIComponent(opts.invitation)}` : '';
  const form = await walk(jar, `${serverUrl}/dashboard/auth/login${q}`);
  expect(form.res.status, await form.res.clone().text()).toBe(200);
  const body = new URLSearchParams({ email, password: opts.password ?? DEV_PASSWORD }).toString();
  let done = await walk(jar, form.url, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  if (opts.invitation && done.url.startsWith(`${serverUrl}/dashboard/auth/accept`)) {
    const html = await done.res.text();
    const fields = acceptForm(html);
    if (!fields) throw new Error(`the accept page of ${email} has no form (${done.res.status}): ${html}`);
    done = await postAccept(jar, serverUrl, fields);
  }
  // The callback redirects to /dashboard/: anything else is a refused sign-in.
  if (done.url !== `${serverUrl}/dashboard/`)
    throw new Error(`sign-in of ${email} ended at ${done.url} (${done.res.status}): ${await done.res.text()}`);
  const cookie = `svc_session=${jar.header(serverUrl).match(/svc_session=([^;]+)/)![1]}`;
  const meRes = await fetch(`${serverUrl}/dashboard/auth/session`, { headers: { cookie } });
  expect(meRes.status).toBe(200);
  const me = await meRes.json();
  return { cookie, csrf: me.csrf, setCookie: done.setCookies, me };
}

/** A GraphQL request as the dashboard sends it: the cookie, the CSRF header, the mode. */
export async function dashboardGraphQL(
  serverUrl: string,
  s: Pick<DashboardSession, 'cookie' | 'csrf'>,
  query: string,
  variables: Record<string, unknown> = {},
  opts: { mode?: 'test' | 'live'; csrf?: string | null } = {},
) {
  const headers: Record<string, string> = { 'content-type': 'application/json', cookie: s.cookie };
  const csrf = opts.csrf === undefined ? s.csrf : opts.csrf;
  if (csrf !== null) headers['x-svc-csrf'] = csrf;
  if (opts.mode) headers['x-svc-mode'] = opts.mode;
  const res = await fetch(`${serverUrl}/graphql`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, json: await res.json() };
}

/** A graphql-ws socket opened with the session's cookie, its CSRF token in connection_init. */
export function sessionSocket(serverUrl: string, s: Pick<DashboardSession, 'cookie' | 'csrf'>) {
  const closes: { code: number; reason: string }[] = [];
  const state = { connected: false };
  const cookie = s.cookie;
  class CookieSocket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers: { cookie } });
    }
  }
  const client = createSocketClient({
    url: `${serverUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: CookieSocket,
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => {},
    connectionParams: { csrf: s.csrf, mode: 'test' },
    on: {
      connected: () => void (state.connected = true),
      closed: (e) => void closes.push({ code: (e as CloseEvent).code, reason: (e as CloseEvent).reason }),
    },
  });
  return { client, closes, state };
}
