/**
 * The one admission pipeline (docs/architecture.md, "A request"). A GraphQL operation arrives as a
 * REST route, on POST/GET /graphql or over the socket; each transport reads its request and
 * answers in its own shape, and every one of them calls `admit`, which takes these steps in this
 * order:
 *
 * 1. authenticate: the first credential kind the request carries (`credentials`);
 * 2. scope: the declared scope of every mutation and subscription root field, so a key that may
 *    not run the operation learns nothing more (not whether an Idempotency-Key exists: docs/security.md);
 * 3. rate: the workspace's tokens for the root fields' declared classes (a transport that parses
 *    its document pays the first `read` token before parsing, docs/decisions.md, Rate limits);
 * 4. idempotency: the key the operation requires or was given, claimed or replayed;
 * 5. observe: the run timed into the operation metrics and traced;
 * 6. store: under a key, the response is stored for its replays.
 *
 * What an operation needs is declared once on its root field (`admission`, src/graphql/operation.ts).
 */
import type { FastifyRequest } from 'fastify';
import { authenticate, recheck, type Auth } from '../core/auth/authenticate.ts';
import { assertScope } from '../core/auth/scopes.ts';
import type { Context } from '../core/context.ts';
import type { Resource } from '../core/errors.ts';
import { isRetryable, replayNotes, withIdempotency, type StoredResponse } from '../core/idempotency.ts';
import { errorReply } from './envelope.ts';
import { enforceRate, type RateLimiter } from '../core/rate-limit.ts';
import type { RateClass } from '../core/config.ts';
import { idempotencyOf, type Operation } from '../graphql/operation.ts';
import type { Transport } from '../core/metrics.ts';
import { observe } from './observe.ts';
import { rawBody } from './edge.ts';
import { authenticateSession, cookieValue, recheckSession, SESSION_COOKIE } from '../auth/session.ts';

// ---- 1. authenticate -------------------------------------------------------------------------

