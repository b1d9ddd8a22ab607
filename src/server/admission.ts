/**
 * The one admission pipeline (docs/architecture.md, "A request"). A GraphQL operation arrives as a
 * REST route, on POST/GET /graphql or over the socket; each transport reads its request and
 * answers in its own shape, and every one of them admits the operation by these steps, in this
 * order:
 *
 * 1. authenticate: the first credential kind the request carries (`credentials`);
 * 2. rate: the workspace's tokens for the root fields' declared classes;
 * 3. authorize: the declared scope of every mutation and subscription root field, so a key that may
 *    not run the operation learns nothing more (not whether an Idempotency-Key exists: docs/security.md);
 * 4. idempotency: the key the operation requires or was given, claimed or replayed;
 * 5. run, observed (metrics, traces); under a key the response is stored for its replays.
 *
 * What an operation needs is declared once on its root field (`admission`, src/graphql/operation.ts).
 */
import type { FastifyRequest } from 'fastify';
import { authenticate, recheck, type Auth } from '../core/auth/authenticate.ts';
import { assertScope } from '../core/auth/scopes.ts';
import type { Context } from '../core/context.ts';
import type { Resource } from '../core/errors.ts';
import { replayNotes, withIdempotency, type StoredResponse } from '../core/idempotency.ts';
import { enforceRate, type RateLimiter } from '../core/rate-limit.ts';
import type { RateClass } from '../core/config.ts';
import { idempotencyOf, type Operation } from '../graphql/operation.ts';
import { observed } from './observe.ts';
import { rawBody } from './edge.ts';
import { authenticateSession, cookieValue, recheckSession, SESSION_COOKIE } from '../auth/session.ts';

// ---- 1. authenticate -------------------------------------------------------------------------

/** What a request presents, whatever its transport: the signed target and body and its headers. */
export interface Presented {
  method: string;
  target: string;
  body: Buffer;
  header(name: string): string | undefined;
}

/**
 * A kind of credential: an API key's signature, or a member's dashboard session (a cookie); every
 * transport admits each the same way.
 */
export interface Credential {
  /** Whether the request carries this credential (its header or cookie is there). */
  presentIn(p: Presented): boolean;
  authenticate(p: Presented): Promise<Auth>;
  /** The same caller re-checked (revocation, a removed member): long-lived sockets ask every few seconds. */
  recheck(auth: Auth): Promise<Auth>;
}

export const apiKeySignature: Credential = {
  presentIn: (p) => p.header('authorization') !== undefined,
  authenticate: (p) =>
    authenticate({
      method: p.method,
      target: p.target,
      body: p.body,
      authorization: p.header('authorization'),
      timestamp: p.header('x-svc-timestamp'),
      onBehalfOf: p.header('x-svc-on-behalf-of'),
    }),
  recheck,
};

/** A member's dashboard session (src/auth/session.ts): its cookie, with the CSRF header on every request. */
export const dashboardSession: Credential = {
  presentIn: (p) => cookieValue(p.header('cookie'), SESSION_COOKIE) !== undefined,
  authenticate: authenticateSession,
  recheck: recheckSession,
};

// The first kind the request carries: a signature wins over a cookie the browser also sent.
const credentials: readonly Credential[] = [apiKeySignature, dashboardSession];

/** The caller and how to re-check it. Without any credential, the API key's answer names what is missing. */
export async function authenticatePresented(p: Presented): Promise<{ auth: Auth; credential: Credential }> {
  const credential = credentials.find((c) => c.presentIn(p)) ?? apiKeySignature;
  return { auth: await credential.authenticate(p), credential };
}

const header = (req: FastifyRequest, name: string) => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

export const presentedBy = (req: FastifyRequest): Presented => ({
  method: req.method,
  target: req.url,
  body: rawBody(req),
  header: (name) => header(req, name),
});

/** An HTTP request's caller (REST routes, /graphql, and the `key` routes of src/server/edge-route.ts). */
export const authenticateRequest = async (req: FastifyRequest): Promise<Auth> =>
  (await authenticatePresented(presentedBy(req))).auth;

// ---- 2-5. the operation ------------------------------------------------------------------------

/** The error spelling of an operation: its (first) root field's declared resource. */
export const resourceOf = (op: Operation): Resource => op.fields[0]?.resource ?? 'generic';

export interface Admit {
  /** The request's context, with its authenticated caller: marked admitted when the steps pass. */
  context: Context & { auth: Auth };
  operation: Operation;
  /** The transport took the `prepay` token before it could parse the operation. */
  prepaid?: boolean;
}

/** Step 2 for a document not parsed yet (/graphql, the socket): one `read` token, counted by `admit`. */
export const prepay = (limiter: RateLimiter, auth: Auth) => enforceRate(limiter, auth.workspaceId, 'read', 1);

/**
 * Steps 2 and 3: the rate tokens and the declared scopes. Only an admitted context executes
 * anything (yoga's own handling runs nothing without it: src/server/graphql.ts).
 */
export async function admit(limiter: RateLimiter, a: Admit): Promise<void> {
  const { operation } = a;
  const { auth } = a.context;
  const perClass = new Map<RateClass, number>();
  for (const f of operation.fields) perClass.set(f.rateClass, (perClass.get(f.rateClass) ?? 0) + 1);
  if (a.prepaid) perClass.set('read', (perClass.get('read') ?? 0) - 1);
  for (const [cls, n] of perClass) await enforceRate(limiter, auth.workspaceId, cls, n);
  if (operation.operation !== 'query') for (const f of operation.fields) if (f.scope) assertScope(auth, f.scope);
  a.context.admitted = true;
}

/** A transport's response: a JSON body stays a string until it is stored (Node then writes it with the headers). */
export type Response = Omit<StoredResponse, 'body'> & { body: Buffer | string };

export interface Run<R extends Response> {
  transport: 'rest' | 'graphql';
  operation: Operation;
  context: Context;
  /** The `Idempotency-Key` header (a mutation's `idempotencyKey` argument wins over it). */
  idempotencyHeader: string | undefined;
  /** Whether a result counts as a success in the operation metrics (a throw never does). */
  ok: (r: R) => boolean;
  /** The request's fingerprint under its key: the same request replays, another conflicts. */
  fingerprint: () => string;
  execute: () => Promise<R>;
  /** Under a key: a thrown client error as the response to store (a retryable one is rethrown). */
  asStored?: (e: unknown) => StoredResponse;
}

/**
 * Steps 4 and 5: the Idempotency-Key the operation requires or was given (its 400s), then the run,
 * observed; under a key, claimed first and its response stored.
 */
export async function run<R extends Response>(r: Run<R>): Promise<Response & { replayed: boolean }> {
  const { context, operation } = r;
  const resource = resourceOf(operation);
  const key = idempotencyOf(operation, r.idempotencyHeader, resource);
  const timed = () => observed(r.transport, operation, r.ok, r.execute);
  if (!key || !context.auth) return { ...(await timed()), replayed: false };
  context.idempotencyKey = key;
  context.replay = replayNotes();
  return withIdempotency(context.auth, key, r.fingerprint(), resource, context.replay, async () => {
    try {
      const { body, ...rest } = await timed();
      return { ...rest, body: typeof body === 'string' ? Buffer.from(body) : body };
    } catch (e) {
      if (r.asStored) return r.asStored(e);
      throw e;
    }
  });
}
