import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parse, validate, type DocumentNode, type GraphQLError, type GraphQLSchema } from 'graphql';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { routes, type Route } from './routes.ts';
import type { Yoga } from '../src/server/graphql.ts';
import { assertStorable, idempotencyKeyOf, parseJsonBody, rawBody } from '../src/server/edge.ts';
import {
  admit,
  asStored,
  authenticateRequest,
  resourceOf,
  type AdmitSteps,
  type Response,
} from '../src/server/admission.ts';
import { envelope } from '../src/server/envelope.ts';
import { replyError } from '../src/server/edge-route.ts';
import { isDomainError, type Resource } from '../src/core/errors.ts';
import type { RateLimiter } from '../src/core/rate-limit.ts';
import { coercionError, operationOf, type Operation } from '../src/graphql/operation.ts';
import { compiledFor, runCompiled } from '../src/graphql/jit.ts';
import { sha256Hex } from '../src/core/crypto.ts';
import type { Context } from '../src/core/context.ts';

const operationsDir = join(import.meta.dirname, 'operations');

/** Every operation document, parsed once; each route's document holds its operation and fragments. */
export function loadOperations(schema: GraphQLSchema): Map<string, DocumentNode> {
  const source = readdirSync(operationsDir)
    .filter((f) => f.endsWith('.graphql'))
    .map((f) => readFileSync(join(operationsDir, f), 'utf8'))
    .join('\n');
  const all = parse(source);
  const errors = validate(schema, all);
  if (errors.length) throw new Error(`REST operations do not validate: ${errors.map((e) => e.message).join('; ')}`);
  const docs = new Map<string, DocumentNode>();
  for (const r of routes) {
    if (!all.definitions.some((d) => d.kind === 'OperationDefinition' && d.name?.value === r.id))
      throw new Error(`route ${r.id} has no operation`);
    docs.set(r.id, all);
  }
  return docs;
}

/** Each route's operation: its root field and what that field declares (`admission`, src/graphql/operation.ts). */
export function routeOperations(schema: GraphQLSchema, docs = loadOperations(schema)): Map<string, Operation> {
  return new Map(routes.map((r) => [r.id, operationOf(schema, docs.get(r.id)!, r.id, undefined)!]));
}

/** A GraphQL connection becomes `data: [...]` plus `meta.page`, for every list route alike. */
function unwrap(value: unknown): {
  data: unknown;
  page?: { limit: number; hasMore: boolean; nextCursor: string | null };
} {
  if (value && typeof value === 'object' && 'edges' in value && 'pageInfo' in value) {
    const c = value as {
      edges: { node: unknown }[];
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
      limit: number;
    };
    return {
      data: c.edges.map((e) => e.node),
      page: {
        limit: c.limit,
        hasMore: c.pageInfo.hasNextPage,
        nextCursor: c.pageInfo.hasNextPage ? c.pageInfo.endCursor : null,
      },
    };
  }
  return { data: value };
}

type Result = { data?: Record<string, unknown> | null; errors?: readonly GraphQLError[] };

