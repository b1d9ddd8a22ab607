import pino from 'pino';
import { config } from './config.ts';

const options = { level: config.logLevel, base: { service: 'svc' } };

/**
 * Structured JSON logs; request logs carry `requestId`, `workspaceId` and `mode`. On stdout, except
 * for one-shot CLI commands (SVC_LOG_STDERR, set by src/cli/main.ts), whose stdout is their result.
 */
export const logger = process.env.SVC_LOG_STDERR ? pino(options, pino.destination(2)) : pino(options);
