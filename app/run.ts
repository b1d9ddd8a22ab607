import type { AddressInfo } from 'node:net';
import { setPriority } from 'node:os';
import { config } from '../src/core/config.ts';
import { logger } from '../src/core/logger.ts';
import { connectAndMigrate, stopEmbedded } from '../src/core/db/setup.ts';
import { closeDatabase } from '../src/core/db/client.ts';
import { flushUsage } from '../src/core/auth/authenticate.ts';

/** The longest a stop may take before the process exits anyway (the contract: within 10 s). */
const STOP_DEADLINE_MS = 9000;

/**
 * In the order they stop: the API first (no new requests, in-flight ones drained, sockets closed
 * 1001), then the worker (pg-boss, the relay), then what is left of the worker alone.
 */
const stops: (() => Promise<void>)[] = [];

/** `svc start|serve|worker`: migrate, then run the server and/or the worker until a signal. */
export async function run(role: 'start' | 'serve' | 'worker') {
  // Heard from the start: a Ctrl-C while booting lets the step under way finish, starts nothing
  // more, and stops what has started, just as cleanly.
  process.on('SIGINT', (signal) => void shutdown(signal));
  process.on('SIGTERM', (signal) => void shutdown(signal));
  booting = boot(role).catch((e) => {
    if (!stopping) throw e;
  });
  await booting;
}

let booting: Promise<void> | undefined;

async function boot(role: 'start' | 'serve' | 'worker') {
  const devIdp = role !== 'worker' && process.env.SVC_DEV_IDP === '1';
  const idp = devIdp ? await import('../src/cli/idp.ts') : undefined;
  idp?.assertDevIdpAllowed('SVC_DEV_IDP=1', { inServer: true });
  const database = await connectAndMigrate();
  await idp?.assertNoLiveWorkspace('SVC_DEV_IDP=1');
  if (stopping) return;
  if (role !== 'worker') {
    const { buildApp } = await import('./server.ts');
    const { LISTEN_BACKLOG } = await import('../src/server/http.ts');
    const app = await buildApp();
    stops.push(() => app.close());
    if (stopping) return;
    await app.fastify.listen({ port: config.port, host: config.host, backlog: LISTEN_BACKLOG });
    const where = listeningOn(app.fastify.server.address() as AddressInfo);
    logger.info({ host: config.host, port: config.port }, 'server listening');
    console.error(`svc listening on ${where} (GraphQL at /graphql)`);
    // The dashboard's bundle, built now so that the first page view does not wait for it.
    void import('../src/dashboard/serve.ts').then((m) => m.dashboardBuild()).catch(() => {});
    // Development: the dashboard's identity provider in this process (docs/dashboard.md, Development sign-in).
    if (idp) {
      const provider = await idp.startConfiguredIdp({ inServer: true });
      stops.push(() => provider.close());
    }
  }
  if (stopping) return;
  if (role !== 'serve') {
    const { startWorker } = await import('../jobs/worker.ts');
    const worker = await startWorker(database.url);
    stops.push(() => worker.stop());
    console.error('svc worker running (pg-boss queues, outbox relay)');
  }
  if (stopping) return;
  if (role === 'worker') {
    yieldCpuToTheApi();
    // A worker alone has no API server: its traces and (on a port of its own) its metrics.
    const { startTracing, stopTracing } = await import('../src/core/tracing.ts');
    await startTracing();
    stops.push(stopTracing);
    if (config.metrics.workerPort) {
      const { serveMetricsAlone } = await import('../src/server/metrics.ts');
      const server = await serveMetricsAlone(config.metrics.workerPort, config.host);
      console.error(`svc worker metrics on :${config.metrics.workerPort}/metrics`);
      stops.unshift(() => server.close());
    }
  }
}

/**
 * libuv accepts one connection per event-loop turn, so an API process that waits for CPU behind a
 * worker's billing burst lets its accept queue grow: health checks and provider callbacks waited
 * 6-16 s in the kernel while the API itself was 60 % idle (bench P1 after P4). Batch work yields the CPU.
 */
function yieldCpuToTheApi() {
  if (config.workerNice <= 0) return;
  try {
    setPriority(config.workerNice);
    logger.info({ nice: config.workerNice }, 'worker CPU priority lowered');
  } catch (e) {
    logger.warn({ err: (e as Error).message }, 'worker CPU priority unchanged');
  }
}

let stopping = false;
async function shutdown(signal: NodeJS.Signals) {
  // A second Ctrl-C while stopping changes nothing: the stop is already bounded.
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'stopping');
  setTimeout(() => {
    logger.error({ deadlineMs: STOP_DEADLINE_MS }, 'stop took too long; exiting');
    logger.flush();
    process.exit(1);
  }, STOP_DEADLINE_MS).unref();
  await booting;
  for (const stop of stops) await stop().catch((e) => logger.error({ err: e }, 'stop step failed'));
  await flushUsage().catch(() => {});
  // The pools, then the embedded PostgreSQL last: nothing of ours is connected to it any more.
  await closeDatabase();
  await stopEmbedded();
  logger.info('stopped');
  logger.flush();
  process.exit(0);
}

/** The banner's address: the one bound, or every interface said plainly (HOST=0.0.0.0 or ::). */
function listeningOn({ address, port }: AddressInfo): string {
  if (address === '0.0.0.0' || address === '::')
    return `every interface (HOST=${config.host}): http://127.0.0.1:${port} from this machine`;
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
}
