import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import { GraphQLError, Kind, type OperationDefinitionNode, type DocumentNode } from 'graphql';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { makeHandler } from 'graphql-ws/use/@fastify/websocket';
import { schema } from '../graphql/schema.ts';
import type { Context } from '../core/context.ts';
import { isDomainError, DomainError } from '../core/errors.ts';
import { authenticate } from '../core/auth/authenticate.ts';
import { newId } from '../core/ids.ts';
import { assertStorable, authenticateRequest, idempotencyKeyOf, rawBody } from './edge.ts';
import { withIdempotency } from '../core/idempotency.ts';
import { sha256Hex } from '../core/crypto.ts';
import { enforceRate, fieldRateClass, type RateLimiter } from '../core/rate-limit.ts';
import type { RateClass } from '../core/config.ts';
import { errorReply } from './envelope.ts';
import { logger } from '../core/logger.ts';
import { parseDocument } from '../graphql/parse.ts';

export type Yoga = YogaServerInstance<Record<string, never>, Context>;

export function createGraphQL(): Yoga {
  return createYoga<Record<string, never>, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: { title: 'svc GraphQL' },
    landingPage: false,
    logging: false,
    // Every parse, ours (parseCached) and yoga's (GET, batches), refuses absurdly nested documents.
    plugins: [{ onParse: ({ setParseFn }: { setParseFn: (fn: typeof parseDocument) => void }) => setParseFn(parseDocument) }],
    // Only DomainErrors reach clients; anything else becomes an opaque internal error.
    maskedErrors: {
      maskError: (error) => {
        const original = error instanceof GraphQLError ? error.originalError : error;
        if (isDomainError(original)) return original;
        if (error instanceof GraphQLError && !error.originalError) return error;
        // Variable coercion (missing or mistyped input field) wraps a GraphQLError and has no path: a client error, not a crash.
        if (error instanceof GraphQLError && !error.path && original instanceof GraphQLError) return error;
        // yoga's own logging is off (pino logs requests), so the masked cause is logged here.
        logger.error({ err: original ?? error }, 'unhandled error in a resolver');
        return new GraphQLError('Internal error; quote the X-Request-Id header', { extensions: { code: 'internal_error' } });
      },
    },
  });
}

/** The root field and its `idempotencyKey` argument, for rate classes and idempotency. */
export function rootFieldOf(doc: DocumentNode, operationName: string | undefined, variables: Record<string, unknown> | undefined) {
  const ops = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const op = operationName ? ops.find((o) => o.name?.value === operationName) : ops[0];
  const field = op?.selectionSet.selections.find((s) => s.kind === Kind.FIELD);
  if (!op || !field || field.kind !== Kind.FIELD) return null;
  const arg = field.arguments?.find((a) => a.name.value === 'idempotencyKey');
  let idempotencyKey: string | undefined;
  if (arg?.value.kind === Kind.STRING) idempotencyKey = arg.value.value;
  if (arg?.value.kind === Kind.VARIABLE) idempotencyKey = variables?.[arg.value.name.value] as string | undefined;
  const cls: RateClass = fieldRateClass[field.name.value] ?? (op.operation === 'query' ? 'read' : 'mutating_light');
  return { operation: op.operation, field: field.name.value, idempotencyKey, rateClass: cls };
}

// Clients send the same few documents over and over; parse each once (bounded, oldest out first).
const parsed = new Map<string, DocumentNode>();
function parseCached(query: string): DocumentNode {
  let doc = parsed.get(query);
  if (!doc) {
    doc = parseDocument(query);
    if (parsed.size >= 500) parsed.delete(parsed.keys().next().value!);
    parsed.set(query, doc);
  }
  return doc;
}

interface GraphQLBody {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
}

/** The body when it is one well-formed GraphQL request; null leaves the answer to yoga. */
function inspect(body: Buffer) {
  let json;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return null; // yoga answers malformed requests itself
  }
  if (!json || typeof json !== 'object' || typeof json.query !== 'string') return null;
  const variables = json.variables ?? null;
  if (variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) return null;
  if (json.operationName != null && typeof json.operationName !== 'string') return null;
  // Variables that PostgreSQL cannot store are the client's 400, as on REST.
  if (variables) assertStorable(variables);
  let document: DocumentNode;
  try {
    document = parseCached(json.query);
  } catch {
    return null;
  }
  const root = rootFieldOf(document, json.operationName ?? undefined, variables ?? undefined);
  return root && { ...root, document, request: json as GraphQLBody };
}

const plainJson = (req: FastifyRequest) =>
  (req.headers['content-type'] ?? '').startsWith('application/json') && /^$|application\/json|\*\/\*/.test(req.headers.accept ?? '');

