import { config } from './config.ts';

/** DECISIONS §2: `HOSTED_BASE_URL`, else the server's own origin on its configured port. */
export function hostedBase(): string {
  return (config.hostedBaseUrl ?? `http://localhost:${config.port}`).replace(/\/+$/, '');
}
