import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import { GraphQLError, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { makeHandler } from 'graphql-ws/use/@fastify/websocket';
import { schema } from '../../schema/index.ts';
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
  prepay,
  resourceOf,
  run,
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

export function createGraphQL(): Yoga {
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

class GraphQLErrors extends Error {
  constructor(readonly errors: readonly GraphQLError[]) {
    super(errors[0]?.message);
  }
}

const json = { 'content-type': 'application/json; charset=utf-8' };

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

/** POST and GET /graphql: signed like REST; the header or the mutation argument makes it idempotent. */
export function mountGraphQL(app: FastifyInstance, yoga: Yoga, limiter: RateLimiter) {
  const viaYoga = async (req: FastifyRequest, reply: FastifyReply, context: Context) => {
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
  };

  const http = async (req: FastifyRequest, reply: FastifyReply) => {
    const requestId = req.requestId;
    const wantsGraphiQL =
      req.method === 'GET' && (req.headers.accept ?? '').includes('text/html') && !req.headers.authorization;
    if (wantsGraphiQL) return sendGraphiQL(reply);
    if (req.method === 'OPTIONS') return viaYoga(req, reply, { requestId, auth: null });
    try {
      const auth = await authenticateRequest(req);
      // One token before any parsing; the rest per root field once the operation is known.
      await prepay(limiter, auth);
      const request = readRequest(req);
      if (!request) return viaYoga(req, reply, { requestId, auth });
      // Variables that PostgreSQL cannot store are the client's 400, as on REST.
      if (request.variables) assertStorable(request.variables);
      const context: Context & { auth: Auth } = { requestId, auth };
      const { document, operation, enveloped } = prepare(yoga, context, request);
      if (operation.operation === 'subscription')
        throw new DomainError('method_not_allowed', 'Subscriptions run over graphql-ws on /graphql');
      if (operation.operation === 'mutation' && req.method !== 'POST')
        throw new DomainError('method_not_allowed', 'Mutations must be sent with POST');
      // DECISIONS §8: GraphQL speaks each resource's codes (IDEMPOTENCY_MISMATCH on createPlan).
      const resource = resourceOf(operation);
      await admit(limiter, { context, operation, prepaid: true });
      const out = await run({
        transport: 'graphql',
        operation,
        context,
        idempotencyHeader: idempotencyKeyOf(req),
        ok: (r) => !withErrors.has(r),
        fingerprint: () => sha256Hex(Buffer.concat([Buffer.from('graphql\n'), rawBody(req)])),
        execute: () => execute(enveloped, context, document, request, resource),
      });
      reply.status(out.status);
      for (const [k, v] of Object.entries(out.headers)) if (k !== 'content-length') reply.header(k, v);
      if (out.replayed) reply.header('idempotent-replayed', 'true');
      return reply.send(out.body);
    } catch (e) {
      const r = errorResponse(e, requestId);
      return reply.status(r.status).headers(r.headers).send(r.body);
    }
  };

  async function execute(
    enveloped: ReturnType<Yoga['getEnveloped']>,
    context: Context,
    document: DocumentNode,
    request: GraphQLRequest,
    resource: Resource,
  ): Promise<Omit<StoredResponse, 'body'> & { body: string }> {
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
  const forbidden = (ctx: { extra: { socket: { close(code: number, reason: string): void } } }) =>
    ctx.extra.socket.close(4403, 'Forbidden: the API key is no longer valid');
  // A re-check that got no answer (the database is away: a failover) is not a revocation: the socket
  // keeps its last grant until a re-check gets one.
  const refused = (ctx: Parameters<typeof forbidden>[0], e: unknown) =>
    asUnavailable(e, 'graphql-ws') || forbidden(ctx);
  const ws = makeHandler<
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
      let auth: Auth;
      try {
        auth = await ctx.extra.credential!.recheck(ctx.extra.auth!);
      } catch (e) {
        const unavailable = asUnavailable(e, 'graphql-ws');
        if (unavailable) return [unavailable];
        forbidden(ctx);
        return [new GraphQLError('The API key is no longer valid', { extensions: { code: 'invalid_key' } })];
      }
      const context: Context & { auth: Auth } = { requestId: newId('request'), auth };
      try {
        // One token before any parsing, as on POST /graphql.
        await prepay(limiter, auth);
        const request = {
          query: String(payload.query ?? ''),
          operationName: payload.operationName,
          variables: payload.variables,
        };
        if (request.variables) assertStorable(request.variables);
        const { document, operation, enveloped } = prepare(yoga, context, request);
        // Queries and mutations run on POST /graphql (their idempotency and responses are HTTP's).
        if (operation.operation !== 'subscription')
          throw new DomainError(
            'method_not_allowed',
            'Only subscriptions run over the socket; send queries and mutations to POST /graphql',
          );
        await admit(limiter, { context, operation, prepaid: true });
        return {
          schema: enveloped.schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue: await enveloped.contextFactory(),
          rootValue: { subscribe: enveloped.subscribe },
        };
      } catch (e) {
        if (e instanceof GraphQLErrors) return e.errors;
        if (e instanceof GraphQLError) return [e];
        const unavailable = asUnavailable(e);
        if (unavailable) return [unavailable];
        logger.error({ err: e }, 'unhandled error in a subscribe');
        return [new GraphQLError('Internal error', { extensions: { code: 'internal_error' } })];
      }
    },
    subscribe: (args) => (args.rootValue as { subscribe: typeof import('graphql').subscribe }).subscribe(args),
  });

  app.route({ method: 'GET', url: '/graphql', handler: http, wsHandler: ws as never });
  app.route({ method: ['POST', 'OPTIONS'], url: '/graphql', handler: http });
}

export { DomainError };
