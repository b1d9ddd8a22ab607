import { createHmac } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createClient } from '../client/index.ts';
import { EVENT_FIELDS } from '../client/webhooks.ts';
import { deliveryHeaders, signatureFormats, type SignatureFormat } from '../client/webhook-signing.ts';
import { signRequest } from '../core/auth/signing.ts';
import { newId } from '../core/ids.ts';
import { defaultBaseUrl, loadEnvFile, usageError } from './api.ts';

/**
 * `svc listen`: the workspace's events, as they commit, POSTed to a local URL and signed like a
 * real delivery (spec Webhook delivery), so a receiver can be developed without a public endpoint. The
 * events come from the GraphQL `events` subscription (graphql-ws, spec GraphQL); after a
 * disconnect it resubscribes from the last event seen, so nothing is skipped.
 */

const SUBSCRIPTION =
  'subscription Listen($types: [String!], $after: ID) { events(types: $types, after: $after) { ' +
  `${EVENT_FIELDS.join(' ')} } }`;
const FORWARD_TIMEOUT_MS = 10_000;

type ListenEvent = Record<(typeof EVENT_FIELDS)[number], unknown> & { id: string; type: string };

interface ListenOptions {
  forwardTo: string;
  types: string[] | null;
  format: SignatureFormat;
  baseUrl: string;
  keyId: string;
  secret: string;
}

/** The secret local forwards are signed with: stable per API key, so a receiver can keep it. */
export const listenSecret = (apiSecret: string) =>
  `whsec_${createHmac('sha256', apiSecret).update('svc listen').digest('hex').slice(0, 48)}`;

export async function listen(args: string[]) {
  const opts = options(args);
  const signingSecret = listenSecret(opts.secret);
  const stop = new AbortController();
  const quit = () => stop.abort();
  process.once('SIGINT', quit).once('SIGTERM', quit);
  const forward = forwarder(opts, signingSecret, stop.signal);
  let after: string | null = null; // the last event seen: a resubscription starts after it
  let started = false;
  let ready = false;
  let attempt = 0;
  while (!stop.signal.aborted) {
    try {
      if (!started) {
        after = await latestEventId(opts);
        started = true;
      }
      await subscribeOnce(opts, after, stop.signal, {
        connected: () => {
          attempt = 0;
          console.error(
            ready
              ? 'Reconnected.'
              : `Ready! Forwarding to ${opts.forwardTo}. Webhook signing secret: ${signingSecret} (Ctrl-C to quit)`,
          );
          ready = true;
        },
        event: (e) => {
          after = e.id;
          forward(e);
        },
      });
      if (!stop.signal.aborted) throw new Error('the server ended the subscription');
    } catch (e) {
      if (stop.signal.aborted) break;
      if (e instanceof FatalError) throw e;
      const wait = Math.min(500 * 2 ** attempt++, 10_000);
      console.error(
        `${ready ? 'Connection lost' : 'Cannot connect'} (${describe(e)}); retrying in ${(wait / 1000).toFixed(1)} s`,
      );
      await sleep(wait, stop.signal);
    }
  }
  process.off('SIGINT', quit).off('SIGTERM', quit);
  await forward.idle();
}

