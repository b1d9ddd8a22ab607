import { createHmac, type KeyObject } from 'node:crypto';
import { sha256, sha256Hex } from '../crypto.ts';

/** spec Request signing: the signing key is SHA-256 of the secret, so the server never holds the secret. */
export const signingKeyOf = (secret: string) => sha256(Buffer.from(secret, 'utf8'));

/** timestamp \n METHOD \n target \n hex(sha256(body)), no trailing newline. */
export function canonicalString(timestamp: string, method: string, target: string, body: Buffer | string = ''): string {
  return canonicalOfHash(timestamp, method, target, sha256Hex(body));
}

/**
 * The same over a body's declared hash: a streamed upload is authenticated on its headers before a byte of the
 * body is read, and its bytes are then checked against that hash (docs/reconciliation.md, Import pipeline).
 */
export function canonicalOfHash(timestamp: string, method: string, target: string, bodySha256: string): string {
  return [timestamp, method.toUpperCase(), target, bodySha256].join('\n');
}

/** Callers on the hot path pass a KeyObject: HMAC with a raw Buffer key re-imports it per call. */
export function signature(signingKey: Buffer | KeyObject, canonical: string): string {
  return createHmac('sha256', signingKey).update(canonical).digest('hex');
}

export interface SignInput {
  keyId: string;
  secret: string;
  method: string;
  /** Path plus query string, exactly as sent. */
  target: string;
  body?: Buffer | string;
  timestamp?: number;
}

/** The headers a client sends; used by the CLI (`svc sign`), the test client and the benchmarks. */
export function signRequest({ keyId, secret, method, target, body = '', timestamp }: SignInput) {
  const ts = String(timestamp ?? Math.floor(Date.now() / 1000));
  const sig = signature(signingKeyOf(secret), canonicalString(ts, method, target, body));
  return { authorization: `Svc-HMAC-SHA256 keyId=${keyId}, scope=*, signature=${sig}`, 'x-svc-timestamp': ts };
}

const header = /^Svc-HMAC-SHA256 (.+)$/;
/** `keyId=..., scope=*, signature=...` in any order; null when malformed. */
export function parseAuthorization(value: string | undefined): { keyId: string; signature: string } | null {
  const m = value && header.exec(value.trim());
  if (!m) return null;
  const parts = new Map<string, string>();
  for (const piece of m[1].split(',')) {
    const eq = piece.indexOf('=');
    if (eq < 0) return null;
    parts.set(piece.slice(0, eq).trim(), piece.slice(eq + 1).trim());
  }
  const keyId = parts.get('keyId');
  const sig = parts.get('signature');
  if (!keyId || !sig || !/^[0-9a-f]{64}$/.test(sig)) return null;
  return { keyId, signature: sig };
}
