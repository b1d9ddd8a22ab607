import { performance } from 'node:perf_hooks';
import { metricsEnabled, observeOperation, type Transport } from '../core/metrics.ts';
import { SpanStatusCode, tracer, tracingEnabled } from '../core/tracing.ts';
import type { Operation } from '../graphql/operation.ts';

/**
 * Times one GraphQL operation (a REST route's, POST/GET /graphql's, or a subscribe over the socket) into the operation histogram and,
 * with tracing on, a span named after its type and first root field. `ok` reads the result
 * (GraphQL errors in a 200 count as errors); a throw counts as one and is rethrown.
 */
export function observe<T>(
  transport: Transport,
  op: Operation,
  ok: (r: T) => boolean,
  fn: () => Promise<T>,
): Promise<T> {
  const metrics = metricsEnabled();
  const tracing = tracingEnabled();
  if (!metrics && !tracing) return fn();
  const field = op.fields[0]?.name ?? '';
  if (!tracing) return timed(transport, op, field, ok, fn);
  return tracer.startActiveSpan(
    `graphql ${op.operation} ${field}`,
    { attributes: { 'graphql.operation.type': op.operation, 'graphql.field': field, 'svc.transport': transport } },
    async (span) => {
      try {
        return await (metrics ? timed(transport, op, field, ok, fn) : fn());
      } catch (e) {
        span.recordException(e as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw e;
      } finally {
        span.end();
      }
    },
  );
}

/**
 * The run timed into the operation histogram. Not an async wrapper, and no named closure per
 * request (tsx names each one it creates): one `then` on the operation's own promise.
 */
function timed<T>(transport: Transport, op: Operation, field: string, ok: (r: T) => boolean, fn: () => Promise<T>) {
  const t0 = performance.now();
  return fn().then(
    (r) => {
      observeOperation(transport, op.operation, field, ok(r), performance.now() - t0);
      return r;
    },
    (e) => {
      observeOperation(transport, op.operation, field, false, performance.now() - t0);
      throw e;
    },
  );
}
