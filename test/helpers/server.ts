import { afterAll, beforeAll } from 'vitest';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { freshDatabase, dropUnlessFailed } from './db.ts';
import { openDatabase, closeDatabase, db } from '../../src/core/db/client.ts';
import { buildApp, type App } from '../../app/server.ts';
import { bootstrapWorkspace } from '../../src/modules/workspaces/service.ts';
import { createClient, type Client } from '../../src/client/index.ts';
import { flushUsage } from '../../src/core/auth/authenticate.ts';
import { startRelay } from '../../jobs/outbox-relay.ts';
import { startWorker } from '../../jobs/worker.ts';

export interface TestServer {
  url: string;
  dbUrl: string;
  app: App;
  /** The in-process worker (`useServer({ background: 'worker' })`). */
  worker?: Awaited<ReturnType<typeof startWorker>>;
  /** A new workspace with a full_access key, and a client signed with it. */
  workspace(opts?: { name?: string; platformAdmin?: boolean; environment?: 'test' | 'live' }): Promise<Workspace>;
}

export interface Workspace {
  workspaceId: string;
  accountId: string;
  keyId: string;
  secret: string;
  apiKeyId: string;
  client: Client;
}

/**
 * One real server per test file, on loopback, over its own fresh database. Beside it runs, in
 * process: the outbox relay (default: subscriptions hear what it publishes), the whole worker
 * (`background: 'worker'`: pg-boss queues, webhook delivery), or nothing (`'none'`: the test runs
 * its own `svc worker`).
 */
export function useServer(
  opts: {
    background?: 'relay' | 'worker' | 'none';
    /** The URL the server connects with, given its database's (a proxy in front of it, say); `dbUrl` stays the database's. */
    connectThrough?: (url: string) => Promise<string>;
  } = {},
): TestServer {
  const background = opts.background ?? 'relay';
  const state = {} as TestServer & { dbName: string; stopRelay?: () => void };
  beforeAll(async () => {
    const { url, name } = await freshDatabase();
    state.dbName = name;
    state.dbUrl = url;
    const serverUrl = opts.connectThrough ? await opts.connectThrough(url) : url;
    process.env.DATABASE_URL = serverUrl;
    openDatabase(serverUrl);
    state.app = await buildApp();
    await state.app.fastify.listen({ port: 0, host: '127.0.0.1' });
    state.url = `http://127.0.0.1:${(state.app.fastify.server.address() as AddressInfo).port}`;
    if (background === 'worker') state.worker = await startWorker(serverUrl);
    if (background === 'relay') state.stopRelay = startRelay();
  });
  // vitest passes the suite second and reads the first argument as fixtures (an object pattern)
  // biome-ignore lint/correctness/noEmptyPattern: see above
  afterAll(async ({}, suite) => {
    state.stopRelay?.();
    await state.worker?.stop();
    await state.app?.close();
    await flushUsage().catch(() => {});
    await closeDatabase();
    await dropUnlessFailed(state.dbName, suite);
  });
  state.workspace = async (opts = {}) => {
    const out = await bootstrapWorkspace({
      name: opts.name ?? 'Acme',
      platformAdmin: opts.platformAdmin,
      environment: opts.environment,
    });
    return {
      workspaceId: out.workspaceId,
      accountId: out.accountId,
      keyId: out.apiKey.keyId,
      secret: out.apiKey.key,
      apiKeyId: out.apiKey.id,
      client: createClient({ baseUrl: state.url, keyId: out.apiKey.keyId, secret: out.apiKey.key }),
    };
  };
  return state;
}

export { db, createClient };

/**
 * Checks out every connection of both pools and keeps them: the database is unreachable for the
 * server (each acquire times out) until the returned function gives them back.
 */
export async function exhaustPools() {
  const held: pg.PoolClient[] = [];
  for (const pool of [db().app, db().system])
    for (let i = 0; i < (pool.options.max ?? 10); i++) held.push(await pool.connect());
  return () => {
    for (const c of held) c.release();
  };
}

/** Waits until the relay has published every committed event (subscriptions and webhooks start from what is published). */
export async function untilPublished(timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while ((await db().system.query('SELECT 1 FROM events WHERE "publishedAt" IS NULL LIMIT 1')).rowCount) {
    if (Date.now() > deadline) throw new Error('events still unpublished: is the relay running?');
    await new Promise((r) => setTimeout(r, 20));
  }
}
