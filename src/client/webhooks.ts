import { createHmac, timingSafeEqual } from 'node:crypto';
import { signatureOf, signedContent, signingKey, type SignatureFormat } from './webhook-signing.ts';

/**
 * Verifying a webhook delivery on the receiving side (spec Webhook delivery), in either signature format,
 * with a diagnosis when it fails: which part is wrong (`header`, `timestamp`, `body`, `secret`)
 * and what the receiver should change. Pure node:crypto, no server imports.
 *
 *     app.post('/webhooks', express.raw({ type: 'application/json' }), (req, res) => {
 *       const event = verifyWebhook({ payload: req.body, headers: req.headers, secret: process.env.WEBHOOK_SECRET });
 *       ...
 *     });
 */

/** The event object a delivery carries: `GET /v1/events/:id`'s `data`. */
export interface WebhookEvent<T = any> {
  id: string;
  type: string;
  occurredAt: string;
  createdAt: string;
  publishedAt: string | null;
  mode: string | null;
  workspaceId: string;
  sequence: number;
  data: T;
  metadata: Record<string, unknown>;
}

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** The raw request body exactly as received (Buffer or string), not a parsed object. */
  payload: Buffer | Uint8Array | string;
  headers: WebhookHeaders;
  /** The endpoint's signing secret (`whsec_…`), or several while a rotation overlaps. */
  secret: string | readonly string[];
  /** Maximum |now - timestamp| in seconds (default 300). */
  toleranceSec?: number;
  /** Epoch seconds (or a Date) to check the timestamp against; default the current time. */
  now?: number | Date;
}

export interface VerifiedWebhook<T = any> {
  event: WebhookEvent<T>;
  format: SignatureFormat;
  /** Which of the secrets given matched (0-based). */
  secretIndex: number;
  /** The signed timestamp, epoch seconds. */
  timestamp: number;
}

export type WebhookFailurePart = 'header' | 'timestamp' | 'body' | 'secret';

export class WebhookVerificationError extends Error {
  readonly part: WebhookFailurePart;
  constructor(part: WebhookFailurePart, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.part = part;
  }
}

/** Verifies a delivery and returns its event; throws `WebhookVerificationError` otherwise. */
export function verifyWebhook<T = any>(opts: VerifyWebhookOptions): WebhookEvent<T> {
  return verifyWebhookDelivery<T>(opts).event;
}

/** As `verifyWebhook`, also saying which format and which secret verified it. */
export function verifyWebhookDelivery<T = any>(opts: VerifyWebhookOptions): VerifiedWebhook<T> {
  const sig = parseSignatureHeaders(opts.headers);
  const body = rawBody(opts.payload);
  const secrets = secretList(opts.secret);
  const secretIndex = secrets.findIndex((s) => signs(sig, s, sig.timestamp, body));
  if (secretIndex < 0) throw diagnose(sig, secrets, body);
  checkTolerance(sig, opts.toleranceSec ?? 300, opts.now);
  return { event: parseEvent<T>(body), format: sig.format, secretIndex, timestamp: sig.timestamp };
}

// ---- headers ----

interface ParsedSignature {
  format: SignatureFormat;
  /** How messages name the signed timestamp: `X-Svc-Signature t=` or `webhook-timestamp: `. */
  timestampHeader: string;
  timestamp: number;
  /** Event id (standard format signs it; svc does not). */
  id: string;
  signatures: string[];
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return Array.isArray(v) ? v.join(' ') : v;
  return undefined;
}

const headerError = (message: string) => new WebhookVerificationError('header', message);

/** Detects the format from the headers present and parses its signature headers. */
function parseSignatureHeaders(headers: WebhookHeaders): ParsedSignature {
  if (!headers || typeof headers !== 'object')
    throw headerError('no headers given: pass the request headers (a plain object or a fetch Headers)');
  const svc = header(headers, 'x-svc-signature');
  if (svc !== undefined) return parseSvc(svc);
  if (['webhook-id', 'webhook-timestamp', 'webhook-signature'].some((h) => header(headers, h) !== undefined))
    return parseStandard(headers);
  throw headerError(
    'no signature header: expected X-Svc-Signature (svc format) or ' +
      'webhook-id, webhook-timestamp and webhook-signature (Standard Webhooks format). ' +
      'Check that a proxy or your framework does not drop them.',
  );
}

/** `t=<epoch>,v1=<hex>[,v1=<hex>]` */
function parseSvc(value: string): ParsedSignature {
  const entries = value
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]);
  const t = entries.filter(([k]) => k === 't').map(([, v]) => v);
  const v1 = entries.filter(([k]) => k === 'v1').map(([, v]) => v);
  const shape = 'expected X-Svc-Signature: t=<epoch seconds>,v1=<64 hex>';
  if (t.length !== 1 || !/^\d{1,12}$/.test(t[0]))
    throw headerError(`X-Svc-Signature has no valid t= entry (${shape}, got "${value}")`);
  if (!v1.length || v1.some((s) => !/^[0-9a-f]{64}$/.test(s)))
    throw headerError(`X-Svc-Signature has no valid v1= entry (${shape}, got "${value}")`);
  return { format: 'svc', timestampHeader: 'X-Svc-Signature t=', timestamp: Number(t[0]), id: '', signatures: v1 };
}

