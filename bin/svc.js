#!/usr/bin/env node
// The `svc` CLI: TypeScript sources run through tsx's loader, no build step.
import { serverEnv, serverNodeFlags } from './node-flags.js';

// npm installs on Node 20.19+, but svc and its dependencies run on 22.12+: `npx svc` and `npm run`
// use the Node 24 that `npm install` brings (node_modules/.bin/node). Said once, plainly, instead
// of a stack trace from a dependency.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(
    `svc: needs Node 22.12 or newer (this is ${process.version}); run it as \`npx svc\` or \`npm start\` ` +
      'in the checkout, which use the Node 24 that npm install brought (node_modules/.bin/node)\n',
  );
  process.exit(1);
}

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
await import('../app/cli.ts');
