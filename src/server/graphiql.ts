import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * GraphiQL served whole from this server (no CDN: it works offline), signing in the browser
 * (src/server/graphiql/signer.js: WebCrypto HMAC, the key typed into the page and kept in
 * sessionStorage). The IDE is the bundle that ships in `@graphql-yoga/render-graphiql` (GraphiQL,
 * React and Monaco, prebuilt: no build step); graphql-ws's own UMD build carries subscriptions.
 * The 9 MB bundle is loaded on the first page view, not at boot, and sent gzipped when accepted.
 */

const require = createRequire(import.meta.url);
/** A package's folder: its UMD build is a file the package's `exports` does not list. */
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

interface Asset {
  type: string;
  body: Buffer;
  gzip?: Buffer;
}
let assets: Promise<Map<string, Asset>> | null = null;

async function loadAssets(): Promise<Map<string, Asset>> {
  const bundle = await import('@graphql-yoga/render-graphiql/graphiql');
  const js = 'text/javascript; charset=utf-8';
  const favicon = /^data:([^;]+);base64,(.*)$/.exec(bundle.favicon);
  const entries: [string, Asset][] = [
    ['graphiql.js', { type: js, body: Buffer.from(bundle.js) }],
    ['graphiql.css', { type: 'text/css; charset=utf-8', body: Buffer.from(bundle.css) }],
    ['worker-editorWorkerService.js', { type: js, body: Buffer.from(bundle.editorWorkerService) }],
    ['worker-json.js', { type: js, body: Buffer.from(bundle.jsonWorker) }],
    ['worker-graphql.js', { type: js, body: Buffer.from(bundle.graphqlWorker) }],
    ['graphql-ws.js', { type: js, body: readFileSync(join(packageDir('graphql-ws'), 'umd', 'graphql-ws.min.js')) }],
    ['signer.js', { type: js, body: readFileSync(join(import.meta.dirname, 'graphiql', 'signer.js')) }],
  ];
  if (favicon) entries.push(['favicon.ico', { type: favicon[1], body: Buffer.from(favicon[2], 'base64') }]);
  for (const [, a] of entries) if (a.body.length > 1024 && a.type !== 'image/x-icon') a.gzip = gzipSync(a.body);
  return new Map(entries);
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
    <link rel="icon" href="/graphiql/favicon.ico" />
    <link rel="stylesheet" href="/graphiql/graphiql.css" />
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
    <script src="/graphiql/graphql-ws.js"></script>
    <script src="/graphiql/signer.js"></script>
    <script src="/graphiql/graphiql.js"></script>
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

export function mountGraphiQLAssets(fastify: FastifyInstance) {
  fastify.get('/graphiql/:file', async (req: FastifyRequest<{ Params: { file: string } }>, reply) => {
    const asset = (await getAssets()).get(req.params.file);
    if (!asset) return reply.callNotFound();
    const gzip = asset.gzip && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
    reply
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'public, max-age=3600')
      .header('vary', 'accept-encoding')
      .type(asset.type);
    if (gzip) reply.header('content-encoding', 'gzip');
    return reply.send(gzip ? asset.gzip : asset.body);
  });
}
