// The reader (src/core/db/reader.ts) against the local PostgreSQL: the test's database is the writer,
// a second database cloned from the same template plays the replica. Its heartbeat row is the lag:
// set in the past, the "replica" is that far behind, as a real replica whose replay stopped would be.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import net from 'node:net';
import pg from 'pg';
import { useServer } from '../../helpers/server.ts';
import { dropDatabase, freshDatabase } from '../../helpers/db.ts';
import { config } from '../../../src/core/config.ts';
import { appDatabaseUrl } from '../../../src/core/db/roles.ts';
import { HEARTBEAT, closeReader, lastRead, readerQuery, readerTransaction } from '../../../src/core/db/reader.ts';
import { sql } from '../../../src/core/db/sql-template.ts';

const server = useServer({ background: 'none' });
const settings = config as { readDatabaseUrl?: string; readMaxLagMs: number; readAcquireTimeoutMs: number };
let replica: { url: string; name: string };
let silent: net.Server;
const held: net.Socket[] = [];

beforeAll(async () => {
  replica = await freshDatabase();
  // A port that accepts connections and never answers: a replica that hangs.
  silent = net.createServer((s) => void held.push(s));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  await closeReader();
  settings.readDatabaseUrl = undefined;
  for (const s of held) s.destroy();
  silent.close();
  await dropDatabase(replica.name);
});

async function onReplica(text: string, ...values: unknown[]) {
  const c = new pg.Client({ connectionString: replica.url });
  await c.connect();
  try {
    await c.query(text, values);
  } finally {
    await c.end();
  }
}
/** The heartbeat as the replica has replayed it, `ageMs` old. */
const heartbeat = (ageMs: number) =>
  onReplica(
    `INSERT INTO svc_heartbeat (id, at) VALUES (1, now() - $1 * interval '1 millisecond')
     ON CONFLICT (id) DO UPDATE SET at = excluded.at`,
    ageMs,
  );

async function useReader(url: string | undefined) {
  await closeReader();
  settings.readDatabaseUrl = url;
}

const scope = () => ({ workspaceId: 'ws_reader', modes: ['test'] as const });
const servedBy = async () => (await readerQuery<{ db: string }>(scope(), sql`SELECT current_database() AS db`))[0].db;
const writerName = () => new URL(server.dbUrl).pathname.slice(1);

describe('reads that may go to a replica', () => {
  it('no reader URL: the writer', async () => {
    await useReader(undefined);
    expect(await servedBy()).toBe(writerName());
    expect(lastRead).toMatchObject({ target: 'writer', reason: 'unset' });
  });

  it('a fresh replica serves the read, its lag checked in the same message', async () => {
    await useReader(appDatabaseUrl(replica.url));
    settings.readMaxLagMs = 5000;
    await heartbeat(0);
    expect(await servedBy()).toBe(replica.name);
    expect(lastRead.target).toBe('replica');
    expect(lastRead.lagMs).toBeLessThan(5000);
  });

  it('a lagging replica: the read runs on the writer', async () => {
    await heartbeat(8000);
    expect(await servedBy()).toBe(writerName());
    expect(lastRead).toMatchObject({ target: 'writer', reason: 'lagging' });
    expect(lastRead.lagMs).toBeGreaterThanOrEqual(8000);
    // The bound is the setting: a wider one takes the same replica.
    settings.readMaxLagMs = 20_000;
    expect(await servedBy()).toBe(replica.name);
    settings.readMaxLagMs = 5000;
  });

  it('caught up again after the writer beats: the replica', async () => {
    await onReplica(HEARTBEAT);
    expect(await servedBy()).toBe(replica.name);
  });

  it('a transaction for the export: on the replica when fresh, on the writer when lagging', async () => {
    await heartbeat(0);
    const begin = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';
    for (const [age, expected] of [
      [0, replica.name],
      [9000, writerName()],
    ] as const) {
      await heartbeat(age);
      const client = await readerTransaction(scope(), begin);
      try {
        const { rows } = await client.query('SELECT current_database() AS db, current_setting($1) AS ws', [
          'app.workspace_id',
        ]);
        expect(rows[0]).toEqual({ db: expected, ws: 'ws_reader' });
        await client.query('COMMIT');
      } finally {
        client.release();
      }
    }
  });

  it('a read on the replica sees only its workspace and mode (row-level security there too)', async () => {
    await useReader(appDatabaseUrl(replica.url));
    await heartbeat(0);
    await onReplica(
      `INSERT INTO customers (id, "workspaceId", mode, name) VALUES
         ('cus_reader_a', 'ws_reader', 'test', 'mine'), ('cus_reader_b', 'ws_other', 'test', 'theirs'),
         ('cus_reader_c', 'ws_reader', 'live', 'my live one')`,
    );
    const rows = await readerQuery<{ id: string }>(scope(), sql`SELECT id FROM customers ORDER BY id`);
    expect(lastRead.target).toBe('replica');
    expect(rows.map((r) => r.id)).toEqual(['cus_reader_a']);
    // Asking for another workspace's id by name finds nothing either.
    expect(await readerQuery(scope(), sql`SELECT id FROM customers WHERE id = ${'cus_reader_b'}`)).toEqual([]);
  });

  it('a replica that never answers: the writer, within the acquire timeout', async () => {
    const { port } = silent.address() as net.AddressInfo;
    await useReader(`postgresql://svc_app_login@127.0.0.1:${port}/svc`);
    settings.readAcquireTimeoutMs = 300;
    const started = Date.now();
    expect(await servedBy()).toBe(writerName());
    expect(Date.now() - started).toBeLessThan(2000);
    expect(lastRead).toMatchObject({ target: 'writer', reason: 'unreachable' });
    settings.readAcquireTimeoutMs = 1000;
  });

  it('a replica that is down (connection refused): the writer', async () => {
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as net.AddressInfo;
    await new Promise((r) => closed.close(r));
    await useReader(`postgresql://svc_app_login@127.0.0.1:${port}/svc`);
    expect(await servedBy()).toBe(writerName());
    expect(lastRead).toMatchObject({ target: 'writer', reason: 'unreachable' });
  });

  it('the P&L report and the ledger export read through the reader', async () => {
    await useReader(appDatabaseUrl(replica.url));
    await heartbeat(0);
    const ws = await server.workspace();
    const pnl = await ws.client.post('/graphql', {
      query: 'query { pnlReport(from: "2026-01-01", to: "2026-12-31") { currency } }',
    });
    expect(pnl.status, pnl.text).toBe(200);
    expect(lastRead.target).toBe('replica');
    await heartbeat(9000);
    const csv = await ws.client.get('/v1/reports/ledger.csv?from=2026-01-01&to=2026-12-31');
    expect(csv.status, csv.text).toBe(200);
    expect(lastRead).toMatchObject({ target: 'writer', reason: 'lagging' });
    await heartbeat(0);
    expect((await ws.client.get('/v1/reports/ledger.csv?from=2026-01-01&to=2026-12-31')).status).toBe(200);
    expect(lastRead.target).toBe('replica');
  });
});
