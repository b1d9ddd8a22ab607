// Samplers for test/cluster: a write probe through one API node (a create under a fresh key every
// PROBE_MS, each outcome timed), and a cluster probe (the writer port's timeline and recovery state,
// HAProxy's servers UP, Patroni's members). Per fault they give the first failed write, the first 2xx
// after it, the promotion (a new timeline on the writer port) and HAProxy's switch. Every wait is a
// deadline on a condition.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Client } from '../../src/client/index.ts';

export interface Outcome {
  t: number;
  status: number;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `pred` every 100 ms until true; throws after `ms`. */
export async function deadline(pred: () => boolean | Promise<boolean>, what: string, ms: number) {
  const end = Date.now() + ms;
  while (
    !(await Promise.resolve()
      .then(pred)
      .catch(() => false))
  ) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(100);
  }
}

/** Creates under a fresh key every `everyMs` through `client`; keys whose answer was not 2xx are kept to resolve later. */
export function writeProbe(client: Client, body: unknown, everyMs = 100) {
  const outcomes: Outcome[] = [];
  const inDoubt: string[] = [];
  const acknowledged = new Map<string, string>();
  let stop = false;
  const done = (async () => {
    while (!stop) {
      const k = randomUUID();
      const started = Date.now();
      const r = await client
        .post('/v1/checkout-sessions', body, { 'idempotency-key': k })
        .catch(() => ({ status: 0, json: null as never }));
      outcomes.push({ t: started, status: r.status });
      if (r.status === 201) acknowledged.set(k, r.json.data.id);
      else inDoubt.push(k);
      await sleep(Math.max(0, everyMs - (Date.now() - started)));
    }
  })();
  return {
    outcomes,
    inDoubt,
    acknowledged,
    stop: async () => {
      stop = true;
      await done;
    },
  };
}

/** The first failed write at or after `t0`, and the first 2xx after that failure (ms from t0). */
export function writesAgain(outcomes: Outcome[], t0: number, t1 = Number.POSITIVE_INFINITY) {
  const window = outcomes.filter((o) => o.t >= t0 && o.t < t1);
  const failed = window.find((o) => o.status < 200 || o.status >= 300);
  if (!failed) return { firstFailureMs: null, first2xxMs: null };
  const ok = window.find((o) => o.t > failed.t && o.status >= 200 && o.status < 300);
  return { firstFailureMs: failed.t - t0, first2xxMs: ok ? ok.t - t0 : null };
}

/** Requests by status in [t0, t1). */
export function byStatus(outcomes: Outcome[], t0: number, t1: number) {
  const out: Record<string, number> = {};
  for (const o of outcomes) if (o.t >= t0 && o.t < t1) out[o.status] = (out[o.status] ?? 0) + 1;
  return out;
}

interface ClusterSample {
  t: number;
  timeline: number | null;
  primaryUp: string;
}

/** Samples the writer port (timeline, not in recovery) and HAProxy's primary backend every `everyMs`. */
export function clusterProbe(o: { writerUrl: string; statsPort: string; everyMs?: number }) {
  const samples: ClusterSample[] = [];
  let stop = false;
  const timeline = async () => {
    const c = new pg.Client({ connectionString: o.writerUrl, connectionTimeoutMillis: 1000, query_timeout: 1000 });
    c.on('error', () => {});
    try {
      await c.connect();
      const { rows } = await c.query<{ tl: string | null }>(
        `SELECT CASE WHEN pg_is_in_recovery() THEN NULL
           ELSE ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int END AS tl`,
      );
      return rows[0].tl === null ? null : Number(rows[0].tl);
    } catch {
      return null;
    } finally {
      c.end().catch(() => {});
    }
  };
  const done = (async () => {
    while (!stop) {
      const t = Date.now();
      const [tl, up] = await Promise.all([timeline(), haproxyUp(o.statsPort, 'primary').catch(() => '')]);
      samples.push({ t, timeline: tl, primaryUp: up });
      await sleep(Math.max(0, (o.everyMs ?? 200) - (Date.now() - t)));
    }
  })();
  return {
    samples,
    /** ms from t0 to a writable primary on a newer timeline, and to HAProxy's UP server being that primary's. */
    promotion(t0: number, newLeader: string) {
      const before = samples.filter((s) => s.t < t0 && s.timeline !== null).at(-1)?.timeline ?? 0;
      const promoted = samples.find((s) => s.t >= t0 && s.timeline !== null && s.timeline > before);
      const switched = samples.find((s) => s.t >= t0 && s.primaryUp === `n${newLeader}` && (promoted?.t ?? 0) <= s.t);
      return {
        timeline: `${before} -> ${promoted?.timeline ?? '?'}`,
        promotionMs: promoted ? promoted.t - t0 : null,
        haproxyMs: switched ? switched.t - t0 : null,
      };
    },
    stop: async () => {
      stop = true;
      await done;
    },
  };
}

