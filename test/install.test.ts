// The first minutes on the machine's own Node (README, Quick start): npm install and npx svc
// print no warnings, and bin/svc.js on a Node too old to run it says which Node to use.
import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, SVC_BIN } from './helpers/cli.ts';

const SYSTEM_NODE = '/usr/bin/node';
const SYSTEM_NPM = '/usr/bin/npm';
const SYSTEM_NPX = '/usr/bin/npx';

function run(file: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv }) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      file,
      args,
      // The machine's PATH only: what a new user's shell has (no node_modules/.bin of this run).
      { cwd: opts.cwd, env: { HOME: process.env.HOME, PATH: '/usr/bin:/bin', ...opts.env }, timeout: 170_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

const systemMajor = () =>
  existsSync(SYSTEM_NODE)
    ? run(SYSTEM_NODE, ['-p', 'process.versions.node'], { cwd: ROOT }).then((r) => Number(r.stdout.split('.')[0]))
    : Promise.resolve(0);
const major = await systemMajor();
const oldSystemNode = major > 0 && major < 22 && existsSync(SYSTEM_NPM);
const warnings = (s: string) => s.split('\n').filter((l) => /^npm (warn|WARN)|EBADENGINE/.test(l));

describe.skipIf(!oldSystemNode)(`on the machine's Node ${major} (older than the Node svc runs on)`, () => {
  it('npm install resolves the locked tree without a warning', { timeout: 180_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-install-'));
    try {
      for (const f of ['package.json', 'package-lock.json', '.npmrc']) copyFileSync(join(ROOT, f), join(dir, f));
      // The whole resolution and engine check of `npm install`, offline, without writing node_modules.
      const r = await run(SYSTEM_NPM, ['install', '--dry-run', '--ignore-scripts', '--offline', '--no-audit'], {
        cwd: dir,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(warnings(r.stderr + r.stdout)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('npx svc runs on the bundled Node without a warning', { timeout: 180_000 }, async () => {
    const cache = mkdtempSync(join(tmpdir(), 'svc-npx-cache-'));
    try {
      // A fresh npm cache: the first npx of a new user, when npm checks the package's engines.
      const r = await run(SYSTEM_NPX, ['--offline', 'svc', 'help'], { cwd: ROOT, env: { npm_config_cache: cache } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('svc <command> [options]');
      expect(warnings(r.stderr)).toEqual([]);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it('bin/svc.js run by that Node directly says which Node it needs, without a stack trace', async () => {
    const r = await run(SYSTEM_NODE, [SVC_BIN, 'help'], { cwd: ROOT });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^svc: needs Node 22\.12 or newer \(this is v\d+\.\d+\.\d+\); run it as `npx svc`/);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});
