import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Span } from '@opentelemetry/api';
import { context, propagation, SpanKind, SpanStatusCode, trace, tracer, tracingEnabled } from '../core/tracing.ts';

const spans = new WeakMap<FastifyRequest, Span>();

/**
 * One server span per HTTP request, when tracing is on (src/core/tracing.ts): continues the
 * caller's W3C `traceparent`, and the handler runs inside it (preHandler, as the statement
 * counter: the body is read on the socket's callbacks), so operation and delivery spans nest.
 */
export function traceRequests(fastify: FastifyInstance) {
  if (!tracingEnabled()) return;
  fastify.addHook('onRequest', (req, _reply, done) => {
    const parent = propagation.extract(context.active(), req.headers);
    const span = tracer.startSpan(
      `${req.method}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method, 'svc.request_id': req.id } },
      parent,
    );
    spans.set(req, span);
    done();
  });
  fastify.addHook('preHandler', (req, _reply, done) => {
    const span = spans.get(req);
    if (!span) return done();
    context.with(trace.setSpan(context.active(), span), done);
  });
  fastify.addHook('onResponse', (req, reply, done) => {
    const span = spans.get(req);
    if (span) {
      const route = req.routeOptions.url;
      if (route) {
        span.updateName(`${req.method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    done();
  });
}
