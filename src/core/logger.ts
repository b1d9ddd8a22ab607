import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import pino, { type DestinationStream } from 'pino';
import { config } from './config.ts';

/** The request (or job) a log line belongs to: every line written inside `withLogContext` carries it. */
export interface LogContext {
  requestId?: string;
  jobId?: string;
  queue?: string;
}
const logContext = new AsyncLocalStorage<LogContext>();

/** Runs `fn` (and everything it starts) with its lines tagged by `ctx` (pino's mixin below). */
export function withLogContext<T>(ctx: LogContext, fn: () => T): T {
  return logContext.run(ctx, fn);
}

const options: pino.LoggerOptions = {
  level: config.logLevel,
  base: { service: 'svc' },
  // Provider tokens of saved methods never reach a log line (docs/security.md, Saved payment methods).
  redact: {
    paths: [
      'providerToken',
      '*.providerToken',
      'savedMethod.token',
      '*.savedMethod.token',
      'saved_token_id',
      '*.saved_token_id',
      'payment_option_token',
      '*.payment_option_token',
      'vault_id',
      '*.vault_id',
    ],
    censor: '[sealed]',
  },
  // A fresh object per line: pino merges the line's own fields INTO what the mixin returns.
  mixin: () => {
    const ctx = logContext.getStore();
    return ctx ? { ...ctx } : {};
  },
};

const toStderr = !!process.env.SVC_LOG_STDERR;
/**
 * `SVC_LOG_FORMAT=pretty|json`; by default readable lines (pino-pretty) when the stream is a
 * terminal, JSON otherwise (files, pipes, log shippers).
 */
const format = process.env.SVC_LOG_FORMAT ?? ((toStderr ? process.stderr : process.stdout).isTTY ? 'pretty' : 'json');

function destination(): DestinationStream {
  const fd = toStderr ? 2 : 1;
  if (format === 'pretty') {
    // Loaded only for a terminal: a production process never carries the prettifier.
    const pretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
    // One line per entry (fields as JSON after the message): a request is one line, not one per field.
    return pretty({
      destination: fd,
      colorize: true,
      singleLine: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,service',
    });
  }
  return toStderr ? pino.destination(2) : pino.destination({ dest: 1, minLength: 4096, periodicFlush: 250 });
}

/**
 * Structured logs; request logs carry `requestId`, `workspaceId` and `mode`. On stdout, except
 * for one-shot CLI commands (SVC_LOG_STDERR, set by app/cli.ts), whose stdout is their result.
 * JSON server logs are written in batches of at least 4 KiB, or every 250 ms, and on exit (pino):
 * one write per log line was ~3% of a busy server's CPU (docs/performance.md).
 */
export const logger = pino(options, destination());

/**
 * The access log's writer (src/server/http.ts, one line per request): the same destination, level
 * and log context, without the redact paths. Its fields are fixed (request id, method, route, the
 * URL with its secrets removed by src/server/access-log.ts, status, ms) and none is a redacted
 * path; with the wildcard paths pino passed every field of every line through the redactor
 * (~2% of a REST request's CPU).
 */
export const requestLogger = logger.child({}, { redact: [] });
