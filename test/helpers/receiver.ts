import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  /** The request target (path and query). */
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Date.now() when the body had arrived. */
  at: number;
}

/** What the receiver answers: a status (with an optional body), or `hang` (never answers). */
export type Reply = number | { status: number; body?: string } | 'hang';

/**
 * A real webhook receiver on 127.0.0.1. `reply` decides each answer from the request number
 * (0-based) and the request; every request is recorded, answered or not.
 */
export async function startReceiver(reply: (n: number, r: Received) => Reply = () => 200) {
  const received: Received[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks), at: Date.now() };
      const n = received.push(r) - 1;
      const answer = reply(n, r);
      if (answer === 'hang') return void hanging.add(res);
      const { status, body } = typeof answer === 'number' ? { status: answer, body: 'ok' } : answer;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(body ?? '');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: `${origin}/hooks`,
    received,
    /** Closes every connection (the sender's keep-alive sockets included): its next request connects anew. */
    dropConnections: () => server.closeAllConnections(),
    /** Parsed bodies in arrival order. */
    events: () => received.map((r) => JSON.parse(r.body.toString())),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Polls until `pred` holds (no fixed sleeps): throws with `what` after `ms`. */
export async function until(pred: () => boolean | Promise<boolean>, what: string, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
