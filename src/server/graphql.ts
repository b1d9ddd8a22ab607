import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import { GraphQLError, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SubscribePayload } from 'graphql-ws';
import { makeHandler } from 'graphql-ws/use/@fastify/websocket';
import type { Context } from '../core/context.ts';
import { isDomainError, DomainError } from '../core/errors.ts';
import type { Auth } from '../core/auth/authenticate.ts';
import { newId } from '../core/ids.ts';
import { assertStorable, idempotencyKeyOf, rawBody } from './edge.ts';
import { isInDoubt, isRetryable, type StoredResponse } from '../core/idempotency.ts';
import { sha256Hex } from '../core/crypto.ts';
import type { RateLimiter } from '../core/rate-limit.ts';
import { config } from '../core/config.ts';
import { errorReply } from './envelope.ts';
import { asUnavailable } from '../core/db/unavailable.ts';
import { logger } from '../core/logger.ts';
import { assertCost } from '../graphql/cost.ts';
import { documentCache, noErrorCache, parseCached, parseDocument } from '../graphql/parse.ts';
import { operationOf, variableError } from '../graphql/operation.ts';
import type { Resource } from '../core/errors.ts';
import { compiledFor, interpreting, runCompiled } from '../graphql/jit.ts';
import {
  admit,
  authenticatePresented,
  authenticateRequest,
  resourceOf,
  type AdmitSteps,
  type Credential,
} from './admission.ts';
import { sendGraphiQL } from './graphiql.ts';

/** Responses whose result carried GraphQL errors (for the operation metrics: `observed`). */
const withErrors = new WeakSet<object>();

export type Yoga = YogaServerInstance<Record<string, never>, Context>;

const notAdmitted = () =>
  new GraphQLError(
    'Send operations as a JSON POST (or a GET with query parameters) to /graphql; subscriptions over graphql-ws',
    {
      extensions: { code: 'unsupported_media_type' },
    },
  );

/** Runs nothing unless the context came through one of the transports' own pipelines. */
const admittedOnly = ({
  args,
  setResultAndStopExecution,
}: {
  args: { contextValue: unknown };
  setResultAndStopExecution: (r: ExecutionResult) => void;
}) => {
  if (!(args.contextValue as Context).admitted) setResultAndStopExecution({ errors: [notAdmitted()] });
};
/**
 * Queries and mutations a client sends again run compiled (src/graphql/jit.ts). Inside yoga's
 * pipeline, so masking, `admittedOnly` and error shapes stay those of every other execution;
 * subscriptions keep graphql-js's subscribe.
 */
const compiledExecution = {
  onExecute: ({
    args,
    executeFn,
    setExecuteFn,
  }: {
    args: ExecutionArgs;
    executeFn: (a: ExecutionArgs) => Promise<ExecutionResult>;
    setExecuteFn: (fn: (a: ExecutionArgs) => Promise<ExecutionResult>) => void;
  }) => {
    if (interpreting.has(args.contextValue as object)) return; // the compiled run already failed on its variables
    const compiled = compiledFor(args.schema, args.document, args.operationName);
    if (compiled) setExecuteFn((a) => runCompiled(compiled, a, () => executeFn(a)));
  },
};

