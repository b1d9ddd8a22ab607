// `npm start` without DATABASE_URL: the embedded PostgreSQL, with the app's own login role (the
// embedded server asks for passwords, so the role gets one generated into the data folder).
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { ROOT, SVC_BIN, svc } from '../../helpers/cli.ts';
import { createClient } from '../../../src/client/index.ts';
import { APP_LOGIN_ROLE } from '../../../src/core/db/roles.ts';
import { embeddedDataDir, embeddedStartEnv, embeddedUnreachable as unreachable } from '../../helpers/embedded-start.ts';

let stop: (() => Promise<void>) | undefined;
// A checkout the OS user "postgres" cannot enter cannot run the embedded server at all, and svc
// says so (the first test). The full start runs wherever it can.
const dir = embeddedDataDir('svc-embedded-', () => stop?.() ?? Promise.resolve());

describe('npm start with the embedded PostgreSQL', () => {
  it.runIf(unreachable)(
    'a checkout the postgres user cannot reach: svc names the folder instead of crashing',
    async () => {
      const { env } = await embeddedStartEnv(join(dir, 'data-unreachable'));
      const run = await svc(['migrate'], env, { timeoutMs: 30_000 });
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain('cannot enter');
      console.warn(`embedded start not run here: ${unreachable}`);
    },
  );

  it.skipIf(unreachable)(
    'serves, bootstraps and answers signed requests, its tenant pool logged in as the app role',
    async () => {
      const { env, port, pgPort } = await embeddedStartEnv(join(dir, 'data'));
      const child = spawn(process.execPath, [SVC_BIN, 'start'], {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += d));
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      stop = async () => {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(killer);
      };
      const url = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + 100_000;
      while (
        !(await fetch(`${url}/healthz`).then(
          (r) => r.ok,
          () => false,
        ))
      ) {
        if (child.exitCode !== null || Date.now() > deadline)
          throw new Error(`svc start did not become healthy:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(existsSync(join(dir, 'data', 'app-db.password'))).toBe(true);

      const boot = await svc(['bootstrap', '--name', 'Embedded', '--json'], env, { timeoutMs: 60_000 });
      expect(boot.code, boot.stderr).toBe(0);
      const key = JSON.parse(boot.stdout).apiKey;
      const client = createClient({ baseUrl: url, keyId: key.keyId, secret: key.key });
      const keys = await client.get('/v1/api-keys');
      expect(keys.status).toBe(200);
      expect(keys.json.data.map((k: { id: string }) => k.id)).toEqual([key.id]);

      // the server's tenant connections are the app role's own logins
      const superuser = readFileSync(join(dir, 'data', 'pg-superuser.password'), 'utf8').trim();
      const c = new pg.Client({ connectionString: `postgresql://postgres:${superuser}@127.0.0.1:${pgPort}/svc` });
      await c.connect();
      try {
        const { rows } = await c.query(
          `SELECT DISTINCT usename FROM pg_stat_activity WHERE datname = 'svc' AND usename = $1`,
          [APP_LOGIN_ROLE],
        );
        expect(rows).toEqual([{ usename: APP_LOGIN_ROLE }]);
      } finally {
        await c.end();
      }
    },
    180_000,
  );
});
