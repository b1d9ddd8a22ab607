// What the tests that run `svc start` over its embedded PostgreSQL share: a data folder the OS user
// "postgres" can enter, whether it can run the package's binaries at all, and the start's environment.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { config } from '../../src/core/config.ts';
import { assertReachableByOthers, embeddedBinaries } from '../../src/core/db/embedded.ts';
import { freePort } from './cli.ts';

/** A temporary folder for the file, removed after it (as root the server runs as "postgres", which must reach it). */
export function embeddedDataDir(prefix: string, cleanup?: () => Promise<void>) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  afterAll(async () => {
    await cleanup?.();
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/**
 * Why the embedded server cannot start from this checkout, or null: as root it runs as "postgres",
 * which must enter every folder above the package's binaries (a private `mktemp -d` clone cannot).
 */
export const embeddedUnreachable = ((): string | null => {
  if (process.getuid?.() !== 0) return null;
  try {
    assertReachableByOthers(embeddedBinaries());
    return null;
  } catch (e) {
    return (e as Error).message;
  }
})();

/** `svc start`'s environment for an embedded database in `dataDir` on free ports (no DATABASE_URL). */
export async function embeddedStartEnv(dataDir: string, extra: NodeJS.ProcessEnv = {}) {
  const [port, pgPort] = [await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    PORT: String(port),
    SVC_DATA_DIR: dataDir,
    SVC_EMBEDDED_PG_PORT: String(pgPort),
    SVC_MASTER_KEY: config.masterKey.toString('hex'),
    SVC_DB_POOL: '4',
    ...extra,
  };
  for (const k of ['DATABASE_URL', 'SVC_APP_PASSWORD', 'SVC_APP_DATABASE_URL']) delete env[k];
  return { env, port, pgPort };
}
