import { config } from '../config.ts';
import { logger } from '../logger.ts';
import { startEmbeddedPostgres } from './embedded.ts';
import { migrate } from './migrate.ts';
import { openDatabase } from './client.ts';
import { isDatabaseUnavailable } from './unavailable.ts';
import pg from 'pg';

let embeddedStop: (() => Promise<void>) | undefined;

/** DATABASE_URL, or the embedded server; migrations applied before anything else runs. */
export async function connectAndMigrate(opts: { migrate?: boolean } = {}) {
  let url = config.databaseUrl;
  if (!url) {
    const embedded = await startEmbeddedPostgres();
    url = embedded.url;
    embeddedStop = embedded.stop;
    process.env.DATABASE_URL = url;
  }
  await waitForDatabase(url);
  if (opts.migrate !== false) {
    const applied = await migrate(url, (line) => logger.info(line));
    if (applied.length) logger.info({ applied }, 'migrations applied');
  }
  return openDatabase(url);
}

export async function stopEmbedded() {
  await embeddedStop?.();
  embeddedStop = undefined;
}

/**
 * At boot the database may not be up yet (containers starting together, a failover): connect with
 * backoff (0.25 s doubling to 5 s), one line per `SVC_DB_WARN_INTERVAL_MS` window while waiting,
 * and give up after `SVC_DB_BOOT_WAIT_SEC` (60) with an error (the process exits 1). Anything but
 * "unreachable" (a wrong password, a missing database) fails at once.
 */
export async function waitForDatabase(url: string, opts: { totalMs?: number } = {}) {
  const totalMs = opts.totalMs ?? config.dbBootWaitSec * 1000;
  const started = Date.now();
  let lastLine = 0;
  for (let attempt = 1; ; attempt++) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: config.dbAcquireTimeoutMs });
    client.on('error', () => {}); // a failure while connecting is connect()'s rejection
    try {
      await client.connect();
      await client.end();
      if (attempt > 1) logger.info({ attempts: attempt, waitedMs: Date.now() - started }, 'database reachable');
      return;
    } catch (e) {
      await client.end().catch(() => {});
      if (!isDatabaseUnavailable(e)) throw e;
      const waited = Date.now() - started;
      if (waited >= totalMs)
        throw new Error(
          `the database at ${redact(url)} is unreachable after ${Math.round(waited / 1000)} s (${(e as Error).message}); SVC_DB_BOOT_WAIT_SEC bounds the wait`,
        );
      if (lastLine === 0 || Date.now() - lastLine >= config.dbWarnIntervalMs) {
        lastLine = Date.now();
        logger.warn(
          { attempts: attempt, waitedMs: waited, maxWaitMs: totalMs, reason: (e as Error).message },
          'waiting for the database',
        );
      }
      await new Promise((r) => setTimeout(r, Math.min(5000, 250 * 2 ** (attempt - 1), totalMs - waited)));
    }
  }
}

/** The URL without its password, for a message. */
const redact = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
