import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { config } from './config.ts';

export const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest();
export const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
export const hmacHex = (key: Buffer | string, data: string | Buffer) => createHmac('sha256', key).update(data).digest('hex');

/** AES-256-GCM with the server's master key: iv(12) | tag(16) | ciphertext. */
export function encrypt(plain: Buffer): Uint8Array<ArrayBuffer> {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', config.masterKey, iv);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return new Uint8Array(Buffer.concat([iv, cipher.getAuthTag(), body]));
}

export function decrypt(sealed: Buffer | Uint8Array): Buffer {
  const buf = Buffer.from(sealed);
  const decipher = createDecipheriv('aes-256-gcm', config.masterKey, buf.subarray(0, 12));
  decipher.setAuthTag(buf.subarray(12, 28));
  return Buffer.concat([decipher.update(buf.subarray(28)), decipher.final()]);
}

/** Constant-time comparison of two hex or text strings. */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export const randomHex = (bytes: number) => randomBytes(bytes).toString('hex');
