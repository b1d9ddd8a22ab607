import { config } from '../config.ts';
import { logger } from '../logger.ts';
import { startEmbeddedPostgres } from './embedded.ts';
import { migrate } from './migrate.ts';
import { openDatabase } from './client.ts';

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
