import { exec, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, SVC_BIN } from './cli.ts';

/** The ```<lang> blocks of a markdown text, as written. */
export const fencedBlocks = (markdown: string, lang: string) =>
  [...markdown.matchAll(new RegExp(`^\`\`\`${lang}\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1]);

/** The ```sh blocks of a README section, one command per line (trailing `# comments` dropped). */
export function shellBlocks(markdown: string, section: string): string[][] {
  const body = markdown.split(/^## /m).find((s) => s.startsWith(`${section}\n`));
  if (!body) throw new Error(`README has no "## ${section}" section`);
  return fencedBlocks(body, 'sh').map((block) =>
    block
      .split('\n')
      .map((l) => l.replace(/\s+#.*$/, '').trim())
      .filter(Boolean),
  );
}

export const readme = () => readFileSync(join(ROOT, 'README.md'), 'utf8');

/**
 * What the quick start test does with a line: the clone and the install are this checkout (done),
 * `npm start` runs in the background, anything else runs in a shell with `npx svc` as this
 * checkout's bin/svc.js (npx would look for the package in the scratch folder).
 */
export type Step = { kind: 'given'; line: string } | { kind: 'server'; line: string } | { kind: 'run'; line: string };
export function stepOf(line: string): Step {
  if (/^git clone /.test(line) || /^npm (install|ci)$/.test(line)) return { kind: 'given', line };
  if (line === 'npm start') return { kind: 'server', line };
  if (/^cd /.test(line) || line.includes('git clone')) return { kind: 'given', line };
  return { kind: 'run', line };
}

const svcCommand = `'${process.execPath}' '${SVC_BIN}'`;

export function runLine(line: string, cwd: string, env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    exec(
      line.replace(/\bnpx svc\b/g, svcCommand),
      { cwd, env, timeout: 60_000, shell: '/bin/sh' },
      (err, stdout, stderr) => resolve({ code: err ? ((err.code as number) ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** A shell script (`set -e`: the first failing command ends it), `npx svc` as this checkout's bin/svc.js. */
export const runScript = (script: string, cwd: string, env: NodeJS.ProcessEnv) =>
  runLine(`set -e\n${script}`, cwd, env);

/** `npm start` as the README has it: bin/svc.js start (what the package's start script runs). */
export function startServer(cwd: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [SVC_BIN, 'start'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
