import type { FastifyInstance } from 'fastify';
import { startTracing, stopTracing } from '../src/core/tracing.ts';
import { createRateLimiter, type RateLimiter } from '../src/core/rate-limit.ts';
import { eventBus } from '../src/core/pubsub.ts';
import { db } from '../src/core/db/client.ts';
import { assertDatabaseRoles } from '../src/core/db/roles.ts';
import { closeIngestPool } from '../src/modules/usage-events/pool.ts';
import { closeHttp, createHttp } from '../src/server/http.ts';
import { createGraphQL, mountGraphQL } from '../src/server/graphql.ts';
import { edgeRoutes } from '../src/server/edge-routes.ts';
import { mountEdgeRoutes } from '../src/server/edge-route.ts';
import { mountMetrics } from '../src/server/metrics.ts';
import { mountGraphiQLAssets } from '../src/server/graphiql.ts';
import { mountSignIn } from '../src/server/sign-in.ts';
import { mountUploads } from '../src/server/uploads.ts';
import { resumeWalks, stopWalks } from '../src/modules/test-clocks/walkers.ts';
import { mountDashboard } from '../src/dashboard/serve.ts';
import { schema } from '../schema/index.ts';
import { restCompat } from '../rest-compat/plugin.ts';
import { buildOpenApi } from '../rest-compat/openapi.ts';

export interface App {
  fastify: FastifyInstance;
  limiter: RateLimiter;
  close(): Promise<void>;
}

/**
 * The HTTP app: the schema (schema/) served as GraphQL over HTTP and WebSocket, its REST translation
 * (rest-compat/) and OpenAPI document, the hosted pages and downloads, sign-in, the dashboard, metrics
 * and health, on the server of src/server/http.ts.
 */
export async function buildApp(): Promise<App> {
  await assertDatabaseRoles(db());
  await startTracing();
  const fastify = await createHttp();
  const limiter = createRateLimiter();
  const yoga = createGraphQL(schema);
  mountGraphQL(fastify, yoga, limiter);
  restCompat(fastify, yoga, limiter);
  mountEdgeRoutes(fastify, limiter, edgeRoutes);
  mountUploads(fastify, limiter);
  // Public, like /healthz: the contract holds no tenant data. Built on first request, then kept.
  let openApi: string | undefined;
  fastify.get('/v1/openapi.json', (_req, reply) => {
    openApi ??= JSON.stringify(buildOpenApi(yoga.getEnveloped().schema));
    return reply.type('application/json; charset=utf-8').send(openApi);
  });
  mountMetrics(fastify);
  mountGraphiQLAssets(fastify, limiter);
  mountSignIn(fastify, limiter);
  mountDashboard(fastify);
  // Liveness: the process answers, with or without its database (restarting it would not bring the database back).
  fastify.get('/healthz', (_req, reply) => reply.type('application/json').send(JSON.stringify({ status: 'ok' })));
  // Readiness: the database answers; 503 `service_unavailable` while it is away, so a load balancer drains the instance.
  fastify.get('/readyz', async (_req, reply) => {
    await db().system.query('SELECT 1');
    return reply.type('application/json').send(JSON.stringify({ status: 'ready' }));
  });

  await eventBus.start(db().url);
  resumeWalks();
  return {
    fastify,
    limiter,
    async close() {
      // A request walking a test clock stops at its next step: closing waits for in-flight requests.
      await stopWalks();
      await closeHttp(fastify);
      await limiter.close();
      await closeIngestPool();
      await eventBus.stop();
      await stopTracing();
    },
  };
}
