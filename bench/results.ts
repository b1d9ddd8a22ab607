/**
 * Where a bench leaves its figures: `bench/results/<name>.json`, one file per bench (and variant),
 * overwritten by each run, so docs/performance.md points to measured files instead of copied tables.
 * Each file says what was run, where and when: the command and its BENCH_ settings, the commit, the
 * machine and its load average at the end.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, relative } from 'node:path';

const dir = join(import.meta.dirname, 'results');

const commit = () => {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim();
    return dirty ? `${head} (with uncommitted changes)` : head;
  } catch {
    return null;
  }
};

/** Writes `results` (plain JSON) to bench/results/<name>.json and returns the path written. */
export function writeResults(name: string, results: unknown): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.json`);
  const settings = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('BENCH_')));
  const record = {
    bench: name,
    at: new Date().toISOString(),
    command: `${process.env.npm_lifecycle_event ? `npm run ${process.env.npm_lifecycle_event}` : process.argv.slice(1).join(' ')}`,
    settings,
    commit: commit(),
    machine: {
      node: process.version,
      cpu: os.cpus()[0]?.model ?? 'unknown',
      cores: os.availableParallelism(),
      loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
    },
    results,
  };
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  return relative(process.cwd(), file);
}
