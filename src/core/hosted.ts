import { config } from './config.ts';

/** spec Bootstrap: `HOSTED_BASE_URL`, else the server's own origin on its configured port. */
export function hostedBase(): string {
  return (config.hostedBaseUrl ?? `http://localhost:${config.port}`).replace(/\/+$/, '');
}
