import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import websocket from '@fastify/websocket';
import { config } from '../core/config.ts';
import { newId } from '../core/ids.ts';
import { logger, requestLogger, withLogContext } from '../core/logger.ts';
import { envelope, errorReply } from './envelope.ts';
import { asUnavailable } from '../core/db/unavailable.ts';
import { countStatementsPerRequest } from './statement-count.ts';
import { observeRequests } from './metrics.ts';
import { traceRequests } from './tracing.ts';
import { loggedUrl } from './access-log.ts';

declare module 'fastify' {
  interface FastifyRequest {
    requestId: string;
  }
}

/** How long a stop waits for in-flight requests before closing their connections. */
export const DRAIN_MS = 5000;

/**
 * The listen queue for connections not yet accepted. A burst of provider callbacks (one per charge of a
 * renewal burst) opens hundreds of connections at once; above Node's default 511 the kernel drops their
 * handshakes and clients retry after 1, 3, 7, 15 s, so every caller, health checks included, waited
 * up to 15 s (bench P1 after P4: 14,437 listen overflows in one run). The kernel caps it at
 * `net.core.somaxconn`.
 */
export const LISTEN_BACKLOG = 4096;

/**
 * The HTTP server every route is mounted on: raw bodies, request ids, the access log, the envelope for
 * framework errors and unknown routes, WebSockets, statement counts, traces and log context. No routes
 * of the API: the composition (app/server.ts) mounts them.
 */
export async function createHttp(): Promise<FastifyInstance> {
  const fastify = Fastify({
    logger: false,
    bodyLimit: config.bodyLimitBytes,
    // Client addresses (hosted pages' rate buckets) come from X-Forwarded-For only behind a trusted proxy.
    trustProxy: config.trustProxy === 'true' ? true : (config.trustProxy ?? false),
    genReqId: () => newId('request'),
    // Unroutable URLs (bad percent-encoding in the path) answer with the envelope too, not Fastify's own JSON.
    frameworkErrors: (err, req, res) => {
      const status = err.statusCode && err.statusCode < 500 ? err.statusCode : 500;
      (res as FastifyReply)
        .status(status)
        .header('x-request-id', req.id)
        .type('application/json; charset=utf-8')
        .send(
          envelope(req.id, null, {
            code: status < 500 ? 'validation_error' : 'internal_error',
            message: status < 500 ? err.message : `Internal error; quote request id ${req.id}`,
          }),
        );
    },
  });
  // Raw bytes for every body: signatures and idempotency are computed over exactly what was sent.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  fastify.decorateRequest('requestId', '');
  // Callback hooks, not async ones: no promise per request per hook on the hot path.
  fastify.addHook('onRequest', (req, reply, done) => {
    req.requestId = req.id;
    reply.header('x-request-id', req.id);
    done();
  });
  observeRequests(fastify);
  // After the response is sent (off the request's critical section); pino writes asynchronously.
  // The route pattern and the URL without its capability secrets (src/server/access-log.ts).
  fastify.addHook('onResponse', (req, reply, done) => {
    requestLogger.info(
      {
        requestId: req.id,
        method: req.method,
        ...loggedUrl(req),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request',
    );
    done();
  });
  // Framework-level failures (oversized or unreadable bodies) still answer with the envelope.
  fastify.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    const unavailable = asUnavailable(err);
    if (unavailable)
      return reply
        .status(503)
        .headers(unavailable.headers!)
        .type('application/json; charset=utf-8')
        .send(errorReply(unavailable, req.id).body);
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    const code =
      status === 413
        ? 'payload_too_large'
        : status === 415
          ? 'unsupported_media_type'
          : status < 500
            ? 'validation_error'
            : 'internal_error';
    if (status === 500) logger.error({ err, requestId: req.id }, 'unhandled error');
    reply
      .status(status)
      .type('application/json; charset=utf-8')
      .send(
        envelope(req.id, null, {
          code,
          message: status === 500 ? `Internal error; quote request id ${req.id}` : err.message,
        }),
      );
  });
  // Browsers ask for it on every page (the dashboard, hosted pages): no icon, and no 404 in the logs.
  fastify.get('/favicon.ico', (_req, reply) => {
    reply.status(204).header('cache-control', 'public, max-age=86400').send();
  });
  fastify.setNotFoundHandler((req, reply) => {
    reply
      .status(404)
      .type('application/json; charset=utf-8')
      .send(envelope(req.id, null, { code: 'not_found', message: `No route ${req.method} ${req.url.split('?')[0]}` }));
  });

  // ws accepts 100 MiB messages by default, before connection_init authenticates anyone: a
  // GraphQL document over the socket fits in 64 KiB; larger frames close the socket (1009).
  await fastify.register(websocket, {
    options: { maxPayload: config.wsMaxPayloadBytes },
    // On stop, open sockets are told 1001 (going away): graphql-ws clients reconnect elsewhere.
    preClose(this: FastifyInstance, done: () => void) {
      for (const client of this.websocketServer.clients) client.close(1001, 'server shutting down');
      this.websocketServer.close();
      done();
    },
  });
  countStatementsPerRequest(fastify);
  traceRequests(fastify);
  // Every log line written while a request is handled carries its id (src/core/logger.ts).
  fastify.addHook('preHandler', (req, _reply, done) => withLogContext({ requestId: req.id }, done));
  return fastify;
}

/** Stops accepting at once; in-flight requests get a bounded drain, then their connections are cut. */
export async function closeHttp(fastify: FastifyInstance) {
  const cut = setTimeout(() => fastify.server.closeAllConnections(), DRAIN_MS).unref();
  await fastify.close();
  clearTimeout(cut);
}