/** Names of the servers HAProxy reports UP in `backend`, space-separated. */
export async function haproxyUp(statsPort: string, backend: string) {
  const csv = await (await fetch(`http://127.0.0.1:${statsPort}/;csv`, { signal: AbortSignal.timeout(1000) })).text();
  return csv
    .split('\n')
    .map((l) => l.split(','))
    .filter((f) => f[0] === backend && f[1] !== 'BACKEND' && f[1] !== 'FRONTEND' && f[17] === 'UP')
    .map((f) => f[1])
    .join(' ');
}

/** The cluster is whole again: one leader, a synchronous standby, three members running, HAProxy agreeing. */
export async function healthy(restPorts: string[], statsPort: string) {
  for (const port of restPorts) {
    const r = await fetch(`http://127.0.0.1:${port}/cluster`, { signal: AbortSignal.timeout(1000) }).catch(() => null);
    if (!r?.ok) continue;
    const members = ((await r.json()) as { members: { name: string; role: string; state: string }[] }).members;
    const leader = members.find((m) => m.role === 'leader' && m.state === 'running');
    const sync = members.find((m) => m.role === 'sync_standby' && /running|streaming/.test(m.state));
    const running = members.filter((m) => /running|streaming/.test(m.state)).length;
    if (!leader || !sync || running < 3) return false;
    const [up, replicas] = await Promise.all([haproxyUp(statsPort, 'primary'), haproxyUp(statsPort, 'replicas')]);
    return up === leader.name && replicas.split(' ').filter(Boolean).length === 2;
  }
  return false;
}

/** Percentile `p` (0-1) of `xs`. */
export function percentile(xs: number[], p: number) {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
}

/** Replica lag as the reader sees it: the heartbeat's age on the reader port minus its age on the writer. */
export function lagProbe(o: { writerUrl: string; readerUrl: string; everyMs?: number }) {
  const lags: { t: number; ms: number }[] = [];
  let stop = false;
  const AGE = `SELECT extract(epoch FROM now() - at) * 1000 AS age, pg_is_in_recovery() AS replica FROM svc_heartbeat`;
  const clients: Record<string, pg.Client | null> = { w: null, r: null };
  const age = async (which: 'w' | 'r') => {
    try {
      if (!clients[which]) {
        const c = new pg.Client({
          connectionString: which === 'w' ? o.writerUrl : o.readerUrl,
          connectionTimeoutMillis: 1000,
          query_timeout: 1000,
        });
        c.on('error', () => {});
        await c.connect();
        clients[which] = c;
      }
      const row = (await clients[which].query<{ age: string; replica: boolean }>(AGE)).rows[0];
      return row ? { age: Number(row.age), replica: row.replica } : null;
    } catch {
      clients[which]?.end().catch(() => {});
      clients[which] = null;
      return null;
    }
  };
  const done = (async () => {
    while (!stop) {
      const t = Date.now();
      const [w, r] = await Promise.all([age('w'), age('r')]);
      if (w && r?.replica) lags.push({ t, ms: Math.max(0, r.age - w.age) });
      await sleep(Math.max(0, (o.everyMs ?? 250) - (Date.now() - t)));
    }
  })();
  return {
    lags,
    stop: async () => {
      stop = true;
      await done;
      for (const c of Object.values(clients)) c?.end().catch(() => {});
    },
  };
}

/** `name`'s value in a Prometheus text exposition, summed over the series whose labels include `labels`. */
export function metric(text: string, name: string, labels: Record<string, string>) {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) sum += Number(line.split(' ').at(-1));
  }
  return sum;
}
