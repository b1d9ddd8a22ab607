import pino from 'pino';
import { config } from './config.ts';

const options = { level: config.logLevel, base: { service: 'svc' } };

/**
 * Structured JSON logs; request logs carry `requestId`, `workspaceId` and `mode`. On stdout, except
 * for one-shot CLI commands (SVC_LOG_STDERR, set by src/cli/main.ts), whose stdout is their result.
 * Server logs are written in batches of at least 4 KiB, or every 250 ms, and on exit (pino): one
 * write per log line was ~3% of a busy server's CPU (docs/performance.md).
 */
export const logger = process.env.SVC_LOG_STDERR
  ? pino(options, pino.destination(2))
  : pino(options, pino.destination({ dest: 1, minLength: 4096, periodicFlush: 250 }));
