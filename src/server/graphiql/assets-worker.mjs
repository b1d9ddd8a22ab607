// Builds GraphiQL's assets in a worker thread (src/server/graphiql.ts): importing the prebuilt
// bundle evaluates 9 MB of JavaScript (1.7 s) and gzipping it takes 0.6 s more, both of which
// blocked the server's event loop on the first page view. Here they block only this thread; the
// bundle's strings die with it, and the server keeps the bytes, their gzip and their hash.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';

const require = createRequire(import.meta.url);
/** A package's folder: its UMD build is a file the package's `exports` does not list. */
const packageDir = (name) => dirname(require.resolve(`${name}/package.json`));

const bundle = await import('@graphql-yoga/render-graphiql/graphiql');
const js = 'text/javascript; charset=utf-8';
const favicon = /^data:([^;]+);base64,(.*)$/.exec(bundle.favicon);
const entries = [
  ['graphiql.js', js, Buffer.from(bundle.js)],
  ['graphiql.css', 'text/css; charset=utf-8', Buffer.from(bundle.css)],
  ['worker-editorWorkerService.js', js, Buffer.from(bundle.editorWorkerService)],
  ['worker-json.js', js, Buffer.from(bundle.jsonWorker)],
  ['worker-graphql.js', js, Buffer.from(bundle.graphqlWorker)],
  ['graphql-ws.js', js, readFileSync(join(packageDir('graphql-ws'), 'umd', 'graphql-ws.min.js'))],
  ['signer.js', js, readFileSync(join(import.meta.dirname, 'signer.js'))],
];
if (favicon) entries.push(['favicon.ico', favicon[1], Buffer.from(favicon[2], 'base64')]);

// Each in an ArrayBuffer of its own, transferred: the server's thread copies nothing.
const own = (bytes) => new Uint8Array(bytes);
const built = entries.map(([name, type, body]) => ({
  name,
  type,
  body: own(body),
  gzip: body.length > 1024 && type !== 'image/x-icon' ? own(gzipSync(body, { level: 9 })) : null,
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
}));
parentPort.postMessage(
  built,
  built.flatMap((a) => [a.body.buffer, ...(a.gzip ? [a.gzip.buffer] : [])]),
);
