/**
 * The dashboard's static assets (docs/dashboard.md, The app): bundled by esbuild from
 * src/dashboard/app in memory (once per process: on the first page view, or as `svc start|serve`
 * begins listening), served under
 * `/dashboard/assets/<name>-<hash>.<ext>` with a year's immutable caching, and referenced from the
 * page with Subresource Integrity. The page itself is never cached, never framed, and its CSP lets
 * nothing leave the origin.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Where the dashboard is served; sign-in (src/server/sign-in.ts) lives under it. */
export const DASHBOARD_PATH = '/dashboard';

interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
  integrity: string;
}
interface Built {
  assets: Map<string, Asset>;
  html: string;
}

const ENTRY = join(import.meta.dirname, 'app', 'main.tsx');
const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

async function build(): Promise<Built> {
  const esbuild = await import('esbuild');
  const out = await esbuild.build({
    entryPoints: [ENTRY],
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2022',
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    define: { 'process.env.NODE_ENV': '"production"' },
    entryNames: '[name]-[hash]',
    outdir: '/assets',
    logLevel: 'silent',
  });
  const assets = new Map<string, Asset>();
  for (const f of out.outputFiles) {
    const name = f.path.slice(f.path.lastIndexOf('/') + 1);
    const body = Buffer.from(f.contents);
    const integrity = `sha384-${createHash('sha384').update(body).digest('base64')}`;
    assets.set(name, {
      type: TYPES[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream',
      body,
      gzip: gzipSync(body),
      integrity,
    });
  }
  const tag = (ext: string) => [...assets].find(([n]) => n.endsWith(ext));
  const [js, jsAsset] = tag('.js')!;
  const css = tag('.css');
  const html =
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1"><title>Dashboard</title>' +
    (css ? `<link rel="stylesheet" href="${DASHBOARD_PATH}/assets/${css[0]}" integrity="${css[1].integrity}">` : '') +
    `<script type="module" src="${DASHBOARD_PATH}/assets/${js}" integrity="${jsAsset.integrity}"></script>` +
    '</head><body><div id="app"></div></body></html>';
  return { assets, html };
}

let built: Promise<Built> | null = null;
/** The bundle, built once (a failed build is tried again on the next request). */
export function dashboardBuild(): Promise<Built> {
  if (!built) {
    built = build();
    built.catch(() => {
      built = null;
    });
  }
  return built;
}

/** Only this origin: scripts and styles from the bundle, GraphQL and its socket, no frames. */
function pageCsp(req: FastifyRequest) {
  const ws = `${req.protocol === 'https' ? 'wss' : 'ws'}://${req.host}`;
  return (
    `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; ` +
    `connect-src 'self' ${ws}; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`
  );
}

export function mountDashboard(app: FastifyInstance) {
  app.get(`${DASHBOARD_PATH}/assets/:name`, async (req, reply) => {
    const asset = (await dashboardBuild()).assets.get((req.params as { name: string }).name);
    if (!asset) return reply.status(404).type('text/plain').send('Not found');
    const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    reply
      .header('content-type', asset.type)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .header('vary', 'accept-encoding');
    if (gzip) reply.header('content-encoding', 'gzip');
    return reply.send(gzip ? asset.gzip : asset.body);
  });
  const page = async (req: FastifyRequest, reply: import('fastify').FastifyReply) => {
    const { html } = await dashboardBuild();
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('content-security-policy', pageCsp(req))
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'same-origin')
      .header('x-content-type-options', 'nosniff')
      .send(html);
  };
  app.get(DASHBOARD_PATH, (_req, reply) => reply.redirect(`${DASHBOARD_PATH}/`));
  app.get(`${DASHBOARD_PATH}/`, page);
  // The app's own paths (payments, a payment, customers): the same page, the app routes.
  app.get(`${DASHBOARD_PATH}/:screen`, page);
  app.get(`${DASHBOARD_PATH}/:screen/:id`, page);
}