/** `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>[ v1,<base64>]` */
function parseStandard(headers: WebhookHeaders): ParsedSignature {
  const id = header(headers, 'webhook-id');
  const t = header(headers, 'webhook-timestamp');
  const sig = header(headers, 'webhook-signature');
  if (!id)
    throw headerError(
      'webhook-id header missing (Standard Webhooks format: webhook-id, webhook-timestamp, webhook-signature)',
    );
  if (!t || !/^\d{1,12}$/.test(t.trim()))
    throw headerError(
      `webhook-timestamp header ${t === undefined ? 'missing' : `malformed ("${t}")`}: expected epoch seconds`,
    );
  const entries = (sig ?? '').split(/\s+/).filter(Boolean);
  const v1 = entries.filter((e) => e.startsWith('v1,')).map((e) => e.slice(3));
  if (!v1.length || v1.some((s) => !/^[A-Za-z0-9+/]{43}=$/.test(s))) {
    throw headerError(
      `webhook-signature header ${sig === undefined ? 'missing' : `malformed ("${sig}")`}: ` +
        'expected v1,<base64 HMAC-SHA256>[ v1,<base64>]',
    );
  }
  return {
    format: 'standard',
    timestampHeader: 'webhook-timestamp: ',
    timestamp: Number(t.trim()),
    id,
    signatures: v1,
  };
}

// ---- inputs ----

function rawBody(payload: unknown): Buffer {
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  if (payload instanceof Uint8Array) return Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  const what =
    payload === null || payload === undefined
      ? String(payload)
      : `a parsed ${Array.isArray(payload) ? 'array' : typeof payload}`;
  throw new WebhookVerificationError(
    'body',
    `payload is ${what}, not the raw body: ` +
      'your framework parsed the JSON before you verified it. Pass the raw request bytes as received ' +
      "(Express: express.raw({ type: 'application/json' }) on this route; " +
      'Fastify: the rawBody option or a buffer content-type parser; fetch/Next.js: await req.text()).',
  );
}

function secretList(secret: string | readonly string[]): string[] {
  // positions stay: `#n` in messages
  const list = (Array.isArray(secret) ? secret : [secret]).map((s: unknown) => (typeof s === 'string' ? s : ''));
  if (!list.some(Boolean))
    throw new WebhookVerificationError('secret', "no signing secret given: pass the endpoint's secret (whsec_…)");
  return list;
}

// ---- signatures ----

/** Constant-time comparison of two signature strings. */
function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const anyEqual = (sig: ParsedSignature, expected: string) =>
  sig.signatures.reduce((hit, s) => safeEqual(s, expected) || hit, false);

/** Whether `secret` signed this delivery with timestamp `t` over `body`. */
function signs(sig: ParsedSignature, secret: string, t: number, body: Buffer): boolean {
  return anyEqual(sig, signatureOf(sig.format, secret, sig.id, t, body));
}

/** A signature of the delivery's format made with the other format's key derivation. */
function signsWithOtherKey(sig: ParsedSignature, secret: string, body: Buffer): boolean {
  const other: SignatureFormat = sig.format === 'svc' ? 'standard' : 'svc';
  const mac = createHmac('sha256', signingKey(secret, other)).update(
    signedContent(sig.format, sig.id, sig.timestamp, body),
  );
  return anyEqual(sig, mac.digest(sig.format === 'svc' ? 'hex' : 'base64'));
}

function checkTolerance(sig: ParsedSignature, toleranceSec: number, now: number | Date = Date.now() / 1000) {
  const nowSec = Math.floor(now instanceof Date ? now.getTime() / 1000 : now);
  const skew = nowSec - sig.timestamp;
  if (Math.abs(skew) <= toleranceSec) return;
  throw new WebhookVerificationError(
    'timestamp',
    `signature is valid but the timestamp (${sig.timestampHeader}${sig.timestamp}) ` +
      `is ${Math.abs(skew)} s in the ${skew > 0 ? 'past' : 'future'} ` +
      `(tolerance ${toleranceSec} s). If this delivery just arrived, your clock is off: sync it (NTP). ` +
      'Otherwise it is a replay of an old delivery: reject it.',
  );
}

function parseEvent<T>(body: Buffer): WebhookEvent<T> {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('body', 'signature is valid but the body is not JSON');
  }
}

// ---- diagnosis: no secret signed the delivery as received; find out what changed ----

const last4 = (s: string) => `…${s.slice(-4)}`;

function diagnose(sig: ParsedSignature, secrets: string[], body: Buffer): WebhookVerificationError {
  return (
    alteredTimestamp(sig, secrets, body) ??
    reserialisedBody(sig, secrets, body) ??
    secretMistake(sig, secrets, body) ??
    noMatch(sig, secrets)
  );
}

