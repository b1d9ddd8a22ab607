#!/usr/bin/env node
// The `svc` CLI: TypeScript sources run through tsx's loader, no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
