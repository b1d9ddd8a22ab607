// What reports on the replica cost the money path, for test/cluster (TOPOLOGY's target 13): checkout
// completions through A (create, hosted attempt, sandbox success) in two closed loops, in alternating
// windows without and with a report loop through B (the P&L report and the ledger export, both on the
// reader pool). After a warm-up, each kind's completions are pooled over its windows (one p95 over
// all of them); the CPU each group of processes used in each window says where a cost went.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Client } from '../../src/client/index.ts';
import { percentile, sleep } from './faults.ts';

/** test/cluster/report-loop.ts in a child process, on `cpuList` when given (`taskset`). */
export interface ReportLoop {
  pid: number;
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
    pid: child.pid!,
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

/**
 * CPU seconds used by named groups of processes, and each CPU's busy share, between `start()` and
 * `stop()`. A group is its root pids with their descendants (and the children they reaped), less
 * the descendants that are another group's roots (the svc processes are this test's children).
 */
export function cpuMeter(groups: () => Record<string, number[]>) {
  const HZ = 100; // USER_HZ: /proc's clock ticks on Linux
  const processes = () => {
    const all = new Map<number, { ppid: number; ticks: number }>();
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        // After the command's closing parenthesis: state ppid ... utime(14) stime(15) cutime(16) cstime(17).
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        all.set(Number(name), {
          ppid: Number(f[1]),
          ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]),
        });
      } catch {} // gone between the listing and the read
    }
    return all;
  };
  const perGroup = () => {
    const all = processes();
    const children = new Map<number, number[]>();
    for (const [pid, p] of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), pid]);
    const named = groups();
    const roots = new Set(Object.values(named).flat());
    const out: Record<string, number> = {};
    for (const [group, own] of Object.entries(named)) {
      const tree = [...own];
      for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]) ?? []).filter((c) => !roots.has(c)));
      out[group] = tree.reduce((t, pid) => t + (all.get(pid)?.ticks ?? 0), 0);
    }
    return out;
  };
  const perCpu = () =>
    readFileSync('/proc/stat', 'utf8')
      .split('\n')
      .filter((l) => /^cpu\d+ /.test(l))
      .map((l) => {
        const [, ...v] = l.split(/\s+/).map(Number);
        const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
        return { total, idle: v[3] + v[4] };
      });
  let at = { groups: perGroup(), cpus: perCpu(), t: Date.now() };
  return {
    start() {
      at = { groups: perGroup(), cpus: perCpu(), t: Date.now() };
    },
    /** CPU seconds per group, and each CPU's busy fraction, since `start()`. */
    stop() {
      const groups = perGroup();
      const cpus = perCpu();
      return {
        seconds: Object.fromEntries(
          Object.entries(groups).map(([g, ticks]) => [g, Math.round(((ticks - (at.groups[g] ?? 0)) / HZ) * 10) / 10]),
        ),
        busy: cpus.map((c, i) => {
          const total = c.total - at.cpus[i].total;
          return total ? Math.round((1 - (c.idle - at.cpus[i].idle) / total) * 100) / 100 : 0;
        }),
      };
    },
  };
}

interface Window {
  reports: boolean;
  completions: number;
  perSec: number;
  p50: number;
  p95: number;
  reportRuns: number;
  cpu: ReturnType<ReturnType<typeof cpuMeter>['stop']>;
}

/** POST a hosted checkout step (public: the URL's token is the capability) and its JSON answer. */
async function hostedStep(url: string, body: unknown) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (r.status !== 200) throw new Error(`${url}: ${r.status} ${await r.text()}`);
  return r.json();
}

export async function reportCost(o: {
  a: Client;
  /** A's base URL: the hosted steps go to the same process as the create. */
  aUrl: string;
  reports: ReportLoop;
  body: unknown;
  pairs: number;
  windowMs: number;
  /** Completions before the first window, not counted: the first window would carry the JIT's warm-up. */
  warmupMs: number;
  meter: ReturnType<typeof cpuMeter>;
}) {
  const created = new Map<string, string>(); // Idempotency-Key -> session id
  /** Two closed loops of completions until `end`: the latency of each that ended by then. */
  const complete = async (end: number) => {
    const latencies: number[] = [];
    await Promise.all(
      [1, 2].map(async () => {
        while (Date.now() < end) {
          const t = Date.now();
          const k = randomUUID();
          const r = await o.a.post('/v1/checkout-sessions', o.body, { 'idempotency-key': k });
          if (r.status !== 201) throw new Error(`create ${r.status}: ${r.text}`);
          created.set(k, r.json.data.id);
          const hosted = `${o.aUrl}${new URL(r.json.data.hostedUrl).pathname}`;
          await hostedStep(`${hosted}/attempt`, { method: 'card' });
          await hostedStep(`${hosted}/simulate`, { outcome: 'success' });
          if (Date.now() <= end) latencies.push(Date.now() - t);
        }
      }),
    );
    return latencies;
  };
  await complete(Date.now() + o.warmupMs);
  const windows: (Window & { latencies: number[] })[] = [];
  for (let i = 0; i < 2 * o.pairs; i++) {
    // Alternating, starting with and without in turn per pair, so a drift in the machine's load
    // weighs on both kinds alike.
    const reports = i % 2 === (Math.floor(i / 2) % 2 === 0 ? 1 : 0);
    o.meter.start();
    if (reports) o.reports.start();
    const latencies = await complete(Date.now() + o.windowMs);
    const cpu = o.meter.stop();
    const reportRuns = reports ? await o.reports.stop() : 0;
    windows.push({ reports, latencies, ...figures(latencies, o.windowMs), reportRuns, cpu });
    await sleep(200);
  }
  // Each kind's completions pooled over its windows: one p95 over all of them, not a median of two.
  const kind = (reports: boolean) => {
    const of = windows.filter((w) => w.reports === reports);
    return figures(
      of.flatMap((w) => w.latencies),
      of.length * o.windowMs,
    );
  };
  const alone = kind(false);
  const withReports = kind(true);
  return {
    created,
    windows: windows.map(({ latencies: _, ...w }) => w),
    alone,
    withReports,
    /** The throughput lost with reports running, as a fraction of the throughput alone. */
    throughputCost: 1 - withReports.perSec / alone.perSec,
    p50Cost: withReports.p50 / alone.p50 - 1,
    /** How much longer the p95 latency is with reports running, as a fraction. */
    p95Cost: withReports.p95 / alone.p95 - 1,
  };
}

/** Completions per second over `ms`, and their latency's p50 and p95. */
const figures = (latencies: number[], ms: number) => ({
  completions: latencies.length,
  perSec: Math.round((latencies.length * 10_000) / ms) / 10,
  p50: percentile(latencies, 0.5) ?? 0,
  p95: percentile(latencies, 0.95) ?? 0,
});