/** Hashing budget of the timestamp scan, so a flood of bad deliveries with large bodies stays cheap. */
const SCAN_BUDGET_BYTES = 64 * 1024 * 1024;

/** A signature for a nearby timestamp (±600 s): the timestamp header was changed after signing. */
function alteredTimestamp(sig: ParsedSignature, secrets: string[], body: Buffer) {
  if (1200 * secrets.length * (body.length + 100) > SCAN_BUDGET_BYTES) return null;
  for (let d = 1; d <= 600; d++) {
    for (const t of [sig.timestamp - d, sig.timestamp + d]) {
      if (!secrets.some((s) => signs(sig, s, t, body))) continue;
      return new WebhookVerificationError(
        'timestamp',
        `the timestamp header was altered: the signature is for ${sig.timestampHeader}${t}, ` +
          `but the header says ${sig.timestamp} (${d} s off). ` +
          'Pass the headers exactly as received; nothing between the sender and your code may rewrite them.',
      );
    }
  }
  return null;
}

/** The canonical field order of an event object (the order the sender serialises). */
export const EVENT_FIELDS = [
  'id',
  'type',
  'occurredAt',
  'createdAt',
  'publishedAt',
  'mode',
  'workspaceId',
  'sequence',
  'data',
  'metadata',
] as const;

/** Re-serialisations a framework commonly applies, each with how to describe it. */
function bodyVariants(body: Buffer): [string, Buffer][] {
  const text = body.toString('utf8');
  const out: [string, string][] = [];
  if (/\r?\n$/.test(text))
    out.push(['your payload has a trailing newline that the signed body does not have', text.replace(/\r?\n$/, '')]);
  else out.push(['your payload lost the trailing newline of the signed body', `${text}\n`]);
  try {
    const parsed = JSON.parse(text);
    out.push(['your payload is the signed JSON re-formatted (pretty-printed or re-spaced)', JSON.stringify(parsed)]);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const ordered = Object.fromEntries(
        [
          ...EVENT_FIELDS.filter((k) => k in parsed),
          ...Object.keys(parsed).filter((k) => !(EVENT_FIELDS as readonly string[]).includes(k)),
        ].map((k) => [k, parsed[k]]),
      );
      out.push(['your payload is the signed JSON with its fields re-ordered', JSON.stringify(ordered)]);
    }
  } catch {
    /* not JSON: only the newline variants apply */
  }
  return out.filter(([, v]) => v !== text).map(([d, v]) => [d, Buffer.from(v, 'utf8')]);
}

function reserialisedBody(sig: ParsedSignature, secrets: string[], body: Buffer) {
  for (const [how, variant] of bodyVariants(body)) {
    if (!secrets.some((s) => signs(sig, s, sig.timestamp, variant))) continue;
    return new WebhookVerificationError(
      'body',
      `the body was changed after it arrived: ${how}. ` +
        'A framework or middleware re-serialised it (a JSON body parser, a logger, an editor adding a newline). ' +
        'Verify the raw request bytes exactly as received ' +
        "(Express: express.raw({ type: 'application/json' }); Fastify: rawBody).",
    );
  }
  return null;
}

/** The secret as given is wrong in a recognisable way: whitespace, missing prefix, other format's key. */
function secretMistake(sig: ParsedSignature, secrets: string[], body: Buffer) {
  for (const [i, s] of secrets.entries()) {
    const name = `secret${secrets.length > 1 ? ` #${i + 1}` : ''} (${last4(s.trim())})`;
    if (s.trim() !== s && signs(sig, s.trim(), sig.timestamp, body)) {
      return new WebhookVerificationError(
        'secret',
        `${name} has surrounding whitespace or a newline (e.g. read from a file or an .env line): trim it.`,
      );
    }
    if (!s.startsWith('whsec_') && signs(sig, `whsec_${s.trim()}`, sig.timestamp, body)) {
      return new WebhookVerificationError(
        'secret',
        `${name} is missing its whsec_ prefix: use the whole secret string, whsec_ included.`,
      );
    }
    if (signsWithOtherKey(sig, s, body)) {
      const [used, want] =
        sig.format === 'svc'
          ? ['the base64 decoding of the part after whsec_', 'the whole secret string as UTF-8']
          : ['the whole secret string as UTF-8', 'the base64 decoding of the part after whsec_'];
      return new WebhookVerificationError(
        'secret',
        `${name} matches, but the signature was made with the wrong key derivation: ${used}, ` +
          `where the ${sig.format} format keys HMAC with ${want}. ` +
          'Whatever signed this delivery mixed up the two formats.',
      );
    }
  }
  return null;
}

function noMatch(sig: ParsedSignature, secrets: string[]) {
  const which =
    secrets.length > 1
      ? `none of the secrets (${secrets.map((s) => last4(s.trim())).join(', ')}) is`
      : `the secret (${last4(secrets[0].trim())}) is not`;
  return new WebhookVerificationError(
    'secret',
    `no signature matches: ${which} this endpoint's current signing secret ` +
      `(${sig.format} format; check the endpoint, test vs live mode, ` +
      'and whether the secret was rotated), or the body changed in transit.',
  );
}