/** yoga over the assembled schema (schema/index.ts, handed in by the composition: app/server.ts). */
export function createGraphQL(schema: GraphQLSchema): Yoga {
  return createYoga<Record<string, never>, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    // GraphiQL is ours (src/server/graphiql.ts): served offline, and it signs.
    graphiql: false,
    landingPage: false,
    // No CORS (docs/decisions.md, Cross-origin requests): yoga's default reflects any Origin with credentials,
    // which let a page elsewhere read answers made with a member's cookie. The dashboard is same-origin.
    cors: false,
    logging: false,
    parserAndValidationCache: { documentCache, errorCache: noErrorCache },
    plugins: [
      // Every parse, ours and yoga's (its fallbacks), goes through the document limits.
      { onParse: ({ setParseFn }: { setParseFn: (fn: typeof parseDocument) => void }) => setParseFn(parseDocument) },
      // Only the transports' own pipelines execute (auth, rate per root field, idempotency, limits):
      // a request yoga would run by itself (another media type, say) runs nothing.
      { onExecute: admittedOnly, onSubscribe: admittedOnly } as never,
      compiledExecution as never,
    ],
    // Only DomainErrors reach clients; anything else becomes an opaque internal error.
    maskedErrors: {
      maskError: (error) => {
        const original = error instanceof GraphQLError ? error.originalError : error;
        if (isDomainError(original)) return original;
        const unavailable = asUnavailable(original);
        if (unavailable) return unavailable;
        if (error instanceof GraphQLError && !error.originalError) return error;
        // Variable coercion (missing or mistyped input field) wraps a GraphQLError and has no path: a client error, not
        // a crash.
        if (error instanceof GraphQLError && !error.path && original instanceof GraphQLError) return error;
        // yoga's own logging is off (pino logs requests), so the masked cause is logged here.
        logger.error({ err: original ?? error }, 'unhandled error in a resolver');
        return new GraphQLError('Internal error; quote the X-Request-Id header', {
          extensions: { code: 'internal_error' },
        });
      },
    },
  });
}

interface GraphQLRequest {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
}

/** One GraphQL request from a JSON POST body or GET parameters; null leaves the (error) answer to yoga. */
function readRequest(req: FastifyRequest): GraphQLRequest | null {
  let json;
  try {
    if (req.method === 'GET') {
      const q = req.query as Record<string, unknown>;
      json = {
        query: q.query,
        operationName: q.operationName,
        variables: typeof q.variables === 'string' ? JSON.parse(q.variables) : q.variables,
      };
    } else {
      if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return null;
      json = JSON.parse(rawBody(req).toString('utf8'));
    }
  } catch {
    return null; // yoga answers malformed requests itself
  }
  if (!json || typeof json !== 'object' || Array.isArray(json) || typeof json.query !== 'string') return null;
  const variables = json.variables ?? null;
  if (variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) return null;
  if (json.operationName != null && typeof json.operationName !== 'string') return null;
  return { query: json.query, operationName: json.operationName ?? null, variables };
}

/**
 * Parse (limits included), validate and find the operation: the same for HTTP and the socket.
 * Throws the client's error: a DomainError or GraphQL errors (400).
 */
function prepare(yoga: Yoga, context: Context, request: GraphQLRequest) {
  const document = parseCached(request.query);
  const enveloped = yoga.getEnveloped(context as never);
  const errors = enveloped.validate(enveloped.schema, document);
  if (errors.length) throw new GraphQLErrors(errors);
  assertCost(enveloped.schema, document, request.operationName, request.variables);
  const operation = operationOf(enveloped.schema, document, request.operationName, request.variables);
  if (!operation)
    throw new GraphQLErrors([new GraphQLError('Could not determine the operation to run: name it with operationName')]);
  return { document, operation, enveloped };
}

/** A request the pipeline does not read (not a JSON POST, not a GET with a query): yoga answers it. */
class Unread extends Error {
  constructor(readonly context: Context & { auth: Auth }) {
    super('not a GraphQL request this pipeline reads');
  }
}

/** A subscribe's arguments and what it opened: the event stream, or the errors that refused it. */
interface Subscribed {
  args: ExecutionArgs;
  stream: ExecutionResult | AsyncIterable<ExecutionResult>;
}

class GraphQLErrors extends Error {
  constructor(readonly errors: readonly GraphQLError[]) {
    super(errors[0]?.message);
  }
}

const json = { 'content-type': 'application/json; charset=utf-8' };

type Prepared = ReturnType<typeof prepare>;
/** What a subscribe reads of its connection: the caller authenticated at connection_init, and the socket. */
type SocketContext = {
  extra: { auth?: Auth; credential?: Credential; socket: { close(code: number, reason: string): void } };
};
type ExecuteResponse = Omit<StoredResponse, 'body'> & { body: string };

