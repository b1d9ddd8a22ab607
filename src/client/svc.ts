import { randomUUID } from 'node:crypto';
import { signRequest } from '../core/auth/signing.ts';
import { sha256Hex } from '../core/crypto.ts';
import type { operations as Operations } from './generated/openapi.ts';
import { operations } from './generated/operations.ts';
import { verifyWebhook, type VerifyWebhookOptions, type WebhookEvent } from './webhooks.ts';

/**
 * The typed client: one method per REST route, typed by the OpenAPI document (both generated
 * from the route table by `npm run openapi`, so a new route is here without an edit). It signs
 * each attempt, sends an Idempotency-Key with every write and keeps it across its retries,
 * retries 429 after `Retry-After` and network failures and 5xx of idempotent calls with
 * exponential backoff, and walks list pages (docs/decisions.md, Typed client).
 *
 *     const svc = new Svc({ baseUrl, keyId, secret });
 *     const session = await svc.api.createCheckoutSession({ body: { amount: 50_000, currency: 'IDR', ... } });
 *     for await (const p of svc.paginate('listPayments', { query: { status: 'succeeded' } })) ...
 */

export type OperationId = keyof Operations & keyof typeof operations;
type Responses<O extends OperationId> = Operations[O]['responses'];
type SuccessStatus = 200 | 201 | 202 | 204 | 302;
type Success<O extends OperationId> = Responses<O>[Extract<keyof Responses<O>, SuccessStatus>];

/** A document route's answer (receipts, invoices): the bytes and how the server named them. */
export interface SvcDocument {
  contentType: string;
  filename: string | null;
  body: Uint8Array;
}

/** A redirect route's answer (an invoice's PDF): where it leads, not followed (a signed, short-lived URL). */
export interface SvcRedirect {
  location: string;
}

/** What a call resolves to: the envelope's `data`, a document's bytes, a redirect's target, or nothing (204). */
export type ResultOf<O extends OperationId> =
  Success<O> extends { content: { 'application/json': { data: infer D } } }
    ? D
    : Success<O> extends { content: Record<string, unknown> }
      ? SvcDocument
      : 302 extends keyof Responses<O>
        ? SvcRedirect
        : undefined;

/** The element of a list route's `data`. */
export type ItemOf<O extends OperationId> = ResultOf<O> extends (infer I)[] ? I : never;

/** The error codes a route documents, spelled as it answers them. */
export type ErrorCodeOf<O extends OperationId> = {
  [S in Exclude<keyof Responses<O>, SuccessStatus>]: Responses<O>[S] extends {
    content: { 'application/json': { error?: { code?: infer C } } };
  }
    ? C
    : never;
}[Exclude<keyof Responses<O>, SuccessStatus>];

type Params<O extends OperationId> = Operations[O]['parameters'];
type Defined<T> = Exclude<T, undefined>;

/** A call's arguments: `params` for `{id}`s, `query`, `body`, and per-call options. */
export type ArgsOf<O extends OperationId> = (Params<O> extends { path: infer P } ? { params: P } : unknown) &
  ([Defined<Params<O>['query']>] extends [never] ? unknown : { query?: Defined<Params<O>['query']> }) &
  (Operations[O] extends { requestBody: { content: { 'application/json': infer B } } }
    ? { body: B }
    : Operations[O] extends { requestBody: { content: { 'text/csv': unknown } } }
      ? { body: Uint8Array | string }
      : Operations[O] extends { requestBody?: { content: { 'application/json': infer B } } }
        ? { body?: B }
        : unknown) &
  CallOptions;

export interface CallOptions {
  /** Default: a new random key per call (writes only), reused by every retry of that call. */
  idempotencyKey?: string;
  /** Platform-admin keys: act on this merchant (`acc_` id). */
  onBehalfOf?: string;
  signal?: AbortSignal;
}

/** The operations whose `data` is a page: `paginate` walks them. */
export type ListOperationId = {
  [O in OperationId]: 'cursor' extends keyof Defined<Params<O>['query']> ? O : never;
}[OperationId];

type CallArgs<O extends OperationId> = object extends ArgsOf<O> ? [args?: ArgsOf<O>] : [args: ArgsOf<O>];

