import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, refusedAddress } from './url-policy.ts';

/** What one attempt saw. `statusCode` is null when no response came; `durationMs` null on timeout. */
export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  durationMs: number | null;
  preview: string | null;
  error?: string;
}

const PREVIEW_BYTES = 1024; // spec: first 1 KB of the receiver's response
const DRAIN_BYTES = 64 * 1024; // read past the preview so the connection can be reused, up to this
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 256 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

/** Text safe for PostgreSQL: the first 1 KB, NULs dropped (a cut multi-byte character becomes U+FFFD). */
const previewOf = (chunks: Buffer[]) =>
  Buffer.concat(chunks).subarray(0, PREVIEW_BYTES).toString('utf8').replace(/\0/g, '');

/**
 * POSTs a signed body. Redirects are not followed (a 3xx is a failure); every address the host
 * resolves to is checked at connect time, so a rebinding name cannot reach a private network.
 */
export function postWebhook(
  url: string,
  body: Buffer,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<AttemptResult> {
  return new Promise((resolve) => {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const target = new URL(url);
    const host = target.hostname.replace(/^\[|\]$/g, '');
    const refused = isIP(host) ? refusedAddress(host) : null;
    if (refused)
      return resolve({ ok: false, statusCode: null, durationMs: 0, preview: null, error: `${host} is ${refused}` });
    let settled = false;
    const done = (r: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const req = (target.protocol === 'https:' ? https : http).request(target, {
      method: 'POST',
      agent: agents[target.protocol as 'http:' | 'https:'],
      lookup: guardedLookup,
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(body.length),
        'user-agent': 'svc-webhooks/1',
      },
    });
    const timer = setTimeout(() => {
      req.destroy();
      done({ ok: false, statusCode: null, durationMs: null, preview: null, error: `timed out after ${timeoutMs} ms` });
    }, timeoutMs);
    req.on('error', (e) =>
      done({ ok: false, statusCode: null, durationMs: elapsed(), preview: null, error: e.message }),
    );
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = () => {
        const statusCode = res.statusCode ?? null;
        done({
          ok: statusCode !== null && statusCode >= 200 && statusCode < 300,
          statusCode,
          durationMs: elapsed(),
          preview: previewOf(chunks),
        });
      };
      res.on('data', (c: Buffer) => {
        if (size < PREVIEW_BYTES) chunks.push(c);
        size += c.length;
        if (size > DRAIN_BYTES) {
          finish();
          res.destroy();
        }
      });
      res.on('end', finish);
      res.on('error', finish);
      res.on('aborted', finish);
    });
    req.end(body);
  });
}
