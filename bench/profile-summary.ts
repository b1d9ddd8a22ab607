/**
 * Summarises a V8 .cpuprofile (from `BENCH_CPU_PROF=dir npm run bench`): self time by package or
 * source folder, and the hottest functions.
 *
 *   tsx bench/profile-summary.ts bench/.profiles/app.cpuprofile [top=25]
 *   BENCH_PROFILE_LAST=14 (only the last 14 s), BENCH_PROFILE_INCLUSIVE=1 (also inclusive times)
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const file = process.argv[2];
if (!file) throw new Error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [top]');
const top = Number(process.argv[3] ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

// `BENCH_PROFILE_LAST=14`: only the last 14 s of samples (the measured load, without the start-up compile).
const last = Number(process.env.BENCH_PROFILE_LAST ?? 0) * 1e6;
const at: number[] = [];
for (let i = 0, t = profile.startTime; i < profile.samples.length; i++) at.push((t += profile.timeDeltas[i] ?? 0));
const from = last ? profile.endTime - last : Number.NEGATIVE_INFINITY;
for (let i = 0; i < profile.samples.length; i++) if (at[i] < from) profile.timeDeltas[i] = 0;

// Self time per node from the sample deltas (more exact than hitCount * interval).
const self = new Map<number, number>();
for (let i = 0; i < profile.samples.length; i++)
  self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
const total = [...self.values()].reduce((a, b) => a + b, 0);

function bucket(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const src = /\/work\/[^/]+\/(.+)$/.exec(url)?.[1] ?? url;
  const parts = src.split('/');
  return parts.slice(0, Math.min(parts.length - 1, 3)).join('/') || src;
}

const byBucket = new Map<string, number>();
const byFn = new Map<string, number>();
for (const n of profile.nodes) {
  const t = self.get(n.id) ?? 0;
  if (!t) continue;
  const b = bucket(n.callFrame.url, n.callFrame.functionName);
  byBucket.set(b, (byBucket.get(b) ?? 0) + t);
  const where = n.callFrame.url
    ? `${n.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/\/work\/[^/]+\//, '')}:${n.callFrame.lineNumber + 1}`
    : '';
  const f = `${n.callFrame.functionName || '(anonymous)'} ${where}`;
  byFn.set(f, (byFn.get(f) ?? 0) + t);
}

const pct = (t: number) => `${((t / total) * 100).toFixed(1).padStart(5)}%`;
console.log(`${file}: ${(total / 1e6).toFixed(2)} s sampled\n\nself time by package / folder:`);
for (const [b, t] of [...byBucket].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(t)}  ${b}`);
console.log('\nhottest functions (self):');
for (const [f, t] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(t)}  ${f}`);

// `tsx bench/profile-summary.ts <file> <top> <functionName>`: who calls it (self time of the function, by caller chain).
const focus = process.argv[4];
if (focus) {
  const parent = new Map<number, Node>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n);
  const chains = new Map<string, number>();
  for (const n of profile.nodes) {
    if (n.callFrame.functionName !== focus) continue;
    const t = self.get(n.id) ?? 0;
    if (!t) continue;
    const chain: string[] = [];
    for (let p = parent.get(n.id); p && chain.length < 8; p = parent.get(p.id)) {
      chain.push(
        `${p.callFrame.functionName || '(anon)'}@${p.callFrame.url.replace(/^.*\//, '')}:${p.callFrame.lineNumber + 1}`,
      );
    }
    const k = chain.join(' < ');
    chains.set(k, (chains.get(k) ?? 0) + t);
  }
  console.log(`\ncallers of ${focus} (self time):`);
  for (const [k, t] of [...chains].sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log(`  ${pct(t)}  ${k}`);
}

// `BENCH_PROFILE_INCLUSIVE=1`: also the functions with the most inclusive (self + callees) time.
if (process.env.BENCH_PROFILE_INCLUSIVE) {
  const parent = new Map<number, Node>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const label = (n: Node) =>
    `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/\/work\/[^/]+\//, '')}:${n.callFrame.lineNumber + 1}`;
  const incl = new Map<string, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const seen = new Set<string>();
    for (let n = byId.get(profile.samples[i]); n; n = parent.get(n.id)) seen.add(label(n));
    for (const l of seen) incl.set(l, (incl.get(l) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  console.log('\ninclusive time:');
  for (const [f, t] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, top * 3)) console.log(`  ${pct(t)}  ${f}`);
}