export function restCompat(app: FastifyInstance, yoga: Yoga, limiter: RateLimiter) {
  const { schema } = yoga.getEnveloped();
  const docs = loadOperations(schema);
  const operations = routeOperations(schema, docs);
  const resources = new Map(routes.map((r) => [r.id, resourceOf(operations.get(r.id)!)]));
  // The documents are fixed and validated above: each route's operation is compiled once, now
  // (src/graphql/jit.ts), so a request skips parsing, validation and the interpreting executor.
  const compiled = new Map(routes.map((r) => [r.id, compiledFor(schema, docs.get(r.id)!, r.id, 1)]));

  /** yoga's envelop pipeline: for an operation that did not compile, and for variables that do not coerce. */
  async function interpret(route: Route, ctx: Context, variables: Record<string, unknown>): Promise<Result> {
    const { execute: run, contextFactory, schema } = yoga.getEnveloped(ctx as never);
    return (await run({
      schema,
      document: docs.get(route.id)!,
      operationName: route.id,
      variableValues: variables,
      contextValue: await contextFactory(),
    })) as Result;
  }

  function run(route: Route, ctx: Context, variables: Record<string, unknown>): Promise<Result> {
    const jit = compiled.get(route.id);
    if (!jit) return interpret(route, ctx, variables);
    return runCompiled(jit, { contextValue: ctx, variableValues: variables }, () =>
      interpret(route, ctx, variables),
    ) as Promise<Result>;
  }

  /**
   * The route's response. A JSON body stays a string until it is stored under an Idempotency-Key:
   * Node then writes the headers and the body in one piece, as the bare handler does.
   */
  async function execute(
    route: Route,
    ctx: Context,
    variables: Record<string, unknown>,
    resource: Resource,
  ): Promise<Response> {
    const result = await run(route, ctx, variables);
    if (result.errors?.length) {
      const first = result.errors[0];
      const domain = isDomainError(first.originalError) ? first.originalError : isDomainError(first) ? first : null;
      if (domain) throw domain;
      // Variable coercion failures come back without `data`; a null `data` is an execution error.
      if (result.data === undefined) throw coercionError(result.errors, resource);
      throw first.originalError ?? first;
    }
    if (route.download) {
      // A document route: the operation's {contentType, filename, contentBase64} becomes the body itself.
      const doc = result.data?.[Object.keys(result.data)[0]] as {
        contentType: string;
        filename: string;
        contentBase64: string;
      };
      return {
        status: 200,
        headers: { 'content-type': doc.contentType, 'content-disposition': `inline; filename="${doc.filename}"` },
        body: Buffer.from(doc.contentBase64, 'base64'),
      };
    }
    const unwrapped = unwrap(result.data?.[Object.keys(result.data)[0]]);
    const { page } = unwrapped;
    const data = route.shape && unwrapped.data !== null ? route.shape(unwrapped.data) : unwrapped.data;
    const status = route.status ?? 200;
    return {
      status,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: status === 204 ? '' : envelope(ctx.requestId, data, null, page),
    };
  }
  /** One REST request: its route's operation is fixed, its variables read once it is admitted. */
  interface RestInput {
    route: Route;
    req: FastifyRequest;
    resource: Resource;
    variables?: Record<string, unknown>;
  }
  const steps: AdmitSteps<RestInput, Response> = {
    transport: 'rest',
    limiter,
    parses: false,
    authenticate: (i) => authenticateRequest(i.req),
    operation: (i) => operations.get(i.route.id)!,
    read: (i) => {
      const { route, req } = i;
      const body =
        route.method === 'GET' || route.method === 'DELETE' ? {} : parseJsonBody(rawBody(req), { allowEmpty: true });
      const input = { params: req.params as Record<string, string>, query: req.query as Record<string, string>, body };
      assertStorable(input.params);
      assertStorable(input.query);
      i.variables = route.variables(input) as Record<string, unknown>;
    },
    idempotencyHeader: (i) => idempotencyKeyOf(i.req),
    fingerprint: (i) => sha256Hex(`${i.route.id}\n${i.req.url}\n`) + sha256Hex(rawBody(i.req)),
    execute: (i, ctx) => execute(i.route, ctx, i.variables!, i.resource),
    // A failed route throws: the operation metrics count it as an error (src/server/observe.ts).
    ok: () => true,
    asStored: (i, e) => asStored(e, i.req.requestId, i.resource),
  };

  async function handle(route: Route, req: FastifyRequest, reply: FastifyReply) {
    const resource = resources.get(route.id)!;
    try {
      const out = await admit(steps, req.requestId, { route, req, resource });
      const { status, headers, body } = out.result;
      if (out.replayed) reply.header('idempotent-replayed', 'true');
      return reply
        .status(status)
        .headers(headers)
        .send(status === 204 ? undefined : body);
    } catch (e) {
      return replyError(reply, e, req.requestId, resource);
    }
  }

  for (const route of routes) {
    app.route({ ...mountOf(route), handler: (req, reply) => handle(route, req, reply) });
  }
}

/** Where a route is mounted, and its body limit when it has its own. */
const mountOf = (r: Route) => ({ method: r.method, url: r.path, ...(r.bodyLimit ? { bodyLimit: r.bodyLimit } : {}) });