/** Any failure before or around execution, as GraphQL answers it: `{errors}` with the HTTP status of the error. */
function errorResponse(e: unknown, requestId: string) {
  if (e instanceof GraphQLErrors || (e instanceof GraphQLError && !isDomainError(e))) {
    const errors = e instanceof GraphQLErrors ? e.errors : [e];
    const code = /^Syntax Error/.test(errors[0]?.message ?? '') ? 'GRAPHQL_PARSE_FAILED' : 'GRAPHQL_VALIDATION_FAILED';
    const body = { errors: errors.map((x) => ({ ...x.toJSON(), extensions: { code, ...x.extensions } })) };
    return { status: 400, headers: json as Record<string, string>, body: JSON.stringify(body) };
  }
  const r = errorReply(e, requestId);
  const error = JSON.parse(r.body).error;
  const body = {
    errors: [
      {
        message: error.message,
        // A DomainError's own extensions (the document cost's `cost`, `maxCost`) travel with it.
        extensions: {
          ...(isDomainError(e) ? e.extensions : {}),
          code: error.code,
          ...(error.field ? { field: error.field } : {}),
        },
      },
    ],
  };
  return { status: r.status, headers: { ...json, ...r.headers }, body: JSON.stringify(body) };
}

/** A request yoga answers itself (CORS preflight, a body that is not GraphQL's): it runs nothing. */
async function viaYoga(yoga: Yoga, req: FastifyRequest, reply: FastifyReply, context: Context) {
  const init = {
    method: req.method,
    headers: req.headers as Record<string, string>,
    body: req.method === 'GET' || req.method === 'HEAD' ? undefined : rawBody(req),
  };
  const res = await yoga.fetch(`http://internal${req.url}`, init as never, context as never);
  reply.status(res.status);
  res.headers.forEach((v, k) => {
    if (k !== 'content-length') reply.header(k, v);
  });
  return reply.send(Buffer.from(await res.arrayBuffer()));
}

/** One POST/GET /graphql request: its document read and prepared at the operation step. */
interface HttpInput {
  req: FastifyRequest;
  /** Set at the operation step. */
  request?: GraphQLRequest;
  prepared?: Prepared;
}

/** The admission steps of POST and GET /graphql (admission.ts): signed like REST, idempotent by header. */
function httpSteps(yoga: Yoga, limiter: RateLimiter): AdmitSteps<HttpInput, ExecuteResponse> {
  return {
    transport: 'graphql',
    limiter,
    parses: true,
    authenticate: (i) => authenticateRequest(i.req),
    operation: (i, context) => {
      // Not a JSON POST or a GET with query parameters: yoga answers it (running nothing).
      const request = readRequest(i.req);
      if (!request) throw new Unread(context);
      // Variables that PostgreSQL cannot store are the client's 400, as on REST.
      if (request.variables) assertStorable(request.variables);
      i.request = request;
      i.prepared = prepare(yoga, context, request);
      const { operation } = i.prepared;
      if (operation.operation === 'subscription')
        throw new DomainError('method_not_allowed', 'Subscriptions run over graphql-ws on /graphql');
      if (operation.operation === 'mutation' && i.req.method !== 'POST')
        throw new DomainError('method_not_allowed', 'Mutations must be sent with POST');
      return operation;
    },
    idempotencyHeader: (i) => idempotencyKeyOf(i.req),
    fingerprint: (i) => sha256Hex(Buffer.concat([Buffer.from('graphql\n'), rawBody(i.req)])),
    // DECISIONS §8: GraphQL speaks each resource's codes (IDEMPOTENCY_MISMATCH on createPlan).
    execute: ({ prepared, request }, context) =>
      execute(prepared!.enveloped, context, prepared!.document, request!, resourceOf(prepared!.operation)),
    ok: (r) => !withErrors.has(r),
  };
}

