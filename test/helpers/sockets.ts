import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { signRequest } from '../../src/core/auth/signing.ts';

/**
 * A graphql-ws client on `baseUrl`'s /graphql whose `connection_init` is signed by `key`, recording
 * whether it connected and how it closed. Eager (`lazy: false`) connects at once.
 */
export function signedSocket(baseUrl: string, key: { keyId: string; secret: string }, opts: { lazy?: boolean } = {}) {
  const closes: { code: number; reason: string }[] = [];
  const state = { connected: false };
  const client: Client = createClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: opts.lazy ?? true,
    onNonLazyError: () => {},
    connectionParams: () => {
      const h = signRequest({ keyId: key.keyId, secret: key.secret, method: 'GET', target: '/graphql', body: '' });
      return { authorization: h.authorization, timestamp: h['x-svc-timestamp'] };
    },
    on: {
      connected: () => void (state.connected = true),
      closed: (e) => void closes.push({ code: (e as CloseEvent).code, reason: (e as CloseEvent).reason }),
    },
  });
  return { client, closes, state };
}
