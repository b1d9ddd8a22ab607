// provider_a's transport: Basic auth with the secret key, an idempotency key on every POST, and
// the provider's error code read from a failed answer.
import { basicAuth, failure, type HttpResponse, type ProviderHttp } from '../http.ts';
import type { ProviderACredentials } from '../types.ts';

export class ProviderAApi {
  constructor(
    private readonly credentials: ProviderACredentials,
    readonly http: ProviderHttp,
  ) {}

  headers(extra: Record<string, string> = {}) {
    return { authorization: basicAuth(this.credentials.secretKey, ''), ...extra };
  }

  async post(what: string, path: string, idempotencyKey: string, body: unknown, extra: Record<string, string> = {}) {
    const res = await this.http.request({
      method: 'POST',
      path,
      headers: this.headers({ 'idempotency-key': idempotencyKey, ...extra }),
      body: JSON.stringify(body),
    });
    return this.ok(what, res);
  }

  async get(what: string, path: string, extra?: Record<string, string>): Promise<any>;
  async get(what: string, path: string, extra: Record<string, string>, allowMissing: true): Promise<any | null>;
  async get(what: string, path: string, extra: Record<string, string> = {}, allowMissing = false) {
    const res = await this.http.request({ method: 'GET', path, headers: this.headers(extra) });
    if (allowMissing && res.status === 404) return null;
    return this.ok(what, res);
  }

  ok(what: string, res: HttpResponse): any {
    if (res.status >= 200 && res.status < 300 && res.json && typeof res.json === 'object') return res.json;
    throw failure('provider_a', what, res, res.json?.error_code, res.json?.message);
  }
}