/** The handler of /graphql over HTTP: GraphiQL for a browser, else the admitted operation's answer. */
function httpHandler(yoga: Yoga, steps: AdmitSteps<HttpInput, ExecuteResponse>) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const requestId = req.requestId;
    const wantsGraphiQL =
      req.method === 'GET' && (req.headers.accept ?? '').includes('text/html') && !req.headers.authorization;
    if (wantsGraphiQL) return sendGraphiQL(reply);
    if (req.method === 'OPTIONS') return viaYoga(yoga, req, reply, { requestId, auth: null });
    try {
      const out = await admit(steps, requestId, { req });
      const { status, headers, body } = out.result;
      reply.status(status);
      for (const [k, v] of Object.entries(headers)) if (k !== 'content-length') reply.header(k, v);
      if (out.replayed) reply.header('idempotent-replayed', 'true');
      return reply.send(body);
    } catch (e) {
      if (e instanceof Unread) return viaYoga(yoga, req, reply, e.context);
      const r = errorResponse(e, requestId);
      return reply.status(r.status).headers(r.headers).send(r.body);
    }
  };
}

/** Runs a prepared query or mutation in yoga's pipeline; its response as the idempotency store keeps it. */
async function execute(
  enveloped: ReturnType<Yoga['getEnveloped']>,
  context: Context,
  document: DocumentNode,
  request: GraphQLRequest,
  resource: Resource,
): Promise<ExecuteResponse> {
  const result: ExecutionResult | AsyncIterable<unknown> = await enveloped.execute({
    schema: enveloped.schema,
    document,
    operationName: request.operationName ?? undefined,
    variableValues: request.variables ?? undefined,
    contextValue: await enveloped.contextFactory(),
  });
  if (Symbol.asyncIterator in result) throw new Error('incremental delivery is not enabled');
  // Variable coercion fails before execution (no `data`): the same coded 400 error as on REST.
  if (result.data === undefined && result.errors?.length)
    result.errors = result.errors.map((e) => variableError(e, resource));
  // A provider error or a rate limit inside a 200 response is still retryable: never stored.
  const retryable = !!result.errors?.some((e: GraphQLError) => isRetryable(e));
  const inDoubt = !!result.errors?.some((e: GraphQLError) => isInDoubt(e));
  const out = { status: 200, headers: json, body: JSON.stringify(result), retryable, inDoubt };
  if (result.errors?.length) withErrors.add(out);
  return out;
}

// Subscriptions: connection_init carries {authorization, timestamp}, signed as GET /graphql.
const forbidden = (ctx: SocketContext) => ctx.extra.socket.close(4403, 'Forbidden: the API key is no longer valid');
// A re-check that got no answer (the database is away: a failover) is not a revocation: the socket
// keeps its last grant until a re-check gets one.
const refused = (ctx: SocketContext, e: unknown) => asUnavailable(e, 'graphql-ws') || forbidden(ctx);

/** One subscribe over the socket: its connection, its message's payload, and what was prepared from it. */
interface SocketInput {
  socket: SocketContext;
  payload: SubscribePayload;
  /** Set at the operation step. */
  prepared?: Prepared;
}

/** The admission steps of a subscribe over graphql-ws: the socket's caller re-checked, subscriptions only. */
function socketSteps(yoga: Yoga, limiter: RateLimiter): AdmitSteps<SocketInput, Subscribed> {
  return {
    transport: 'socket',
    limiter,
    parses: true,
    // The socket's caller, re-checked: a revoked key closes the socket; an unanswered re-check is 503.
    authenticate: ({ socket }) =>
      socket.extra.credential!.recheck(socket.extra.auth!).catch((e) => {
        const unavailable = asUnavailable(e, 'graphql-ws');
        if (unavailable) throw unavailable;
        forbidden(socket);
        throw new GraphQLError('The API key is no longer valid', { extensions: { code: 'invalid_key' } });
      }),
    operation: (i, context) => {
      const request = {
        query: String(i.payload.query ?? ''),
        operationName: i.payload.operationName,
        variables: i.payload.variables,
      };
      if (request.variables) assertStorable(request.variables);
      i.prepared = prepare(yoga, context, request);
      // Queries and mutations run on POST /graphql (their idempotency and responses are HTTP's).
      if (i.prepared.operation.operation !== 'subscription')
        throw new DomainError(
          'method_not_allowed',
          'Only subscriptions run over the socket; send queries and mutations to POST /graphql',
        );
      return i.prepared.operation;
    },
    // The subscribe itself is what is observed: its source stream opened, or its errors.
    execute: async ({ prepared, payload }) => {
      const { enveloped, document } = prepared!;
      const args = {
        schema: enveloped.schema,
        document,
        operationName: payload.operationName,
        variableValues: payload.variables,
        contextValue: await enveloped.contextFactory(),
      };
      return { args, stream: await enveloped.subscribe(args) };
    },
    ok: (r) => Symbol.asyncIterator in r.stream,
  };
}