/** What a request presents, whatever its transport: the signed target and body and its headers. */
export interface Presented {
  method: string;
  target: string;
  body: Buffer;
  /** A streamed body (an upload): its declared hash is signed instead of `body`'s. */
  bodySha256?: string;
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
      bodySha256: p.bodySha256,
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

/** An HTTP request as presented: a class, so a request allocates one object and no closure. */
class PresentedRequest implements Presented {
  readonly method: string;
  readonly target: string;
  readonly body: Buffer;
  constructor(private readonly req: FastifyRequest) {
    this.method = req.method;
    this.target = req.url;
    this.body = rawBody(req);
  }
  header(name: string): string | undefined {
    const v = this.req.headers[name];
    return Array.isArray(v) ? v[0] : v;
  }
}

export const presentedBy = (req: FastifyRequest): Presented => new PresentedRequest(req);

/** An HTTP request's caller (REST routes, /graphql, and the `key` routes of src/server/edge-route.ts). */
export const authenticateRequest = async (req: FastifyRequest): Promise<Auth> =>
  (await authenticatePresented(presentedBy(req))).auth;

// ---- 2-6. the operation ------------------------------------------------------------------------

/** The error spelling of an operation: its (first) root field's declared resource. */
export const resourceOf = (op: Operation): Resource => op.fields[0]?.resource ?? 'generic';

/** A transport's response: a JSON body stays a string until it is stored (Node then writes it with the headers). */
export type Response = Omit<StoredResponse, 'body'> & { body: Buffer | string };

/**
 * How a transport reads its request at each step of `admit`, and runs the operation. Built once per
 * route (or transport); `I` is one request's input, passed to every step (no closures per request).
 */
export interface AdmitSteps<I, R> {
  transport: Transport;
  limiter: RateLimiter;
  /** The operation is parsed from the request (/graphql, the socket): one `read` token is taken first. */
  parses: boolean;
  /** Step 1: the caller (an HTTP request's credential; the socket's, re-checked). */
  authenticate(input: I): Promise<Auth>;
  /** The operation to admit, for the authenticated context (REST: its route's; else parsed and validated). */
  operation(input: I, context: Context & { auth: Auth }): Operation;
  /** Once admitted, before any key is claimed: what else the run reads from the request (REST's variables). */
  read?(input: I): void;
  /** The `Idempotency-Key` header (a mutation's `idempotencyKey` argument wins over it). */
  idempotencyHeader?(input: I): string | undefined;
  /** The request's fingerprint under its key: the same request replays, another conflicts. */
  fingerprint?(input: I): string;
  execute(input: I, context: Context & { auth: Auth }): Promise<R>;
  /** Whether a result counts as a success in the operation metrics (a throw never does). */
  ok(r: R): boolean;
  /** Under a key: a thrown client error as the response to store (a retryable one is rethrown). */
  asStored?(input: I, e: unknown): StoredResponse;
}

/** The run's result; under a key, the stored response (replayed or just stored). */
export type Admitted<R> = { result: R; replayed: false } | { result: StoredResponse; replayed: boolean };

/** One `read` token before a document is parsed (parsing costs): counted as the operation's first. */
const prepay = (limiter: RateLimiter, auth: Auth) => enforceRate(limiter, auth.workspaceId, 'read', 1);

/** Steps 1-6 for one request: throws the client's error (or the run's) at the step that refused it. */
export async function admit<I, R>(steps: AdmitSteps<I, R>, requestId: string, input: I): Promise<Admitted<R>> {
  const auth = await steps.authenticate(input);
  const context: Context & { auth: Auth } = { requestId, auth };
  if (steps.parses) await prepay(steps.limiter, auth);
  const operation = steps.operation(input, context);
  if (operation.operation !== 'query') for (const f of operation.fields) if (f.scope) assertScope(auth, f.scope);
  await takeTokens(steps.limiter, auth, operation, steps.parses);
  // Only an admitted context executes anything (yoga's own handling runs nothing without it).
  context.admitted = true;
  context.takeTokens = (cls, n) => enforceRate(steps.limiter, auth.workspaceId, cls, n);
  steps.read?.(input);
  const resource = resourceOf(operation);
  const key = idempotencyOf(operation, steps.idempotencyHeader?.(input), resource);
  if (!key) return { result: await observed(steps, operation, input, context), replayed: false };
  context.idempotencyKey = key;
  context.replay = replayNotes();
  const { replayed, ...result } = await withIdempotency(
    auth,
    key,
    steps.fingerprint?.(input) ?? '',
    resource,
    context.replay,
    async () => {
      try {
        return asStoredResponse(await observed(steps, operation, input, context));
      } catch (e) {
        if (steps.asStored) return steps.asStored(input, e);
        throw e;
      }
    },
  );
  return { result, replayed };
}

/** Step 3: one token per root field in its declared class, less the one paid before parsing. */
async function takeTokens(limiter: RateLimiter, auth: Auth, operation: Operation, prepaid: boolean) {
  const fields = operation.fields;
  // The common case, one root field: its one token, without a map.
  if (fields.length === 1) {
    if (!(prepaid && fields[0].rateClass === 'read'))
      await enforceRate(limiter, auth.workspaceId, fields[0].rateClass, 1);
    return;
  }
  const perClass = new Map<RateClass, number>();
  for (const f of fields) perClass.set(f.rateClass, (perClass.get(f.rateClass) ?? 0) + 1);
  if (prepaid) perClass.set('read', (perClass.get('read') ?? 0) - 1);
  for (const [cls, n] of perClass) if (n > 0) await enforceRate(limiter, auth.workspaceId, cls, n);
}

/** What is stored under a key: the body as bytes. */
function asStoredResponse(r: unknown): StoredResponse {
  const { body, ...rest } = r as Response;
  return { ...rest, body: typeof body === 'string' ? Buffer.from(body) : body };
}

/** Step 5: the run, timed into the operation metrics and traced (src/server/observe.ts). */
const observed = <I, R>(steps: AdmitSteps<I, R>, operation: Operation, input: I, context: Context & { auth: Auth }) =>
  observe(steps.transport, operation, steps.ok, () => steps.execute(input, context));

/** Under a key, a client error is stored and replayed like a success; a retryable one releases the key. */
export function asStored(e: unknown, requestId: string, resource: Resource): StoredResponse {
  if (isRetryable(e)) throw e;
  const r = errorReply(e, requestId, resource);
  return {
    status: r.status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...r.headers },
    body: Buffer.from(r.body),
  };
}