function options(args: string[]): ListenOptions {
  const { values } = parseArgs({
    args,
    options: {
      'forward-to': { type: 'string' },
      events: { type: 'string' },
      format: { type: 'string', default: 'svc' },
      'base-url': { type: 'string' },
      'key-id': { type: 'string' },
      secret: { type: 'string' },
    },
  });
  loadEnvFile();
  const keyId = values['key-id'] ?? process.env.SVC_KEY_ID;
  const secret = values.secret ?? process.env.SVC_SECRET;
  const forwardTo = values['forward-to'];
  if (!forwardTo || !keyId || !secret) {
    throw usageError(
      'usage: svc listen --forward-to <url> [--events a,b] [--format svc|standard] [--base-url <url>] ' +
        '--key-id <pk_..> --secret <sk_..>',
    );
  }
  if (!/^https?:\/\/[^/]/.test(forwardTo) || !URL.canParse(forwardTo))
    throw usageError(`--forward-to must be an http(s) URL, got ${JSON.stringify(forwardTo)}`);
  if (!signatureFormats.includes(values.format as SignatureFormat))
    throw usageError(`--format must be ${signatureFormats.join(' or ')}`);
  const types = (values.events ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const baseUrl = (values['base-url'] ?? defaultBaseUrl()).replace(/\/+$/, '');
  if (!URL.canParse(baseUrl)) throw usageError(`--base-url must be a URL, got ${JSON.stringify(baseUrl)}`);
  return {
    forwardTo,
    types: types.length ? types : null,
    format: values.format as SignatureFormat,
    baseUrl,
    keyId,
    secret,
  };
}

/** A failure retrying cannot fix: the key is refused, or the server rejects the subscription. */
class FatalError extends Error {}

/** The newest event now: the subscription starts after it, so nothing after "Ready!" is missed. */
async function latestEventId(opts: ListenOptions): Promise<string | null> {
  const res = await createClient(opts).get('/v1/events?limit=1');
  if (res.status === 401 || res.status === 403)
    throw new FatalError(
      `the server refused the API key (${res.status} ${res.json?.error?.code ?? ''}): ` +
        'check --key-id/--secret (or SVC_KEY_ID/SVC_SECRET) and the clock',
    );
  if (res.status !== 200) throw new Error(`GET /v1/events answered ${res.status}`);
  return res.json.data[0]?.id ?? null;
}

/** One connection and subscription; resolves when stopped or completed, rejects when the connection fails. */
function subscribeOnce(
  opts: ListenOptions,
  after: string | null,
  signal: AbortSignal,
  on: { connected(): void; event(e: ListenEvent): void },
): Promise<void> {
  let socket: WebSocket | undefined;
  let pongTimer: NodeJS.Timeout | undefined;
  const client = createWsClient({
    url: `${opts.baseUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    connectionAckWaitTimeout: 10_000,
    keepAlive: 10_000,
    connectionParams: () => {
      const h = signRequest({ keyId: opts.keyId, secret: opts.secret, method: 'GET', target: '/graphql', body: '' });
      return { authorization: h.authorization, timestamp: h['x-svc-timestamp'] };
    },
    on: {
      connected: (s) => {
        socket = s as WebSocket;
        on.connected();
      },
      // A half-open connection never errors by itself: no pong within 5 s of a ping ends it.
      ping: (received) => {
        if (!received) pongTimer = setTimeout(() => socket?.terminate(), 5_000);
      },
      pong: (received) => received && clearTimeout(pongTimer),
      closed: () => clearTimeout(pongTimer),
    },
  });
  return new Promise<void>((resolve, reject) => {
    const end = (fn: () => void) => {
      signal.removeEventListener('abort', aborted);
      void client.dispose();
      fn();
    };
    const aborted = () => end(resolve);
    signal.addEventListener('abort', aborted);
    client.subscribe<{ events: ListenEvent }>(
      { query: SUBSCRIPTION, variables: { types: opts.types, after } },
      {
        next: (v) =>
          v.data?.events
            ? on.event(v.data.events)
            : end(() => reject(new FatalError(`subscription failed: ${JSON.stringify(v.errors)}`))),
        error: (e) => end(() => reject(fatal(e) ?? e)),
        complete: () => end(resolve),
      },
    );
  });
}

/**
 * Errors retrying cannot fix: GraphQL errors, 4403 (connection_init refused: key or signature), 4400/4401 (protocol).
 */
function fatal(e: unknown): FatalError | null {
  if (Array.isArray(e)) return new FatalError(`the server rejected the subscription: ${describe(e)}`);
  const code = (e as { code?: unknown })?.code;
  if (code === 4403)
    return new FatalError(
      `the server refused the API key (${describe(e)}): ` +
        'check --key-id/--secret (or SVC_KEY_ID/SVC_SECRET) and the clock',
    );
  if (code === 4400 || code === 4401) return new FatalError(`the server closed the connection (${describe(e)})`);
  return null;
}

function describe(e: unknown): string {
  if (Array.isArray(e)) return e.map((x) => x?.message ?? String(x)).join('; ');
  const close = e as {
    code?: number | string;
    reason?: string;
    message?: string;
    cause?: { code?: string; message?: string };
  };
  if (typeof close?.code === 'number') return `closed ${close.code}${close.reason ? ` ${close.reason}` : ''}`;
  return close?.cause?.code ?? close?.cause?.message ?? close?.message ?? String(e);
}

/** POSTs events one at a time, in the order received, signed like a delivery; one line each way. */
function forwarder(opts: ListenOptions, signingSecret: string, signal: AbortSignal) {
  let chain = Promise.resolve();
  const push = (e: ListenEvent) => void (chain = chain.then(() => forwardOne(opts, signingSecret, e, signal)));
  return Object.assign(push, { idle: () => chain });
}

async function forwardOne(opts: ListenOptions, signingSecret: string, e: ListenEvent, signal: AbortSignal) {
  const body = JSON.stringify(Object.fromEntries(EVENT_FIELDS.map((k) => [k, e[k]])));
  const headers = {
    ...deliveryHeaders(
      opts.format,
      [signingSecret],
      { eventId: e.id, eventType: e.type, deliveryId: newId('webhookDelivery') },
      body,
    ),
    'content-type': 'application/json',
  };
  console.log(`${new Date().toISOString()}  --> ${e.type} [${e.id}]`);
  const started = performance.now();
  const took = () => `${Math.round(performance.now() - started)} ms`;
  try {
    const res = await fetch(opts.forwardTo, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.any([signal, AbortSignal.timeout(FORWARD_TIMEOUT_MS)]),
    });
    await res.arrayBuffer().catch(() => {});
    console.log(`${new Date().toISOString()}  <-- [${res.status}] POST ${opts.forwardTo} (${took()})`);
  } catch (err) {
    if (signal.aborted) return;
    const why =
      (err as Error).name === 'TimeoutError' ? `timed out after ${FORWARD_TIMEOUT_MS / 1000} s` : describe(err);
    console.log(`${new Date().toISOString()}  <-- [error] POST ${opts.forwardTo} failed: ${why} (${took()})`);
  }
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
