// The one way adapters talk HTTP: fetch with a hard timeout, no redirects, every call logged
// (provider, method, path, status, latency, the provider's request id) and handed to onCall.
import { logger } from '../core/logger.ts';
import { transactionOpen } from '../core/db/open-transaction.ts';
import { CallbackVerificationError, ProviderError } from './errors.ts';
import { maskTokenPath } from './saved.ts';
import type { ProviderCallRecord, ProviderKind, ProviderOptions } from './types.ts';

export const DEFAULT_TIMEOUT_MS = 10_000;

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path and query, appended to the base URL. */
  path: string;
  headers?: Record<string, string>;
  /** JSON bodies are passed already serialised (some callers splice raw bytes in). */
  body?: string;
  base?: string;
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON, or undefined when the body is empty or not JSON. */
  json: any;
}

const log = logger.child({ component: 'provider' });

/** Request ids providers echo, for support (Xendit, Midtrans, PayPal). */
const REQUEST_ID_HEADERS = ['request-id', 'x-request-id', 'paypal-debug-id', 'x-midtrans-request-id'];

export class ProviderHttp {
  constructor(
    readonly provider: ProviderKind,
    readonly baseUrl: string,
    private readonly options: ProviderOptions,
  ) {}

  async request(req: HttpRequest): Promise<HttpResponse> {
    const started = performance.now();
    // Logged and put in errors without the saved-method token some paths carry (docs/security.md).
    const pathOnly = maskTokenPath(req.path.split('?')[0]);
    // Write pending, commit, call, record the answer: never a provider call holding a transaction.
    if (transactionOpen())
      throw new Error(`${this.provider} ${req.method} ${pathOnly}: provider called inside a transaction`);
    const record = (status: number | null, providerRequestId: string | null, error?: string) => {
      const rec: ProviderCallRecord = {
        provider: this.provider,
        method: req.method,
        path: pathOnly,
        status,
        latencyMs: Math.round(performance.now() - started),
        providerRequestId,
        ...(error ? { error } : {}),
      };
      log[error || (status ?? 500) >= 500 ? 'warn' : 'info'](rec, 'provider call');
      this.options.onCall?.(rec);
    };
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    let res: Response;
    let text: string;
    try {
      res = await fetch((req.base ?? this.baseUrl).replace(/\/+$/, '') + req.path, {
        method: req.method,
        headers: {
          accept: 'application/json',
          ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...req.headers,
        },
        body: req.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await res.text();
    } catch (e) {
      const timedOut = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
      const message = timedOut ? `no answer within ${timeoutMs} ms` : `network error (${causeOf(e)})`;
      record(null, null, timedOut ? 'timeout' : 'network');
      throw new ProviderError(this.provider, timedOut ? 'timeout' : 'network', `${req.method} ${pathOnly}: ${message}`);
    }
    const requestId = REQUEST_ID_HEADERS.map((h) => res.headers.get(h)).find((v) => v) ?? null;
    record(res.status, requestId);
    let json: unknown;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }
    return { status: res.status, headers: res.headers, text, json };
  }
}

function causeOf(e: unknown): string {
  const err = e as { cause?: { code?: string; message?: string }; message?: string };
  return err?.cause?.code ?? err?.cause?.message ?? err?.message ?? 'unknown';
}

/** Turns a non-2xx (or unreadable 2xx) answer into the typed error; providers pass their code and message. */
export function failure(
  provider: ProviderKind,
  what: string,
  res: HttpResponse,
  providerCode?: string | null,
  providerMessage?: string | null,
): ProviderError {
  const detail = [providerCode, providerMessage].filter(Boolean).join(': ').slice(0, 200);
  const message = `${what} failed with HTTP ${res.status}${detail ? ` (${detail})` : ''}`;
  const opts = { httpStatus: res.status, providerCode: providerCode ?? null };
  if (res.status === 401 || res.status === 403)
    return new ProviderError(provider, 'invalid_credentials', message, opts);
  if (res.status === 404) return new ProviderError(provider, 'not_found', message, opts);
  if (res.status === 429 || res.status >= 500) return new ProviderError(provider, 'unavailable', message, opts);
  if (res.status >= 300 && res.status < 400)
    return new ProviderError(provider, 'bad_response', `${what}: unexpected redirect (HTTP ${res.status})`, opts);
  if (res.status >= 200 && res.status < 300)
    return new ProviderError(
      provider,
      'bad_response',
      `${what}: unreadable answer${detail ? ` (${detail})` : ''}`,
      opts,
    );
  return new ProviderError(provider, 'rejected', message, opts);
}

export const basicAuth = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** Header value as one string (node gives arrays for repeated headers). */
export function headerOf(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const lower = name.toLowerCase();
  let v = headers[lower];
  if (v === undefined) v = Object.entries(headers).find(([k]) => k.toLowerCase() === lower)?.[1];
  return Array.isArray(v) ? v[0] : v;
}

export const bodyText = (raw: Buffer | string) => (typeof raw === 'string' ? raw : raw.toString('utf8'));

/** A callback body as the JSON object providers send; anything else is `malformed`. */
export function parseCallbackJson(provider: ProviderKind, raw: Buffer | string): any {
  let body: unknown;
  try {
    body = JSON.parse(bodyText(raw));
  } catch {
    throw new CallbackVerificationError(provider, 'malformed', 'body is not JSON');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new CallbackVerificationError(provider, 'malformed', 'body is not a JSON object');
  return body;
}