/**
 * A single query or mutation posted as JSON runs in process, like a REST route: the fetch-API
 * round trip through yoga costs a third of the throughput (bench/). Anything else (GET, batches,
 * invalid documents, other media types) is yoga's.
 */
async function executeDirect(yoga: Yoga, context: Context, inspected: NonNullable<ReturnType<typeof inspect>>) {
  if (inspected.operation === 'subscription') return null;
  const { schema: s, validate, execute, contextFactory } = yoga.getEnveloped(context as never);
  if (validate(s, inspected.document).length) return null;
  const result = await execute({
    schema: s,
    document: inspected.document,
    operationName: inspected.request.operationName ?? undefined,
    variableValues: inspected.request.variables ?? undefined,
    contextValue: await contextFactory(),
  });
  if (Symbol.asyncIterator in result) throw new Error('incremental delivery is not enabled');
  return { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: Buffer.from(JSON.stringify(result)) };
}

/** POST /graphql: signed like REST; the header or the mutation argument makes it idempotent. */
export function mountGraphQL(app: FastifyInstance, yoga: Yoga, limiter: RateLimiter) {
  const http = async (req: FastifyRequest, reply: FastifyReply) => {
    const requestId = req.requestId;
    const wantsGraphiQL = req.method === 'GET' && (req.headers.accept ?? '').includes('text/html') && !req.headers.authorization;
    try {
      const auth = wantsGraphiQL || req.method === 'OPTIONS' ? null : await authenticateRequest(req);
      const body = rawBody(req);
      const root = req.method === 'POST' ? inspect(body) : null;
      if (auth) await enforceRate(limiter, auth.workspaceId, root?.rateClass ?? 'read');
      const key = root?.idempotencyKey ?? idempotencyKeyOf(req);
      const context = { requestId, auth, idempotencyKey: key } as Context;
      const run = async () => {
        const direct = root && auth && req.method === 'POST' && plainJson(req) ? await executeDirect(yoga, context, root) : null;
        if (direct) return direct;
        const init = { method: req.method, headers: req.headers as Record<string, string>, body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body };
        const res = await yoga.fetch(`http://internal${req.url}`, init as never, context as never);
        const headers: Record<string, string> = {};
        res.headers.forEach((v, k) => (headers[k] = v));
        return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()) };
      };
      const out = auth && key && root?.operation === 'mutation'
        ? await withIdempotency(auth, key, sha256Hex(Buffer.concat([Buffer.from('graphql\n'), body])), 'generic', run)
        : { ...(await run()), replayed: false };
      reply.status(out.status);
      for (const [k, v] of Object.entries(out.headers)) if (k !== 'content-length') reply.header(k, v);
      if (out.replayed) reply.header('idempotent-replayed', 'true');
      return reply.send(out.body);
    } catch (e) {
      const r = errorReply(e, requestId);
      const code = JSON.parse(r.body).error;
      return reply.status(r.status).headers(r.headers).type('application/json').send(JSON.stringify({ errors: [{ message: code.message, extensions: { code: code.code, ...(code.field ? { field: code.field } : {}) } }] }));
    }
  };

  // Subscriptions: connection_init carries {authorization, timestamp}, signed as GET /graphql.
  const ws = makeHandler<{ authorization?: string; timestamp?: string }, { auth?: Context['auth'] }>({
    onConnect: async (ctx) => {
      try {
        ctx.extra.auth = await authenticate({
          method: 'GET',
          target: '/graphql',
          body: Buffer.alloc(0),
          authorization: ctx.connectionParams?.authorization,
          timestamp: String(ctx.connectionParams?.timestamp ?? ''),
        });
        return true;
      } catch {
        return false;
      }
    },
    onSubscribe: async (ctx, _id, payload) => {
      const context: Context = { requestId: newId('request'), auth: ctx.extra.auth ?? null };
      const { schema: s, execute, subscribe, contextFactory, parse: p, validate } = yoga.getEnveloped(context as never);
      const document = p(payload.query);
      const errors = validate(s, document);
      if (errors.length) return errors;
      return {
        schema: s,
        document,
        operationName: payload.operationName,
        variableValues: payload.variables,
        contextValue: await contextFactory(),
        rootValue: { execute, subscribe },
      };
    },
    execute: (args) => (args.rootValue as { execute: typeof import('graphql').execute }).execute(args),
    subscribe: (args) => (args.rootValue as { subscribe: typeof import('graphql').subscribe }).subscribe(args),
  });

  app.route({ method: 'GET', url: '/graphql', handler: http, wsHandler: ws as never });
  app.route({ method: ['POST', 'OPTIONS'], url: '/graphql', handler: http });
}

export { DomainError };
