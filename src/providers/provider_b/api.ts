// provider_b's transport: Basic auth with the server key; Snap on its own origin.
import { basicAuth, failure, type HttpResponse, type ProviderHttp } from '../http.ts';
import type { ProviderBCredentials } from '../types.ts';

export class ProviderBApi {
  constructor(
    private readonly credentials: ProviderBCredentials,
    readonly http: ProviderHttp,
    readonly snapBase: string,
  ) {}

  auth() {
    return { authorization: basicAuth(this.credentials.serverKey, '') };
  }

  /** Core API answers carry their own status_code, which may disagree with the HTTP status. */
  ok(what: string, res: HttpResponse, accepted: string[]): any {
    const b = res.json;
    const code = typeof b?.status_code === 'string' ? b.status_code : String(res.status);
    if (res.status >= 200 && res.status < 300 && b && typeof b === 'object' && accepted.includes(code)) return b;
    const effective =
      res.status >= 200 && res.status < 300 && /^\d{3}$/.test(code) ? { ...res, status: Number(code) } : res;
    throw failure('provider_b', what, effective, code, b?.status_message ?? b?.error_messages?.join('; '));
  }
}
