// An open graphql-ws socket re-checks its key every `keyCacheMs`. While the database cannot answer
// (a failover), the re-check learns nothing about the key: the socket stays open on its last grant
// and a new connection_init is told to come back (1013), never 4403 "no longer valid". A key that
// is really revoked still closes the socket with 4403 once the database answers.
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { Client as WsClient } from 'graphql-ws';
import { useServer, exhaustPools } from '../helpers/server.ts';
import { signedSocket } from '../helpers/sockets.ts';
import { until } from '../helpers/receiver.ts';
import { config } from '../../src/core/config.ts';
import { logger } from '../../src/core/logger.ts';

// Before the server starts: a quick re-check and a short acquire timeout keep the test short.
config.keyCacheMs = 300;
config.dbAcquireTimeoutMs = 400;
const server = useServer({ background: 'none' });

const sockets: WsClient[] = [];
afterAll(async () => {
  await Promise.all(sockets.map((c) => c.dispose()));
});
let release: (() => void) | undefined;
afterEach(() => {
  release?.();
  release = undefined;
});

describe('graphql-ws while the database is unreachable', () => {
  it('keeps the open socket (no 4403), answers a new connection_init 1013, and still closes 4403 on a revoked key', async () => {
    const ws = await server.workspace();
    const made = await ws.client.post('/v1/api-keys', { name: 'socket' });
    expect(made.status, made.text).toBe(201);
    const key = { keyId: made.json.data.keyId as string, secret: made.json.data.key as string };
    const socket = signedSocket(server.url, key, { lazy: false });
    sockets.push(socket.client);
    socket.client.subscribe(
      { query: 'subscription { events { id } }' },
      { next: () => {}, error: () => {}, complete: () => {} },
    );
    await until(() => socket.state.connected, 'the connection', 8000);

    const warn = vi.spyOn(logger, 'warn');
    try {
      const recheckFailed = () =>
        warn.mock.calls.some(
          ([fields, msg]) =>
            msg === 'database unavailable' && (fields as { component?: string }).component === 'graphql-ws',
        );
      release = await exhaustPools();
      // The socket's re-check ran against the unreachable database (or, wrongly, closed the socket).
      await until(() => recheckFailed() || socket.closes.length > 0, 'a failed re-check', 10_000);
      expect(socket.closes).toEqual([]);
      // A socket opening now cannot be authenticated: it is told to retry, not that its key is bad.
      const late = signedSocket(server.url, key, { lazy: false });
      sockets.push(late.client);
      await until(() => late.closes.length > 0, 'the late socket closes', 10_000);
      expect(late.closes[0].code).toBe(1013);
      expect(late.state.connected).toBe(false);
    } finally {
      warn.mockRestore();
    }

    release();
    release = undefined;
    // The database answers again: the socket is still open, and a revocation still ends it.
    expect(socket.closes).toEqual([]);
    const revoked = await ws.client.delete(`/v1/api-keys/${made.json.data.id}`);
    expect(revoked.status, revoked.text).toBe(204);
    await until(() => socket.closes.length > 0, 'the close', config.keyCacheMs * 10);
    expect(socket.closes[0].code).toBe(4403);
  });
});
