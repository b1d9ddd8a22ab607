import { config } from '../core/config.ts';
import { logger } from '../core/logger.ts';
import { connectAndMigrate, stopEmbedded } from '../core/db/setup.ts';
import { closeDatabase } from '../core/db/client.ts';
import { flushUsage } from '../core/auth/authenticate.ts';

/** `svc start|serve|worker`: migrate, then run the server and/or the worker until a signal. */
export async function run(role: 'start' | 'serve' | 'worker') {
  const database = await connectAndMigrate();
  const stops: (() => Promise<void>)[] = [];
  if (role !== 'worker') {
    const { buildApp } = await import('../server/app.ts');
    const app = await buildApp();
    await app.fastify.listen({ port: config.port, host: config.host });
    logger.info({ port: config.port }, 'server listening');
    console.error(`svc listening on http://127.0.0.1:${config.port} (GraphQL at /graphql)`);
    stops.push(() => app.close());
  }
  if (role !== 'serve') {
    const { startWorker } = await import('../../jobs/worker.ts');
    const worker = await startWorker(database.url);
    console.error('svc worker running (pg-boss queues, outbox relay)');
    stops.push(() => worker.stop());
  }
  if (role === 'worker') {
    // A worker alone has no API server: its traces and (on a port of its own) its metrics.
    const { startTracing, stopTracing } = await import('../core/tracing.ts');
    await startTracing();
    stops.unshift(stopTracing);
    if (config.metrics.workerPort) {
      const { serveMetricsAlone } = await import('../server/metrics.ts');
      const server = await serveMetricsAlone(config.metrics.workerPort, config.host);
      console.error(`svc worker metrics on :${config.metrics.workerPort}/metrics`);
      stops.unshift(() => server.close());
    }
  }
  const shutdown = async () => {
    // The last resort of "SIGTERM stops within 10 s" (docs/security.md): whatever still holds on.
    setTimeout(() => {
      logger.error('shutdown did not finish in 9 s; exiting');
      process.exit(1);
    }, 9000).unref();
    for (const stop of stops.reverse()) await stop().catch(() => {});
    await flushUsage().catch(() => {});
    await closeDatabase();
    await stopEmbedded();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
