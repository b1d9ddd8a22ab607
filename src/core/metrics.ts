import { Counter, Histogram, Registry } from 'prom-client';
import { config } from './config.ts';

/**
 * Prometheus metrics (`GET /metrics`, src/server/metrics.ts; who may read them: docs/decisions.md,
 * Metrics). Labels are bounded sets only (route patterns, statuses, schema field names, queue
 * names): never a raw URL, an id, a workspace or anything else a client chooses.
 *
 * Hot path: a request observes two histograms (FastHistogram below: a Map lookup and two array
 * increments, nothing allocated). Figures: docs/performance.md, Metrics and traces.
 */
export const registry = new Registry();

// Latency buckets (seconds) for requests and operations: 1 ms to 10 s.
const latencyBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

interface Series {
  labels: Record<string, string>;
  counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * A histogram whose observation allocates nothing: its series are found by a key the caller
 * builds, bucket counts are plain array slots, and the text is made at scrape time (registered
 * with prom-client's registry as a custom metric). prom-client's own Histogram builds and hashes a
 * label string on every observation (measured: docs/performance.md, Metrics and traces).
 */
class FastHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, Series>();
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: readonly number[],
  ) {
    registry.registerMetric(this as never);
  }
  /** The series of `key`, created with `labels()` on first use (a bounded set: see the labels above). */
  seriesOf(key: string, labels: () => Record<string, string>): Series {
    let s = this.series.get(key);
    if (!s) {
      s = { labels: labels(), counts: new Float64Array(this.buckets.length), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    return s;
  }
  observe(s: Series, v: number) {
    const b = this.buckets;
    for (let i = 0; i < b.length; i++)
      if (v <= b[i]) {
        s.counts[i]++;
        break;
      }
    s.sum += v;
    s.count++;
  }
  get() {
    const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
    for (const s of this.series.values()) {
      let acc = 0;
      for (let i = 0; i < this.buckets.length; i++) {
        acc += s.counts[i];
        values.push({ metricName: `${this.name}_bucket`, labels: { le: this.buckets[i], ...s.labels }, value: acc });
      }
      values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf', ...s.labels }, value: s.count });
      values.push({ metricName: `${this.name}_sum`, labels: s.labels, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels: s.labels, value: s.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
  reset() {
    this.series.clear();
  }
}

const httpDuration = new FastHistogram(
  'svc_http_request_duration_seconds',
  'HTTP request latency by method, route pattern and status',
  latencyBuckets,
);

const operationDuration = new FastHistogram(
  'svc_graphql_operation_duration_seconds',
  'GraphQL operation execution time by transport (graphql, rest, socket), operation type and first root field',
  latencyBuckets,
);

const deliveryAttempts = new Counter({
  name: 'svc_webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts made by this process, by outcome (ok, failed, skipped)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

const deliveryLag = new Histogram({
  name: 'svc_webhook_delivery_lag_seconds',
  help: "First attempts made by this process: seconds from the event's commit to the attempt",
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  registers: [registry],
});

const readTargets = new Counter({
  name: 'svc_reads_total',
  help: 'Reads that may go to a replica (reports, ledger export), by where they ran and why (fresh, lagging, unreachable, unset)',
  labelNames: ['target', 'reason'] as const,
  registers: [registry],
});

/** One reader-pool read (src/core/db/reader.ts). */
export function readsByTarget(target: 'replica' | 'writer', reason: string) {
  readTargets.inc({ target, reason });
}

export const metricsEnabled = () => config.metrics.enabled;

/**
 * The request observer of one route pattern and method: series by status, found without building
 * a key (a route sees a handful of statuses). `route` is the matched pattern (`/v1/payments/:id`),
 * or `unmatched`.
 */
export function requestObserver(method: string, route: string): (status: number, ms: number) => void {
  const byStatus = new Map<number, Series>();
  return (status, ms) => {
    let series = byStatus.get(status);
    if (!series) {
      series = httpDuration.seriesOf(`${method} ${route} ${status}`, () => ({ method, route, status: String(status) }));
      byStatus.set(status, series);
    }
    httpDuration.observe(series, ms / 1000);
  };
}

/** One answered HTTP request (the per-route observers above are cheaper: src/server/metrics.ts). */
export function observeRequest(method: string, route: string, status: number, ms: number) {
  requestObserverOf(method, route)(status, ms);
}
const observers = new Map<string, (status: number, ms: number) => void>();
function requestObserverOf(method: string, route: string) {
  const key = `${method} ${route}`;
  let o = observers.get(key);
  if (!o) {
    o = requestObserver(method, route);
    observers.set(key, o);
  }
  return o;
}

/** Where an operation came from: a REST route, POST/GET /graphql, or a subscription over the socket. */
export type Transport = 'rest' | 'graphql' | 'socket';

/** One executed operation; `field` is its first root field (a schema name, so a bounded set). */
export function observeOperation(transport: Transport, type: string, field: string, ok: boolean, ms: number) {
  const outcome = ok ? 'ok' : 'error';
  const series = operationDuration.seriesOf(`${transport} ${type} ${field} ${outcome}`, () => ({
    transport,
    type,
    field,
    outcome,
  }));
  operationDuration.observe(series, ms / 1000);
}

const providerStepDuration = new FastHistogram(
  'svc_provider_operation_step_seconds',
  'Steps of a provider operation (src/providers/operation.ts) by operation and step: pending, call, refused, answer',
  latencyBuckets,
);

/** One step of a provider operation; both labels are names from src/providers/operation.ts. */
export function observeProviderStep(operation: string, step: string, ms: number) {
  providerStepDuration.observe(
    providerStepDuration.seriesOf(`${operation} ${step}`, () => ({ operation, step })),
    ms / 1000,
  );
}

/** A delivery attempt's metric label (`outcome`). */
export const deliveryOutcome = { ok: 'ok', failed: 'failed', skipped: 'skipped' } as const;

export function observeDeliveryAttempt(outcome: 'ok' | 'failed' | 'skipped', lagMs: number | null) {
  deliveryAttempts.inc({ outcome });
  if (lagMs !== null) deliveryLag.observe(Math.max(0, lagMs) / 1000);
}
