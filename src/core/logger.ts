import pino from 'pino';
import { config } from './config.ts';

/** Structured JSON logs; request logs carry `requestId`, `workspaceId` and `mode`. */
export const logger = pino({ level: config.logLevel, base: { service: 'svc' } });
