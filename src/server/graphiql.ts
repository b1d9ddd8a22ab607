import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { enforceRate, type RateLimiter } from '../core/rate-limit.ts';
import { clientBucket, replyError } from './edge-route.ts';

/**
 * GraphiQL served whole from this server (no CDN: it works offline), signing in the browser
 * (src/server/graphiql/signer.js: WebCrypto HMAC, the key typed into the page and kept in
 * sessionStorage). The IDE is the bundle that ships in `@graphql-yoga/render-graphiql` (GraphiQL,
 * React and Monaco, prebuilt: no build step); graphql-ws's own UMD build carries subscriptions.
 * The assets are built on the first page view in a worker thread (graphiql/assets-worker.mjs:
 * loading and gzipping the 9 MB bundle blocked the event loop 2.3 s), then served from memory:
 * gzipped when accepted, with an ETag, immutable under the page's versioned URLs, and
 * rate-limited per client address like the hosted pages (public, and 5 MB a request otherwise).
 */

const require = createRequire(import.meta.url);
const versionOf = (name: string) => (require(`${name}/package.json`) as { version: string }).version;

/** Changes when any asset can: the two packages' versions and our signer. The page's `?v=`. */
const version = createHash('sha256')
  .update(versionOf('@graphql-yoga/render-graphiql'))
  .update(versionOf('graphql-ws'))
  .update(readFileSync(join(import.meta.dirname, 'graphiql', 'signer.js')))
  .digest('hex')
  .slice(0, 12);

interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer | null;
  etag: string;
}
let assets: Promise<Map<string, Asset>> | null = null;

/** A Buffer over the transferred bytes, not a copy. */
const wrap = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

function loadAssets(): Promise<Map<string, Asset>> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./graphiql/assets-worker.mjs', import.meta.url));
    worker.once(
      'message',
      (list: (Omit<Asset, 'body' | 'gzip'> & { name: string; body: Uint8Array; gzip: Uint8Array | null })[]) =>
        resolve(
          new Map(
            list.map((a) => [a.name, { type: a.type, etag: a.etag, body: wrap(a.body), gzip: a.gzip && wrap(a.gzip) }]),
          ),
        ),
    );
    worker.once('error', reject);
    worker.once('exit', (code) => code !== 0 && reject(new Error(`GraphiQL assets worker exited with ${code}`)));
  });
}
const getAssets = () => {
  assets ??= loadAssets();
  assets.catch(() => (assets = null));
  return assets;
};

/**
 * The page's own policy: its scripts and workers only from here, requests only to here; it holds
 * a secret, so no framing (clickjacking) and no referrer. Monaco needs inline styles.
 */
const csp = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'", // same-origin ws: and wss: included (CSP3)
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="referrer" content="no-referrer" />
    <title>svc GraphQL</title>
    <link rel="icon" href="/graphiql/favicon.ico?v=${version}" />
    <link rel="stylesheet" href="/graphiql/graphiql.css?v=${version}" />
    <style>
      html, body { margin: 0; height: 100%; }
      #svc-bar { display: flex; gap: 8px; align-items: center; height: 40px; padding: 0 12px;
        font: 13px system-ui, sans-serif; border-bottom: 1px solid #ccc; box-sizing: border-box; }
      #svc-bar input[type=text], #svc-bar input[type=password] { width: 200px; }
      #svc-status.bad { color: #b00; }
      #root { height: calc(100% - 40px); }
    </style>
  </head>
  <body id="body" class="no-focus-outline">
    <form id="svc-bar" autocomplete="off">
      <label>Key id <input id="svc-key-id" type="text" placeholder="pk_test_..." spellcheck="false" /></label>
      <label>Secret <input id="svc-secret" type="password" /></label>
      <label><input id="svc-allow-live" type="checkbox" /> allow live</label>
      <button id="svc-save" type="submit">Save</button>
      <button id="svc-forget" type="button">Forget</button>
      <span id="svc-status"></span>
    </form>
    <noscript>GraphiQL needs JavaScript.</noscript>
    <div id="root"></div>
    <script src="/graphiql/graphql-ws.js?v=${version}"></script>
    <script src="/graphiql/signer.js?v=${version}"></script>
    <script src="/graphiql/graphiql.js?v=${version}"></script>
  </body>
</html>
`;

/** GET /graphql from a browser (Accept: text/html, unsigned): the page. */
export function sendGraphiQL(reply: FastifyReply) {
  return reply
    .header('content-security-policy', csp)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(page);
}

export function mountGraphiQLAssets(fastify: FastifyInstance, limiter: RateLimiter) {
  fastify.get(
    '/graphiql/:file',
    async (req: FastifyRequest<{ Params: { file: string }; Querystring: { v?: string } }>, reply) => {
      try {
        await enforceRate(limiter, clientBucket(req.ip), 'hosted');
      } catch (e) {
        return replyError(reply, e, req.requestId, 'generic');
      }
      const asset = (await getAssets()).get(req.params.file);
      if (!asset) return reply.callNotFound();
      reply
        .header('x-content-type-options', 'nosniff')
        // Under the page's current version the bytes never change; otherwise revalidate by ETag.
        .header('cache-control', req.query.v === version ? 'public, max-age=31536000, immutable' : 'no-cache')
        .header('etag', asset.etag)
        .header('vary', 'accept-encoding');
      const known = (req.headers['if-none-match'] ?? '').split(/\s*,\s*/);
      if (known.includes(asset.etag) || known.includes('*')) return reply.code(304).send();
      const gzip = asset.gzip && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
      reply.type(asset.type);
      if (gzip) reply.header('content-encoding', 'gzip');
      return reply.send(gzip ? asset.gzip : asset.body);
    },
  );
}
