import { createHmac, randomBytes } from 'node:crypto';

/**
 * Webhook signatures (spec Webhook delivery), in both formats an endpoint may choose. Pure node:crypto with
 * no server imports: the delivery worker signs with it, `svc listen` signs local forwards with it,
 * and receivers verify with it (`./webhooks.ts`).
 *
 * - `svc` (default): `X-Svc-Signature: t=<epoch s>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`,
 *   keyed with the secret string exactly as shown (`whsec_` prefix included, UTF-8), as Stripe's
 *   receivers expect. During a rotation overlap a second `v1=` entry, signed with the old secret,
 *   follows the first.
 * - `standard` (Standard Webhooks): `webhook-id` (the event id), `webhook-timestamp`,
 *   `webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<t>.<raw body>")>` (space-separated
 *   when there are two), keyed with the base64 decoding of the part after `whsec_`, as the
 *   Standard Webhooks libraries do.
 */
export type SignatureFormat = 'svc' | 'standard';
export const signatureFormats: readonly SignatureFormat[] = ['svc', 'standard'];

export const SECRET_PREFIX = 'whsec_';
/** `whsec_` + 48 lower-case hex characters (spec Webhook delivery). */
export const newSigningSecret = () => SECRET_PREFIX + randomBytes(24).toString('hex');
export const isSigningSecret = (s: string) => /^whsec_[0-9a-f]{48}$/.test(s);

/** The HMAC key of a secret in a format. */
export function signingKey(secret: string, format: SignatureFormat): Buffer {
  return format === 'svc'
    ? Buffer.from(secret, 'utf8')
    : Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** What is signed: `<t>.<body>` (svc) or `<id>.<t>.<body>` (standard). */
export function signedContent(
  format: SignatureFormat,
  eventId: string,
  timestamp: number,
  body: Buffer | string,
): Buffer {
  const head = format === 'svc' ? `${timestamp}.` : `${eventId}.${timestamp}.`;
  return Buffer.concat([Buffer.from(head, 'utf8'), typeof body === 'string' ? Buffer.from(body, 'utf8') : body]);
}

/** One signature value: lower-case hex (svc) or base64 (standard). */
export function signatureOf(
  format: SignatureFormat,
  secret: string,
  eventId: string,
  timestamp: number,
  body: Buffer | string,
): string {
  return createHmac('sha256', signingKey(secret, format))
    .update(signedContent(format, eventId, timestamp, body))
    .digest(format === 'svc' ? 'hex' : 'base64');
}

export interface DeliveryIdentity {
  eventId: string;
  eventType: string;
  deliveryId: string;
}

/**
 * The headers of one delivery: identity headers in every format, then the signature headers of
 * the endpoint's format, signed with each secret given (current first, then the old one while a
 * rotation overlaps).
 */
export function deliveryHeaders(
  format: SignatureFormat,
  secrets: readonly string[],
  id: DeliveryIdentity,
  body: Buffer | string,
  timestamp: number = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const sigs = secrets.map((s) => signatureOf(format, s, id.eventId, timestamp, body));
  const identity = {
    'x-svc-event-id': id.eventId,
    'x-svc-event-type': id.eventType,
    'x-svc-delivery-id': id.deliveryId,
  };
  if (format === 'svc')
    return { ...identity, 'x-svc-signature': [`t=${timestamp}`, ...sigs.map((s) => `v1=${s}`)].join(',') };
  return {
    ...identity,
    'webhook-id': id.eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': sigs.map((s) => `v1,${s}`).join(' '),
  };
}
