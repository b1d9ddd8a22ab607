#!/usr/bin/env node
// The `svc` CLI: TypeScript sources run through tsx's loader, no build step.
import { serverEnv, serverNodeFlags } from './node-flags.js';

// Long-running commands replace themselves once with the server's V8 flags (same pid, no wrapper).
const longRunning = ['start', 'serve', 'worker'].includes(process.argv[2]);
if (longRunning && process.execve && !serverNodeFlags.every((f) => process.execArgv.includes(f))) {
  process.execve(
    process.execPath,
    [process.execPath, ...process.execArgv, ...serverNodeFlags, ...process.argv.slice(1)],
    { ...serverEnv, ...process.env },
  );
}

const { register } = await import('tsx/esm/api');
register();
await import('../src/cli/main.ts');