export interface SvcOptions {
  baseUrl: string;
  keyId: string;
  secret: string;
  onBehalfOf?: string;
  /** Retries after the first attempt (default 2). */
  maxRetries?: number;
  /** First backoff step in ms, doubled per retry with jitter (default 500). */
  retryBaseMs?: number;
  /** Ceiling of one backoff step and of a `Retry-After` honoured (default 30 s). */
  retryMaxMs?: number;
  /** Per attempt (default 30 s): a timeout counts as a network failure. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/**
 * A write's body and its headers: JSON, or a raw body (an uploaded file) sent as given with its SHA-256 declared,
 * which the server signs over in place of the body's (docs/reconciliation.md, Import pipeline).
 */
function bodyOf(route: { raw?: boolean }, value: unknown): { body: Buffer | string; headers: Record<string, string> } {
  if (value === undefined) return { body: '', headers: {} };
  if (!route.raw) return { body: JSON.stringify(value), headers: { 'content-type': 'application/json' } };
  const body = Buffer.from(value as Uint8Array | string);
  return { body, headers: { 'content-type': 'text/csv', 'x-svc-content-sha256': sha256Hex(body) } };
}

/** A call the server refused: the envelope's error, its HTTP status and request id. */
export class SvcError<C extends string = string> extends Error {
  readonly status: number;
  readonly code: C;
  readonly field?: string;
  readonly requestId?: string;
  /** Seconds, from `Retry-After` (429). */
  readonly retryAfter?: number;
  /** Attempts made, retries included. */
  readonly attempts: number;
  constructor(init: {
    status: number;
    code: C;
    message: string;
    field?: string;
    requestId?: string;
    retryAfter?: number;
    attempts: number;
  }) {
    super(init.message);
    this.name = 'SvcError';
    this.status = init.status;
    this.code = init.code;
    this.field = init.field;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.attempts = init.attempts;
  }
}

/** No HTTP answer (refused, reset, timed out) after the retries allowed. */
export class SvcConnectionError extends Error {
  readonly attempts: number;
  constructor(message: string, attempts: number, cause: unknown) {
    super(message, { cause });
    this.name = 'SvcConnectionError';
    this.attempts = attempts;
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });

type Api = { [O in OperationId]: (...args: CallArgs<O>) => Promise<ResultOf<O>> };

export class Svc {
  readonly #opts: Required<Omit<SvcOptions, 'onBehalfOf' | 'fetch'>> & Pick<SvcOptions, 'onBehalfOf'>;
  readonly #fetch: typeof fetch;
  /** One method per operation: `svc.api.getPayment({ params: { id } })`. */
  readonly api: Api;

  constructor(opts: SvcOptions) {
    this.#opts = {
      maxRetries: 2,
      retryBaseMs: 500,
      retryMaxMs: 30_000,
      timeoutMs: 30_000,
      ...opts,
      baseUrl: opts.baseUrl.replace(/\/$/, ''),
    };
    this.#fetch = opts.fetch ?? fetch;
    this.api = new Proxy({} as Api, {
      get: (_, op) => {
        if (typeof op !== 'string' || !(op in operations)) return undefined;
        const call = this.call as (op: string, args?: unknown) => Promise<unknown>;
        return (args?: unknown) => call.call(this, op, args);
      },
    });
  }

  /** Calls one operation by its id (the OpenAPI operationId, the route id). */
  async call<O extends OperationId>(op: O, ...[args]: CallArgs<O>): Promise<ResultOf<O>> {
    const out = await this.#send(op, (args ?? {}) as ArgsOf<O>);
    return out.result as ResultOf<O>;
  }

  /** Every item of a list route, page after page, following `meta.page.nextCursor`. */
  async *paginate<O extends ListOperationId>(op: O, ...[args]: CallArgs<O>): AsyncGenerator<ItemOf<O>> {
    const base = (args ?? {}) as ArgsOf<O> & { query?: Record<string, unknown> };
    let cursor: string | null | undefined = base.query?.cursor as string | undefined;
    do {
      const query = { ...base.query, ...(cursor ? { cursor } : {}) };
      const out = await this.#send(op, { ...base, query } as ArgsOf<O>);
      for (const item of out.result as ItemOf<O>[]) yield item;
      cursor = out.page?.hasMore ? out.page.nextCursor : null;
    } while (cursor);
  }

  /** Verifies a webhook delivery (raw body, headers, the endpoint's secret); throws WebhookVerificationError. */
  static verifyWebhook<T = unknown>(opts: VerifyWebhookOptions): WebhookEvent<T> {
    return verifyWebhook<T>(opts);
  }

