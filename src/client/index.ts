import { signRequest } from '../core/auth/signing.ts';

export interface ClientOptions {
  baseUrl: string;
  keyId: string;
  secret: string;
  /** Platform-admin keys: act on a merchant (`acc_` id). */
  onBehalfOf?: string;
}

export interface ClientResponse<T = any> {
  status: number;
  headers: Headers;
  text: string;
  json: T;
}

/** A signed HTTP client for REST and GraphQL (spec Request signing), the one the tests use too. */
export function createClient(opts: ClientOptions) {
  async function request<T = any>(
    method: string,
    target: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ClientResponse<T>> {
    const raw =
      body === undefined ? '' : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    const signed = signRequest({ keyId: opts.keyId, secret: opts.secret, method, target, body: raw });
    const res = await fetch(opts.baseUrl.replace(/\/$/, '') + target, {
      method,
      headers: {
        ...signed,
        ...(raw.length ? { 'content-type': 'application/json' } : {}),
        ...(opts.onBehalfOf ? { 'x-svc-on-behalf-of': opts.onBehalfOf } : {}),
        ...headers,
      },
      body: raw.length ? (raw as BodyInit) : undefined,
    });
    const text = await res.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      /* non-JSON body (PDF, CSV, HTML) */
    }
    return { status: res.status, headers: res.headers, text, json };
  }
  return {
    request,
    get: <T = any>(target: string, headers?: Record<string, string>) => request<T>('GET', target, undefined, headers),
    post: <T = any>(target: string, body: unknown = {}, headers?: Record<string, string>) =>
      request<T>('POST', target, body, headers),
    patch: <T = any>(target: string, body: unknown, headers?: Record<string, string>) =>
      request<T>('PATCH', target, body, headers),
    put: <T = any>(target: string, body: unknown, headers?: Record<string, string>) =>
      request<T>('PUT', target, body, headers),
    delete: <T = any>(target: string, headers?: Record<string, string>) =>
      request<T>('DELETE', target, undefined, headers),
    graphql: <T = any>(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) =>
      request<{ data: T; errors?: { message: string; extensions: { code: string; field?: string } }[] }>(
        'POST',
        '/graphql',
        { query, variables },
        headers,
      ),
  };
}

export type Client = ReturnType<typeof createClient>;
export { signRequest };
export * from './webhooks.ts';
export * from './webhook-signing.ts';
export * from './svc.ts';
