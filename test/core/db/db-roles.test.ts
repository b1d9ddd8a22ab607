// The two database identities: the tenant pool logs in as the app's own role (bound by forced
// row-level security), the infrastructure pool as the owner; the server refuses anything else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDatabase, db, openDatabase, APP_LOGIN_ROLE } from '../../../src/core/db/client.ts';
import { appDatabaseUrl, assertDatabaseRoles } from '../../../src/core/db/roles.ts';
import { buildApp } from '../../../app/server.ts';
import { startWorker } from '../../../jobs/worker.ts';
import { dropUnlessFailed, freshDatabase } from '../../helpers/db.ts';

let database: { url: string; name: string };
beforeAll(async () => {
  database = await freshDatabase();
});
// vitest passes the suite second and reads the first argument as fixtures (an object pattern)
// biome-ignore lint/correctness/noEmptyPattern: see above
afterAll(async ({}, suite) => {
  await closeDatabase();
  await dropUnlessFailed(database.name, suite);
});

describe('database roles', () => {
  it(`the tenant pool is ${APP_LOGIN_ROLE}, logged in as itself; the infrastructure pool is the owner`, async () => {
    openDatabase(database.url);
    try {
      expect((await db().app.query('SELECT current_user AS u, session_user AS s')).rows[0]).toEqual({
        u: APP_LOGIN_ROLE,
        s: APP_LOGIN_ROLE,
      });
      // no startup parameter switches roles, and the session cannot switch back to the owner
      await expect(db().app.query('SET ROLE postgres')).rejects.toThrow(/permission denied/);
      expect((await db().system.query('SELECT current_user AS u')).rows[0].u).toBe(
        new URL(database.url).username || 'postgres',
      );
      await expect(assertDatabaseRoles(db())).resolves.toBeUndefined();
      // with no scope set, the tenant pool sees no tenant row even though some exist
      await db().system.query(
        `INSERT INTO counters ("workspaceId", mode, name, value) VALUES ('ws_roles', 'test', 'n', 1)`,
      );
      expect((await db().app.query('SELECT count(*)::int AS n FROM counters')).rows[0].n).toBe(0);
    } finally {
      await closeDatabase();
    }
  });

  it('the app URL is SVC_APP_DATABASE_URL, else DATABASE_URL with the app role and SVC_APP_PASSWORD', () => {
    const saved = { url: process.env.SVC_APP_DATABASE_URL, pw: process.env.SVC_APP_PASSWORD };
    try {
      delete process.env.SVC_APP_DATABASE_URL;
      process.env.SVC_APP_PASSWORD = 'p@ss word';
      const u = new URL(appDatabaseUrl('postgresql://owner:secret@db.internal:6432/svc?sslmode=require'));
      expect({
        user: u.username,
        pw: decodeURIComponent(u.password),
        host: u.host,
        db: u.pathname,
        ssl: u.searchParams.get('sslmode'),
      }).toEqual({
        user: APP_LOGIN_ROLE,
        pw: 'p@ss word',
        host: 'db.internal:6432',
        db: '/svc',
        ssl: 'require',
      });
      process.env.SVC_APP_DATABASE_URL = 'postgresql://other@h/d';
      expect(appDatabaseUrl('postgresql://owner@x/y')).toBe('postgresql://other@h/d');
    } finally {
      for (const [k, v] of [
        ['SVC_APP_DATABASE_URL', saved.url],
        ['SVC_APP_PASSWORD', saved.pw],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('refuses to serve (server and worker) when the tenant pool is not the app role', async () => {
    // the tenant pool connected as the owner: the old `-c role=` setup, or a wrong SVC_APP_DATABASE_URL
    openDatabase(database.url, { appUrl: database.url });
    try {
      await expect(buildApp()).rejects.toThrow(
        new RegExp(`refusing to serve: the tenant pool connects as "postgres".*not as ${APP_LOGIN_ROLE}`),
      );
      await expect(startWorker(database.url)).rejects.toThrow(/refusing to serve/);
    } finally {
      await closeDatabase();
    }
  });
});