  async #send(
    op: OperationId,
    args: CallOptions & { params?: object; query?: object; body?: unknown },
  ): Promise<{ result: unknown; page?: { hasMore: boolean; nextCursor: string | null } }> {
    const route = operations[op] as {
      method: string;
      path: string;
      binary?: boolean;
      redirect?: boolean;
      raw?: boolean;
    };
    const params = (args.params ?? {}) as Record<string, string>;
    const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      if (params[name] === undefined) throw new TypeError(`${op}: params.${name} is required`);
      return encodeURIComponent(params[name]);
    });
    const target = path + queryString((args.query ?? {}) as Record<string, unknown>);
    const write = route.method !== 'GET';
    const { body, headers: bodyHeaders } = bodyOf(route, write ? args.body : undefined);
    // One key per call, before the first attempt: every retry replays the same operation.
    const idempotencyKey = write ? (args.idempotencyKey ?? `svc_${randomUUID()}`) : undefined;
    const onBehalfOf = args.onBehalfOf ?? this.#opts.onBehalfOf;
    const { maxRetries, retryBaseMs, retryMaxMs, timeoutMs } = this.#opts;
    // With a key a write is idempotent too: the server replays it or finishes it once.
    const retrySafe = !write || idempotencyKey !== undefined;
    const backoff = (attempt: number) => Math.min(retryMaxMs, retryBaseMs * 2 ** attempt) * (0.5 + Math.random() / 2);

    for (let attempt = 0; ; attempt++) {
      const signed = signRequest({
        keyId: this.#opts.keyId,
        secret: this.#opts.secret,
        method: route.method,
        target,
        body,
      });
      let res: Response;
      try {
        const signal = args.signal
          ? AbortSignal.any([args.signal, AbortSignal.timeout(timeoutMs)])
          : AbortSignal.timeout(timeoutMs);
        res = await this.#fetch(this.#opts.baseUrl + target, {
          method: route.method,
          headers: {
            ...signed,
            accept: route.binary ? '*/*' : 'application/json',
            ...bodyHeaders,
            ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
            ...(onBehalfOf ? { 'x-svc-on-behalf-of': onBehalfOf } : {}),
          },
          body: body.length ? (body as BodyInit) : undefined,
          // A redirect is the answer: its target is public and short-lived, the caller fetches it.
          redirect: route.redirect ? 'manual' : 'follow',
          signal,
        });
      } catch (e) {
        if (args.signal?.aborted) throw e;
        if (retrySafe && attempt < maxRetries) {
          await sleep(backoff(attempt), args.signal);
          continue;
        }
        throw new SvcConnectionError(`${route.method} ${target}: ${(e as Error).message}`, attempt + 1, e);
      }

      if (route.redirect && res.status >= 300 && res.status < 400) {
        const location = res.headers.get('location');
        if (location) return { result: { location: new URL(location, this.#opts.baseUrl).href } satisfies SvcRedirect };
      }
      if (res.ok) {
        if (route.binary) {
          const disposition = res.headers.get('content-disposition') ?? '';
          return {
            result: {
              contentType: res.headers.get('content-type') ?? 'application/octet-stream',
              filename: /filename="([^"]*)"/.exec(disposition)?.[1] ?? null,
              body: new Uint8Array(await res.arrayBuffer()),
            } satisfies SvcDocument,
          };
        }
        const text = await res.text();
        if (!text) return { result: undefined };
        const json = JSON.parse(text) as {
          data: unknown;
          meta?: { page?: { hasMore: boolean; nextCursor: string | null } };
        };
        return { result: json.data, page: json.meta?.page };
      }

      const text = await res.text();
      let error: { code?: string; message?: string; field?: string } | undefined;
      let requestId = res.headers.get('x-request-id') ?? undefined;
      try {
        const json = JSON.parse(text);
        error = json?.error ?? undefined;
        requestId = json?.meta?.requestId ?? requestId;
      } catch {
        /* not the envelope (a proxy's page): the status speaks */
      }
      const retryAfterHeader = res.headers.get('retry-after');
      const retryAfter =
        retryAfterHeader !== null && /^\d+$/.test(retryAfterHeader) ? Number(retryAfterHeader) : undefined;
      const retryable = res.status === 429 || (retrySafe && [500, 502, 503, 504].includes(res.status));
      // Retry-After is the server's floor, never retried sooner; beyond retryMaxMs the caller decides.
      const wait = retryAfter !== undefined ? retryAfter * 1000 : backoff(attempt);
      if (retryable && attempt < maxRetries && wait <= retryMaxMs) {
        await sleep(wait, args.signal);
        continue;
      }
      throw new SvcError({
        status: res.status,
        code: error?.code ?? `http_${res.status}`,
        message: error?.message ?? `${route.method} ${target} answered ${res.status}`,
        field: error?.field,
        requestId,
        retryAfter,
        attempts: attempt + 1,
      });
    }
  }
}

/** Query values as the routes read them: arrays repeat the name, `metadata` objects become `metadata[k]`. */
function queryString(query: Record<string, unknown>): string {
  const pairs: string[] = [];
  const add = (k: string, v: unknown) => {
    if (v === undefined || v === null) return;
    pairs.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  };
  for (const [k, v] of Object.entries(query)) {
    if (Array.isArray(v)) for (const x of v) add(k, x);
    else if (v && typeof v === 'object') for (const [mk, mv] of Object.entries(v)) add(`${k}[${mk}]`, mv);
    else add(k, v);
  }
  return pairs.length ? `?${pairs.join('&')}` : '';
}
