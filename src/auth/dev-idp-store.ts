/**
 * The development identity provider's storage (docs/dashboard.md, Development sign-in): an
 * in-memory adapter of our own for `oidc-provider`, bounded (1,000 entries, least recently used
 * out) and expiring each entry with its artifact. The library's built-in one works the same but
 * announces itself on every start as not for production: this provider never is.
 */
import { BoundedCache } from '../core/bounded-cache.ts';

type Payload = Record<string, unknown> & { grantId?: string; uid?: string; userCode?: string; consumed?: number };

const entries = new BoundedCache<string, { payload: Payload; until: number | null }>(1000);
const indexes = new BoundedCache<string, string>(1000);

export class DevIdpStore {
  constructor(private readonly model: string) {}

  private key = (id: string) => `${this.model}:${id}`;

  async upsert(id: string, payload: Payload, expiresIn?: number) {
    const key = this.key(id);
    entries.set(key, { payload, until: expiresIn ? Date.now() + expiresIn * 1000 : null });
    if (payload.uid) indexes.set(`uid:${payload.uid}`, key);
    if (payload.userCode) indexes.set(`userCode:${payload.userCode}`, key);
    if (payload.grantId) {
      const grant = `grant:${payload.grantId}`;
      indexes.set(grant, [indexes.get(grant), key].filter(Boolean).join(' '));
    }
  }

  private read(key: string | undefined): Payload | undefined {
    const e = key ? entries.get(key) : undefined;
    if (!e) return undefined;
    if (e.until !== null && e.until <= Date.now()) {
      entries.delete(key!);
      return undefined;
    }
    return e.payload;
  }

  async find(id: string) {
    return this.read(this.key(id));
  }
  async findByUid(uid: string) {
    return this.read(indexes.get(`uid:${uid}`));
  }
  async findByUserCode(userCode: string) {
    return this.read(indexes.get(`userCode:${userCode}`));
  }
  async consume(id: string) {
    const p = this.read(this.key(id));
    if (p) p.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id: string) {
    entries.delete(this.key(id));
  }
  async revokeByGrantId(grantId: string) {
    for (const key of (indexes.get(`grant:${grantId}`) ?? '').split(' ').filter(Boolean)) entries.delete(key);
    indexes.delete(`grant:${grantId}`);
  }
}
