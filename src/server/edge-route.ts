/**
 * The one pattern for HTTP routes that are not GraphQL operations (docs/architecture.md, "Routes
 * outside GraphQL"): hosted pages, provider callbacks, downloads (CSV, PDF, HTML, ESC/POS). A
 * route declares how the caller is authenticated, its rate class and its resource; this module
 * does the authentication, the rate limit, the body parsing and the error envelope, and the
 * handler (a module function) returns data or a stream, never touching fastify.
 */
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Auth } from '../core/auth/authenticate.ts';
import type { RateClass } from '../core/config.ts';
import { authorize } from '../core/context.ts';
import type { ErrorCode, Resource } from '../core/errors.ts';
import { enforceRate, type RateLimiter } from '../core/rate-limit.ts';
import type { Scope } from '../core/auth/scopes.ts';
import { parseJsonBody, rawBody } from './edge.ts';
import { authenticateRequest } from './admission.ts';
import { envelope, errorReply } from './envelope.ts';
import type { Language } from '../core/i18n/index.ts';
import { type PageRequest, pageLanguage } from '../hosted/language.ts';

/**
 * - `key`: signed with an API key like the API (the handler gets the key's `auth`), rate-limited per workspace;
 * - `capability`: public, the URL carries the secret (a hosted token), rate-limited per client address
 *   before anything is looked up;
 * - `none`: the handler authenticates the request itself over the raw bytes (a provider's signature),
 *   rate-limited per client address before anything is looked up.
 */
export type EdgeAuth = 'key' | 'capability' | 'none';

export interface EdgeInput<A extends EdgeAuth> {
  requestId: string;
  params: Record<string, string>;
  /** A query parameter (the last one when repeated). */
  query(name: string): string | undefined;
  /** The JSON object body (`{}` when empty): a 400 when it is not one. */
  json(): Record<string, unknown>;
  rawBody: Buffer;
  headers: Record<string, string | string[] | undefined>;
  auth: A extends 'key' ? Auth : null;
}

/** JSON data (sent in the envelope), or a document: its bytes or a stream with its content type. */
export type EdgeResponse =
  | { json: unknown; headers?: Record<string, string> }
  | { body: string | Buffer | Readable; contentType: string; headers?: Record<string, string> }
  /** A redirect: 302 Found (a signed download) or 303 See Other (after a form's POST). */
  | { redirect: string; status?: 302 | 303; headers?: Record<string, string> };

/**
 * A route's entry in the API document (rest-compat/openapi.ts) and so in the typed client: what
 * it answers when it succeeds. Its errors are derived like a table route's (signed, rate
 * limited, an unknown `:id`) plus `errors`. Every `key` route declares one
 * (test/rest-compat/openapi.test.ts); hosted pages and provider callbacks are not the API.
 */
export interface EdgeApi {
  /** operationId: the typed client's method name. */
  id: string;
  summary: string;
  response: {
    status: 200 | 302;
    /** The body's media type (none for a redirect). */
    contentType?: string;
    description: string;
  };
  query?: Readonly<Record<string, { description: string; required?: boolean }>>;
  /** The domain errors the handler answers, beyond those every signed route has. */
  errors?: readonly ErrorCode[];
}

export interface EdgeRoute<A extends EdgeAuth = EdgeAuth> {
  method: 'GET' | 'POST';
  url: string;
  auth: A;
  /** The API key scope a `key` route requires. */
  scope?: A extends 'key' ? Scope : never;
  /** Per workspace (`key`) or per client address (`capability`, `none`), before the handler; null: not here. */
  rateClass: RateClass | null;
  /** Error codes are spelled for this resource (src/core/errors.ts). */
  resource: Resource;
  /** Documented in the API (OpenAPI, typed client). */
  api?: EdgeApi;
  /**
   * An HTML error page instead of the JSON envelope (pages a browser opens), in the language the
   * request asks for (src/hosted/language.ts; no workspace is known: English by default).
   */
  errorPage?: (status: number, lang: Language) => string;
  handler(input: EdgeInput<A>): Promise<EdgeResponse>;
}

/** Declares a route (typed by its `auth`). */
export const edgeRoute = <A extends EdgeAuth>(route: EdgeRoute<A>): EdgeRoute<A> => route;

/**
 * The client a public page's rate bucket belongs to: the IPv4 address, or the IPv6 /64 (one
 * subscriber's prefix; single IPv6 addresses are free to rotate).
 */
export function clientBucket(ip: string): string {
  const v4 = /^(?:::ffff:)?(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (v4) return `hosted-ip:${v4[1]}`;
  const [head] = ip.split('::');
  const groups = head.split(':').filter(Boolean);
  // Fewer than four groups before `::` means the rest of the /64 is zeros.
  return `hosted-ip:${[...groups, '0', '0', '0', '0'].slice(0, 4).join(':').toLowerCase()}::/64`;
}

/** An error as the route answers it: the envelope (or the route's page), spelled for its resource. */
export function replyError(
  reply: FastifyReply,
  e: unknown,
  requestId: string,
  resource: Resource,
  errorPage?: (status: number, lang: Language) => string,
  page?: PageRequest,
) {
  const r = errorReply(e, requestId, resource);
  reply.status(r.status).headers(r.headers);
  if (!errorPage) return reply.type('application/json; charset=utf-8').send(r.body);
  const { lang, headers } = pageLanguage(page ?? { query: () => undefined, headers: {} }, 'en');
  return reply.headers(headers).type('text/html; charset=utf-8').send(errorPage(r.status, lang));
}

async function admit(route: EdgeRoute, req: FastifyRequest, limiter: RateLimiter): Promise<Auth | null> {
  if (route.auth === 'key') {
    const auth = await authenticateRequest(req);
    if (route.scope) authorize({ requestId: req.requestId, auth }, route.scope);
    if (route.rateClass) await enforceRate(limiter, auth.workspaceId, route.rateClass);
    return auth;
  }
  if (route.rateClass) await enforceRate(limiter, clientBucket(req.ip), route.rateClass);
  return null;
}

export function mountEdgeRoutes(app: FastifyInstance, limiter: RateLimiter, routes: readonly EdgeRoute[]) {
  for (const route of routes) {
    app.route({
      method: route.method,
      url: route.url,
      handler: async (req, reply) => {
        const query = req.query as Record<string, string | string[] | undefined>;
        const queryOf = (name: string) => {
          const v = query[name];
          return Array.isArray(v) ? v[v.length - 1] : v;
        };
        try {
          const auth = await admit(route, req, limiter);
          const out = await route.handler({
            requestId: req.requestId,
            params: req.params as Record<string, string>,
            query: queryOf,
            json: () => (req.method === 'POST' ? parseJsonBody(rawBody(req), { allowEmpty: true }) : {}),
            rawBody: rawBody(req),
            headers: req.headers,
            auth: auth as never,
          });
          if (out.headers) reply.headers(out.headers);
          if ('redirect' in out)
            return reply
              .code(out.status ?? 302)
              .header('location', out.redirect)
              .send();
          if ('json' in out)
            return reply.type('application/json; charset=utf-8').send(envelope(req.requestId, out.json));
          return reply.type(out.contentType).send(out.body);
        } catch (e) {
          return replyError(reply, e, req.requestId, route.resource, route.errorPage, {
            query: queryOf,
            headers: req.headers,
          });
        }
      },
    });
  }
}
