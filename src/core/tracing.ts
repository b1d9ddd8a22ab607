import {
  context,
  INVALID_SPAN_CONTEXT,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
} from '@opentelemetry/api';
import { config } from './config.ts';

/**
 * OpenTelemetry traces, off by default (config.otel; cost measured in docs/performance.md).
 * Off, nothing is loaded and `tracer` is the API's no-op: a span costs a function call. On,
 * `startTracing()` (once, at boot) installs the SDK: a ratio sampler that follows a sampled
 * caller's `traceparent`, a batch processor, and OTLP/HTTP (JSON) or console export.
 *
 * Spans: one per HTTP request (src/server/tracing.ts), one per GraphQL operation, one per
 * webhook delivery attempt. Attributes carry route patterns, operation fields and request ids,
 * never bodies, secrets or workspace data.
 */
export const tracer = trace.getTracer('svc');
export const tracingEnabled = () => config.otel.exporter !== 'off';

const noSpan = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
let shutdown: (() => Promise<void>) | null = null;

export async function startTracing(): Promise<void> {
  if (!tracingEnabled() || shutdown) return;
  const ratio = config.otel.sampleRatio;
  if (!(ratio >= 0 && ratio <= 1)) throw new Error('SVC_OTEL_SAMPLE must be a number between 0 and 1');
  const [sdk, hooks, core] = await Promise.all([
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
  ]);
  const exporter =
    config.otel.exporter === 'console'
      ? new sdk.ConsoleSpanExporter()
      : new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  const { resourceFromAttributes } = await import('@opentelemetry/resources');
  const provider = new sdk.BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME || 'svc' }),
    sampler: new sdk.ParentBasedSampler({ root: new sdk.TraceIdRatioBasedSampler(ratio) }),
    spanProcessors: [new sdk.BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 })],
  });
  context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  shutdown = async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
    shutdown = null;
  };
}

/** Flushes and removes the SDK (process exit, tests). */
export async function stopTracing(): Promise<void> {
  await shutdown?.();
}

/** Runs `fn` inside a span that ends with it; a throw marks the span failed and is rethrown. */
export async function inSpan<T>(
  name: string,
  attributes: Record<string, string | number | boolean>,
  fn: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  if (!tracingEnabled()) return fn(noSpan);
  return tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (e) {
      span.recordException(e as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw e;
    } finally {
      span.end();
    }
  });
}

export { context, propagation, SpanKind, SpanStatusCode, trace };
