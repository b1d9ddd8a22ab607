import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hash,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import { config } from './config.ts';

// One-shot `hash`: a fraction of createHash's cost for short inputs (every signed request hashes its body).
export const sha256 = (data: string | Buffer): Buffer => hash('sha256', data, 'buffer');
export const sha256Hex = (data: string | Buffer): string => hash('sha256', data, 'hex');
export const hmacHex = (key: Buffer | string, data: string | Buffer) =>
  createHmac('sha256', key).update(data).digest('hex');

/*
 * AES-256-GCM at rest, bound to its row and to a master key by id:
 *   "svc1" | key id (4) | iv (12) | tag (16) | ciphertext
 * The associated data names the row (src/core/sealed.ts), so a ciphertext copied to another row,
 * another workspace or another column's table fails to decrypt. The key id picks the master key
 * from the keyring (SVC_MASTER_KEY, then SVC_MASTER_KEY_PREVIOUS), so the key can rotate
 * (`svc rotate-master-key`). Values written before this format (iv | tag | ciphertext, no
 * associated data) still decrypt, until the rotation rewrites them.
 */
const MAGIC = Buffer.from('svc1');
const HEADER = MAGIC.length + 4;

/** Whether a value is in the current format (a column that held plain values before can tell them apart). */
export const isSealed = (value: Buffer | Uint8Array) => Buffer.from(value).subarray(0, MAGIC.length).equals(MAGIC);

/** A master key's public id: 4 bytes of a hash of it, stored with each ciphertext. */
export const masterKeyId = (key: Buffer) =>
  createHash('sha256').update('svc master key id\0').update(key).digest().subarray(0, 4);

/** The master keys this process can read with: the current one first. */
export function keyring(): Buffer[] {
  return [config.masterKey, ...config.previousMasterKeys];
}

export function encrypt(plain: Buffer, aad: string): Uint8Array<ArrayBuffer> {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', config.masterKey, iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return new Uint8Array(Buffer.concat([MAGIC, masterKeyId(config.masterKey), iv, cipher.getAuthTag(), body]));
}

function open(key: Buffer, sealed: Buffer, aad: string | null): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
  if (aad !== null) decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(sealed.subarray(12, 28));
  return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]);
}

/** Whether `sealed` is in the current format under the current master key (nothing for a rotation to do). */
export const isCurrent = (sealed: Buffer | Uint8Array) => {
  const buf = Buffer.from(sealed);
  return (
    buf.subarray(0, MAGIC.length).equals(MAGIC) &&
    buf.subarray(MAGIC.length, HEADER).equals(masterKeyId(config.masterKey))
  );
};

export function decrypt(sealed: Buffer | Uint8Array, aad: string): Buffer {
  const buf = Buffer.from(sealed);
  const keys = keyring();
  if (buf.subarray(0, MAGIC.length).equals(MAGIC)) {
    const key = keys.find((k) => masterKeyId(k).equals(buf.subarray(MAGIC.length, HEADER)));
    if (key) {
      try {
        return open(key, buf.subarray(HEADER), aad);
      } catch {
        // wrong row; or a legacy value whose random iv starts with the magic: tried below
      }
    }
  }
  // legacy: iv | tag | ciphertext without associated data, under any key of the ring
  for (const key of keys) {
    try {
      return open(key, buf, null);
    } catch {
      // try the next key
    }
  }
  throw new Error('cannot decrypt: wrong row, or a master key that is not in the keyring');
}

/** Constant-time comparison of two hex or text strings. */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export const randomHex = (bytes: number) => randomBytes(bytes).toString('hex');
