// What reports on the replica cost the money path, for test/cluster: checkout-session creates through
// A in closed loops, in alternating windows without and with a report loop through B (the P&L report
// and the ledger export, both on the reader pool). Medians over the windows of each kind, so one noisy
// window on a shared machine does not decide.
import { randomUUID } from 'node:crypto';
import type { Client } from '../../src/client/index.ts';
import { percentile, sleep } from './faults.ts';

interface Window {
  reports: boolean;
  creates: number;
  perSec: number;
  p50: number;
  p95: number;
  reportRuns: number;
}

export async function reportCost(o: {
  a: Client;
  b: Client;
  body: unknown;
  pairs: number;
  windowMs: number;
  reportGapMs: number;
}) {
  const windows: Window[] = [];
  const created = new Map<string, string>(); // Idempotency-Key -> session id
  for (let i = 0; i < 2 * o.pairs; i++) {
    // Alternating, starting with and without in turn per pair, so a drift in the machine's load
    // weighs on both kinds alike.
    const reports = i % 2 === (Math.floor(i / 2) % 2 === 0 ? 1 : 0);
    const end = Date.now() + o.windowMs;
    const latencies: number[] = [];
    let reportRuns = 0;
    const creates = [1, 2].map(async () => {
      while (Date.now() < end) {
        const t = Date.now();
        const k = randomUUID();
        const r = await o.a.post('/v1/checkout-sessions', o.body, { 'idempotency-key': k });
        if (r.status !== 201) throw new Error(`create ${r.status}: ${r.text}`);
        created.set(k, r.json.data.id);
        if (Date.now() <= end) latencies.push(Date.now() - t);
      }
    });
    const reportLoops = reports
      ? [1, 2].map(async () => {
          while (Date.now() < end) {
            const started = Date.now();
            await Promise.all([
              o.b.post('/graphql', { query: 'query { pnlReport(from: "2026-01-01", to: "2027-12-31") { currency } }' }),
              o.b.get('/v1/reports/ledger.csv?from=2026-01-01&to=2027-12-31'),
            ]);
            reportRuns++;
            // Paced as the run's own report loop (one pair per loop every `reportGapMs`): a dashboard's
            // reports, not a flood of requests whose cost is their HTTP and authentication on the writer.
            await sleep(Math.max(0, started + o.reportGapMs - Date.now()));
          }
        })
      : [];
    await Promise.all([...creates, ...reportLoops]);
    windows.push({
      reports,
      creates: latencies.length,
      perSec: (latencies.length * 1000) / o.windowMs,
      p50: percentile(latencies, 0.5) ?? 0,
      p95: percentile(latencies, 0.95) ?? 0,
      reportRuns,
    });
    await sleep(200);
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((x, y) => x - y);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const of = (reports: boolean) => windows.filter((w) => w.reports === reports);
  const kind = (reports: boolean) => ({
    perSec: median(of(reports).map((w) => w.perSec)),
    p50: median(of(reports).map((w) => w.p50)),
    p95: median(of(reports).map((w) => w.p95)),
  });
  const alone = kind(false);
  const withReports = kind(true);
  return {
    created,
    windows,
    alone,
    withReports,
    /** The throughput lost with reports running, as a fraction of the throughput alone. */
    throughputCost: 1 - withReports.perSec / alone.perSec,
    p50Cost: withReports.p50 / alone.p50 - 1,
    /** How much longer the p95 latency is with reports running, as a fraction. */
    p95Cost: withReports.p95 / alone.p95 - 1,
  };
}
