// What reports on the replica cost the money path, for test/cluster: checkout-session creates through
// A in closed loops, in alternating windows without and with a report loop through B (the P&L report
// and the ledger export, both on the reader pool). Medians over the windows of each kind, so one noisy
// window on a shared machine does not decide.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Client } from '../../src/client/index.ts';
import { percentile, sleep } from './faults.ts';

/** test/cluster/report-loop.ts in a child process, on `cpuList` when given (`taskset`). */
export interface ReportLoop {
  start(): void;
  /** Ends the loop; the report pairs it completed. */
  stop(): Promise<number>;
  close(): void;
}

export function reportLoop(o: {
  baseUrl: string;
  keyId: string;
  secret: string;
  gapMs: number;
  cpuList: string | null;
  cwd: string;
}): ReportLoop {
  const node = [process.execPath, '--import', 'tsx', 'test/cluster/report-loop.ts'];
  const args = [...node, o.baseUrl, o.keyId, o.secret, String(o.gapMs)];
  const child: ChildProcess = o.cpuList
    ? spawn('taskset', ['-c', o.cpuList, ...args], { cwd: o.cwd, stdio: ['pipe', 'pipe', 'inherit'] })
    : spawn(args[0], args.slice(1), { cwd: o.cwd, stdio: ['pipe', 'pipe', 'inherit'] });
  const answers = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return {
    start: () => child.stdin!.write('start\n'),
    async stop() {
      child.stdin!.write('stop\n');
      const { value } = await answers.next();
      const runs = /^runs (\d+)$/.exec(String(value ?? ''));
      if (!runs) throw new Error(`report loop answered ${value}`);
      return Number(runs[1]);
    },
    close: () => child.kill(),
  };
}

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
  reports: ReportLoop;
  body: unknown;
  pairs: number;
  windowMs: number;
}) {
  const windows: Window[] = [];
  const created = new Map<string, string>(); // Idempotency-Key -> session id
  for (let i = 0; i < 2 * o.pairs; i++) {
    // Alternating, starting with and without in turn per pair, so a drift in the machine's load
    // weighs on both kinds alike.
    const reports = i % 2 === (Math.floor(i / 2) % 2 === 0 ? 1 : 0);
    const end = Date.now() + o.windowMs;
    const latencies: number[] = [];
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
    if (reports) o.reports.start();
    await Promise.all(creates);
    const reportRuns = reports ? await o.reports.stop() : 0;
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