/** The graphql-ws handler: connection_init authenticates (and re-checks on a timer); each subscribe is admitted. */
function socketHandler(steps: AdmitSteps<SocketInput, Subscribed>) {
  return makeHandler<
    { authorization?: string; timestamp?: string; csrf?: string; mode?: string },
    { auth?: Auth; credential?: Credential; recheck?: NodeJS.Timeout; request: FastifyRequest }
  >({
    onConnect: async (ctx) => {
      const params = ctx.connectionParams;
      const headers: Record<string, string | undefined> = {
        authorization: params?.authorization,
        'x-svc-timestamp': String(params?.timestamp ?? ''),
        cookie: ctx.extra.request.headers.cookie,
        // A dashboard session's socket (src/auth/session.ts): its CSRF token and mode travel in connection_init.
        'x-svc-csrf': params?.csrf,
        'x-svc-mode': params?.mode,
      };
      try {
        const { auth, credential } = await authenticatePresented({
          method: 'GET',
          target: '/graphql',
          body: Buffer.alloc(0),
          header: (name) => headers[name],
        });
        ctx.extra.auth = auth;
        ctx.extra.credential = credential;
        // Revocation (or a removed member, an archived workspace) closes the socket within seconds.
        ctx.extra.recheck = setInterval(() => {
          credential.recheck(auth).then(
            (fresh) => void (ctx.extra.auth = fresh),
            (e) => refused(ctx, e),
          );
        }, config.keyCacheMs).unref();
        return true;
      } catch (e) {
        // 1013 "try again later" (clients reconnect), not graphql-ws's 4403 Forbidden.
        if (asUnavailable(e, 'graphql-ws'))
          ctx.extra.socket.close(1013, 'Try again later: the database is unavailable');
        return false;
      }
    },
    onClose: (ctx) => clearInterval(ctx.extra.recheck),
    onSubscribe: async (ctx, _id, payload) => {
      // Counted before any await: ids in flight count too, so a burst cannot pass the cap.
      if (Object.keys(ctx.subscriptions).length > config.maxSubscriptionsPerSocket) {
        return [
          new DomainError('rate_limited', `At most ${config.maxSubscriptionsPerSocket} subscriptions per connection`),
        ];
      }
      try {
        const { result } = await admit(steps, newId('request'), { socket: ctx, payload });
        // Subscriptions never take an Idempotency-Key: the result is the run's own.
        const { args, stream } = result as Subscribed;
        return { ...args, rootValue: { stream } };
      } catch (e) {
        if (e instanceof GraphQLErrors) return e.errors;
        if (e instanceof GraphQLError) return [e];
        const unavailable = asUnavailable(e);
        if (unavailable) return [unavailable];
        logger.error({ err: e }, 'unhandled error in a subscribe');
        return [new GraphQLError('Internal error', { extensions: { code: 'internal_error' } })];
      }
    },
    // Subscribed in `admit` above (observed there): graphql-ws reads the stream (or the errors) it opened.
    subscribe: (args) => (args.rootValue as { stream: Subscribed['stream'] }).stream,
  });
}

/** POST and GET /graphql: signed like REST; the header or the mutation argument makes it idempotent. */
export function mountGraphQL(app: FastifyInstance, yoga: Yoga, limiter: RateLimiter) {
  const http = httpHandler(yoga, httpSteps(yoga, limiter));
  const ws = socketHandler(socketSteps(yoga, limiter));
  app.route({ method: 'GET', url: '/graphql', handler: http, wsHandler: ws as never });
  app.route({ method: ['POST', 'OPTIONS'], url: '/graphql', handler: http });
}

export { DomainError };
