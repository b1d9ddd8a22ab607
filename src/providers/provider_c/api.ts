// provider_c's transport: an OAuth2 client-credentials bearer token, cached until shortly before it
// expires and shared by every client with the same credentials.
import type { Clock } from '../../core/clock.ts';
import { basicAuth, failure, type ProviderHttp, type HttpResponse } from '../http.ts';
import type { ProviderCCredentials } from '../types.ts';

const TOKEN_MARGIN_MS = 60_000;

interface CachedToken {
  token: string;
  expiresAtMs: number;
}
const tokens = new Map<string, CachedToken>();
const inflight = new Map<string, Promise<CachedToken>>();

/** Forget every cached token (tests). */
export function clearProviderCTokens() {
  tokens.clear();
  inflight.clear();
}

export class ProviderCApi {
  constructor(
    private readonly credentials: ProviderCCredentials,
    readonly http: ProviderHttp,
    private readonly clock: Clock,
    private readonly cacheKey: string,
  ) {}

  /** A bearer call; a 401 with a cached token means it was revoked early: fetch a new one once. */
  async request(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: string,
    headers: Record<string, string> = {},
  ): Promise<HttpResponse> {
    for (let attempt = 0; ; attempt++) {
      const token = await this.token();
      const res = await this.http.request({
        method,
        path,
        body,
        headers: { authorization: `Bearer ${token}`, ...headers },
      });
      if (res.status !== 401 || attempt > 0) return res;
      tokens.delete(this.cacheKey);
    }
  }

  async token(): Promise<string> {
    const cached = tokens.get(this.cacheKey);
    if (cached && cached.expiresAtMs > this.clock.now().getTime()) return cached.token;
    let pending = inflight.get(this.cacheKey);
    if (!pending) {
      pending = this.fetchToken().finally(() => inflight.delete(this.cacheKey));
      inflight.set(this.cacheKey, pending);
    }
    return (await pending).token;
  }

  async fetchToken(): Promise<CachedToken> {
    const res = await this.http.request({
      method: 'POST',
      path: '/v1/oauth2/token',
      headers: {
        authorization: basicAuth(this.credentials.clientId, this.credentials.secret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    if (res.status !== 200 || typeof res.json?.access_token !== 'string') {
      throw failure('provider_c', 'get access token', res, res.json?.error, res.json?.error_description);
    }
    const lifetimeMs = Math.max(0, Number(res.json.expires_in) || 0) * 1000;
    const entry = {
      token: res.json.access_token as string,
      expiresAtMs: this.clock.now().getTime() + Math.max(lifetimeMs - TOKEN_MARGIN_MS, lifetimeMs / 2),
    };
    tokens.set(this.cacheKey, entry);
    return entry;
  }

  ok(what: string, res: HttpResponse): any {
    if (res.status >= 200 && res.status < 300 && res.json && typeof res.json === 'object') return res.json;
    const b = res.json;
    throw failure(
      'provider_c',
      what,
      res,
      b?.details?.[0]?.issue ?? b?.name ?? b?.error,
      b?.message ?? b?.error_description,
    );
  }
}
