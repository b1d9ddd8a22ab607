// What the provider simulators share: a real node:http server on 127.0.0.1 (port 0), a tiny
// router, a request log, a "hang" switch (accept, never answer) and callback delivery with the
// misbehaviours real providers have: duplicates, delays, forgeries.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

export interface SimRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  text: string;
  json: any;
  params: string[];
}

export interface SimResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** An HTML page instead of JSON (the simulators' hosted tokenization and action pages). */
  html?: string;
  /** Do the work, then never answer (a response lost after the provider acted): the caller times out. */
  drop?: boolean;
}

type Handler = (req: SimRequest) => SimResponse | Promise<SimResponse>;

/** How a control method sends its callback. */
export interface DeliveryOptions {
  /** Extra copies of the same callback (providers retry and duplicate). */
  duplicates?: number;
  /** Wait this long before sending: the state changes at once, the callback comes late. */
  delayMs?: number;
  /** Sign or token the callback wrongly (an attacker's copy). */
  forge?: boolean;
  /** Change the state but send nothing (a lost callback). */
  deliver?: boolean;
}

export interface Delivery {
  status: number | null;
  body: string;
  error?: string;
}

export abstract class Simulator {
  url = '';
  /** When true, every API request is accepted and never answered (timeouts). */
  hang = false;
  /** When set, every request is answered with this status (an outage: 500, 503) and does nothing. */
  errorStatus: number | null = null;
  /**
   * Runs while a request is being served, before the answer is sent: tests look at the caller's
   * database from inside the provider call (no transaction open, no lock held).
   */
  during?: (req: { method: string; path: string }) => Promise<void> | void;
  readonly requests: { method: string; path: string; headers: IncomingMessage['headers']; body: string }[] = [];
  /** Every callback sent: where, headers, body, answer. */
  readonly sent: { url: string; headers: Record<string, string>; body: string; result: Delivery }[] = [];
  private server?: Server;
  private routes: { method: string; pattern: RegExp; handler: Handler }[] = [];
  private hanging = new Set<ServerResponse>();
  private pending = new Set<Promise<unknown>>();

  protected route(method: string, pattern: RegExp, handler: Handler) {
    this.routes.push({ method, pattern, handler });
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    // A burst's charges open hundreds of connections at once, as the app's callbacks do (src/server/http.ts LISTEN_BACKLOG).
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', 4096, resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close() {
    await this.flush();
    for (const res of this.hanging) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Runs `fn` after `ms` (a provider settling something later); close() waits for it. */
  protected later(ms: number, fn: () => unknown): void {
    const p = new Promise((r) => setTimeout(r, ms)).then(fn).catch(() => undefined);
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  /** Wait for every callback still being delivered. */
  async flush() {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://sim');
    this.requests.push({ method: req.method ?? '', path: url.pathname, headers: req.headers, body: text });
    if (this.hang) {
      this.hanging.add(res);
      return;
    }
    if (this.errorStatus) {
      res.writeHead(this.errorStatus, { 'content-type': 'application/json', ...this.responseHeaders() });
      res.end(JSON.stringify({ error: 'simulated outage' }));
      return;
    }
    if (this.during) await this.during({ method: req.method ?? '', path: url.pathname });
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    let out: SimResponse = { status: 404, body: { error: 'no such route' } };
    for (const r of this.routes) {
      const m = r.method === req.method ? r.pattern.exec(url.pathname) : null;
      if (!m) continue;
      try {
        out = await r.handler({
          method: r.method,
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          text,
          json,
          params: m.slice(1).map(decodeURIComponent),
        });
      } catch (e) {
        out = { status: 500, body: { error: String(e) } };
      }
      break;
    }
    if (out.drop) {
      this.hanging.add(res);
      return;
    }
    if (out.html !== undefined) {
      res.writeHead(out.status, { 'content-type': 'text/html; charset=utf-8', ...out.headers });
      res.end(out.html);
      return;
    }
    res.writeHead(out.status, { 'content-type': 'application/json', ...this.responseHeaders(), ...out.headers });
    res.end(out.body === undefined ? '' : JSON.stringify(out.body));
  }

  /** Headers on every answer (a request id, as providers send). */
  protected responseHeaders(): Record<string, string> {
    return { 'x-request-id': randomBytes(8).toString('hex') };
  }

  /** Sends one callback (plus duplicates), after the delay; tracked so close() waits for it. */
  protected deliver(
    url: string | undefined,
    headers: () => Record<string, string>,
    body: string,
    opts: DeliveryOptions,
  ): Promise<Delivery[]> {
    if (opts.deliver === false || !url) return Promise.resolve([]);
    const run = async () => {
      if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
      const out: Delivery[] = [];
      for (let i = 0; i <= (opts.duplicates ?? 0); i++) {
        const h = { 'content-type': 'application/json', 'user-agent': 'provider-simulator', ...headers() };
        let result: Delivery;
        try {
          const res = await fetch(url, {
            method: 'POST',
            headers: h,
            body,
            signal: AbortSignal.timeout(15_000),
            redirect: 'manual',
          });
          result = { status: res.status, body: await res.text() };
        } catch (e) {
          result = { status: null, body: '', error: String(e) };
        }
        this.sent.push({ url, headers: h, body, result });
        out.push(result);
      }
      return out;
    };
    const p = run();
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
    return p;
  }
}

export const hex = (bytes: number) => randomBytes(bytes).toString('hex');
export const uuid = () => crypto.randomUUID();
export const nowIso = () => new Date().toISOString();

/** The user and password of a Basic Authorization header, or null. */
export function basicCredentials(header: string | undefined): { user: string; password: string } | null {
  const m = /^Basic\s+(.+)$/i.exec(header ?? '');
  if (!m) return null;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  return i < 0 ? null : { user: decoded.slice(0, i), password: decoded.slice(i + 1) };
}

/** A QRIS-shaped EMV payload (tags, amount, CRC placeholder): what a wallet app would scan. */
export function qrisString(amount: number, reference: string): string {
  const tag = (id: string, v: string) => `${id}${String(v.length).padStart(2, '0')}${v}`;
  const body =
    tag('00', '01') +
    tag('01', '12') +
    tag('26', tag('00', 'ID.CO.QRIS.WWW') + tag('01', reference.slice(0, 20))) +
    tag('52', '5999') +
    tag('53', '360') +
    tag('54', String(amount)) +
    tag('58', 'ID') +
    tag('59', 'SIMULATED MERCHANT') +
    tag('60', 'JAKARTA') +
    '6304';
  return `${body}ABCD`;
}
