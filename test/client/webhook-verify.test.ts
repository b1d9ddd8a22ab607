// Receivers' side of webhook signatures: verifyWebhook in both formats, the diagnosis of each
// realistic mistake, and `svc webhooks verify` as a child process on captured requests.
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  deliveryHeaders,
  newSigningSecret,
  signedContent,
  signingKey,
  type SignatureFormat,
} from '../../src/client/webhook-signing.ts';
import {
  verifyWebhook,
  verifyWebhookDelivery,
  WebhookVerificationError,
  type VerifyWebhookOptions,
} from '../../src/client/index.ts';
import { eventBody } from '../../src/modules/events/payload.ts';
import { newId } from '../../src/core/ids.ts';
import { childEnv, ROOT, SVC_BIN, svc } from '../helpers/cli.ts';

const T = 1_790_000_000; // the signing time; `now` is fixed relative to it
const SECRET = newSigningSecret();
const OLD_SECRET = newSigningSecret();

const eventId = newId('event');
const BODY = eventBody({
  id: eventId,
  type: 'customer.created',
  occurredAt: new Date(T * 1000),
  createdAt: new Date(T * 1000),
  publishedAt: new Date(T * 1000 + 5),
  mode: 'test',
  workspaceId: newId('workspace'),
  sequence: 1,
  data: { id: newId('customer'), object: { id: 'cus_x', name: 'Ani Wijaya', email: 'ani@example.com', metadata: {} } },
  metadata: { requestId: newId('request') },
});

function signed(format: SignatureFormat, secrets = [SECRET], t = T, body = BODY) {
  return deliveryHeaders(
    format,
    secrets,
    { eventId, eventType: 'customer.created', deliveryId: newId('webhookDelivery') },
    body,
    t,
  );
}

/** Runs the verification that must fail and returns its error. */
function failure(opts: VerifyWebhookOptions): WebhookVerificationError {
  try {
    verifyWebhook(opts);
  } catch (e) {
    expect(e).toBeInstanceOf(WebhookVerificationError);
    return e as WebhookVerificationError;
  }
  throw new Error('verified, but it should not have');
}

const base = (format: SignatureFormat) => ({
  payload: Buffer.from(BODY),
  headers: signed(format),
  secret: SECRET,
  now: T + 2,
});

describe.each(['svc', 'standard'] as const)('verifyWebhook, %s format', (format) => {
  it('accepts a delivery as sent: Buffer or string body, plain object or fetch Headers, any header case', () => {
    const headers = signed(format);
    expect(verifyWebhook({ payload: Buffer.from(BODY), headers, secret: SECRET, now: T })).toEqual(JSON.parse(BODY));
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyWebhook({ payload: BODY, headers: upper, secret: SECRET, now: T + 10 }).id).toBe(eventId);
    const out = verifyWebhookDelivery({
      payload: BODY,
      headers: new Headers(headers),
      secret: SECRET,
      now: new Date((T - 10) * 1000),
    });
    expect(out).toMatchObject({
      format,
      secretIndex: 0,
      timestamp: T,
      event: { id: eventId, type: 'customer.created' },
    });
  });

  it('during a rotation, the delivery carries two signatures and each secret alone is accepted', () => {
    const headers = signed(format, [SECRET, OLD_SECRET]);
    const sigHeader = format === 'svc' ? headers['x-svc-signature'] : headers['webhook-signature'];
    expect(sigHeader.match(/v1[,=]/g)).toHaveLength(2);
    for (const secret of [SECRET, OLD_SECRET])
      expect(verifyWebhook({ payload: BODY, headers, secret, now: T }).id).toBe(eventId);
    expect(
      verifyWebhookDelivery({ payload: BODY, headers, secret: [newSigningSecret(), OLD_SECRET], now: T }).secretIndex,
    ).toBe(1);
    // a receiver still holding only the old secret after the overlap ended
    const e = failure({ payload: BODY, headers: signed(format, [SECRET]), secret: OLD_SECRET, now: T });
    expect(e.part).toBe('secret');
  });

  it("secret: another endpoint's secret is named by its last 4 characters only", () => {
    const wrong = newSigningSecret();
    const e = failure({ ...base(format), secret: wrong });
    expect(e.part).toBe('secret');
    expect(e.message).toContain(`…${wrong.slice(-4)}`);
    expect(e.message).not.toContain(wrong.slice(6, -4));
    expect(e.message).toMatch(/not this endpoint's current signing secret/);
    expect(e.message).toMatch(/body changed in transit/);
  });

  it('secret: a secret read from a file with its trailing newline', () => {
    if (format === 'standard') {
      // the key is the base64 decoding of the part after whsec_, and base64 decoding skips whitespace
      expect(verifyWebhook({ ...base(format), secret: `${SECRET}\n` }).id).toBe(eventId);
      return;
    }
    const e = failure({ ...base(format), secret: `${SECRET}\n` });
    expect(e.part).toBe('secret');
    expect(e.message).toMatch(/whitespace or a newline.*trim it/);
  });

  it("secret: a signature keyed with the other format's key derivation", () => {
    const other: SignatureFormat = format === 'svc' ? 'standard' : 'svc';
    const mac = createHmac('sha256', signingKey(SECRET, other))
      .update(signedContent(format, eventId, T, BODY))
      .digest(format === 'svc' ? 'hex' : 'base64');
    const headers =
      format === 'svc'
        ? { 'x-svc-signature': `t=${T},v1=${mac}` }
        : { 'webhook-id': eventId, 'webhook-timestamp': String(T), 'webhook-signature': `v1,${mac}` };
    const e = failure({ ...base(format), headers });
    expect(e.part).toBe('secret');
    expect(e.message).toMatch(/wrong key derivation/);
  });

  it('body: the framework parsed the JSON before verification', () => {
    const e = failure({ ...base(format), payload: JSON.parse(BODY) });
    expect(e.part).toBe('body');
    expect(e.message).toMatch(/parsed object.*raw request bytes/);
    expect(e.message).toMatch(/express\.raw/);
  });

  it('body: pretty-printed, re-ordered, or with a newline added or stripped', () => {
    const parsed = JSON.parse(BODY);
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(parsed).reverse()));
    const cases: [string, string, RegExp][] = [
      ['pretty-printed', JSON.stringify(parsed, null, 2), /re-formatted/],
      ['re-ordered', reordered, /re-ordered/],
      ['newline added', `${BODY}\n`, /trailing newline that the signed body does not have/],
    ];
    for (const [what, payload, why] of cases) {
      const e = failure({ ...base(format), payload });
      expect({ what, part: e.part }).toEqual({ what, part: 'body' });
      expect(e.message).toMatch(why);
      expect(e.message).toMatch(/re-serialised/);
    }
    // a sender whose body ends in a newline, received by a framework that trims it
    const withNewline = `${BODY}\n`;
    const e = failure({ ...base(format), headers: signed(format, [SECRET], T, withNewline), payload: BODY });
    expect(e.part).toBe('body');
    expect(e.message).toMatch(/lost the trailing newline/);
  });

  it('timestamp: a valid signature outside the tolerance, with how far off', () => {
    expect(verifyWebhook({ ...base(format), now: T + 300 }).id).toBe(eventId);
    const stale = failure({ ...base(format), now: T + 301 });
    expect(stale.part).toBe('timestamp');
    expect(stale.message).toMatch(/signature is valid but the timestamp .* is 301 s in the past \(tolerance 300 s\)/);
    expect(stale.message).toMatch(/sync it \(NTP\)/);
    expect(stale.message).toMatch(/replay/);
    const future = failure({ ...base(format), now: T - 3600, toleranceSec: 60 });
    expect(future.part).toBe('timestamp');
    expect(future.message).toMatch(/3600 s in the future \(tolerance 60 s\)/);
  });

  it('timestamp: the timestamp header was altered after signing', () => {
    const headers = signed(format);
    const altered =
      format === 'svc'
        ? { ...headers, 'x-svc-signature': headers['x-svc-signature'].replace(`t=${T}`, `t=${T + 120}`) }
        : { ...headers, 'webhook-timestamp': String(T + 120) };
    const e = failure({ ...base(format), headers: altered, now: T + 120 });
    expect(e.part).toBe('timestamp');
    expect(e.message).toMatch(
      new RegExp(`altered: the signature is for .*${T}, but the header says ${T + 120} \\(120 s off\\)`),
    );
  });

  it('header: missing or malformed signature headers are named', () => {
    const none = failure({ ...base(format), headers: { 'content-type': 'application/json' } });
    expect(none.part).toBe('header');
    expect(none.message).toMatch(/X-Svc-Signature .*webhook-signature/);
    const headers = signed(format);
    if (format === 'svc') {
      const noV1 = failure({ ...base(format), headers: { 'x-svc-signature': `t=${T}` } });
      expect(noV1.message).toMatch(/X-Svc-Signature has no valid v1= entry/);
      const noT = failure({
        ...base(format),
        headers: { 'x-svc-signature': headers['x-svc-signature'].replace(/t=\d+,/, '') },
      });
      expect(noT.message).toMatch(/X-Svc-Signature has no valid t= entry/);
      expect([noV1.part, noT.part]).toEqual(['header', 'header']);
    } else {
      const { 'webhook-signature': _s, ...noSig } = headers;
      const e = failure({ ...base(format), headers: noSig });
      expect(e.part).toBe('header');
      expect(e.message).toMatch(/webhook-signature header missing/);
      const badT = failure({ ...base(format), headers: { ...headers, 'webhook-timestamp': '2026-11-23T06:00:00Z' } });
      expect(badT.part).toBe('header');
      expect(badT.message).toMatch(/webhook-timestamp header malformed/);
    }
  });
});

// ---- svc webhooks verify, a real child process on captured requests ----

const dir = mkdtempSync(join(tmpdir(), 'svc-webhook-verify-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// The command needs no database; DATABASE_URL points nowhere to prove it.
const env = childEnv('postgresql://127.0.0.1:1/unused');

function capture(name: string, headers: Record<string, string>, body: string, eol = '\r\n') {
  const head = [
    'POST /webhooks/svc HTTP/1.1',
    'Host: localhost:3000',
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
  ];
  for (const [k, v] of Object.entries(headers))
    head.push(`${k.replace(/(^|-)([a-z])/g, (_m, d, c) => d + c.toUpperCase())}: ${v}`);
  const file = join(dir, name);
  writeFileSync(file, head.join(eol) + eol + eol + body);
  return file;
}

const now = ['--now', String(T + 5)];

describe('svc webhooks verify', () => {
  it('a captured delivery verifies: exit 0 and the event it carries', async () => {
    const file = capture('valid.http', signed('svc'), BODY);
    const r = await svc(['webhooks', 'verify', '--secret', SECRET, ...now, file], env);
    expect({ code: r.code, stdout: r.stdout }).toEqual({
      code: 0,
      stdout: `valid: ${eventId} customer.created (signed with secret #1)\n`,
    });
  });

  it('a tampered body: exit 1 and the part that differs', async () => {
    const file = capture('tampered.http', signed('svc'), BODY.replace('Ani Wijaya', 'Ani Wijaja'));
    const r = await svc(['webhooks', 'verify', '--secret', SECRET, ...now, file], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^invalid \(secret\): no signature matches: the secret \(…[0-9a-f]{4}\) .* or the body changed in transit\.\n$/,
    );
  });

  it('a capture whose body gained a trailing newline, an old capture, a secret with a newline', async () => {
    const added = await svc(
      ['webhooks', 'verify', '--secret', SECRET, ...now, capture('newline.http', signed('svc'), `${BODY}\n`)],
      env,
    );
    expect(added.code).toBe(1);
    expect(added.stdout).toMatch(/^invalid \(body\): .*trailing newline/);
    const old = await svc(
      ['webhooks', 'verify', '--secret', SECRET, '--now', String(T + 3600), capture('old.http', signed('svc'), BODY)],
      env,
    );
    expect(old.code).toBe(1);
    expect(old.stdout).toMatch(/^invalid \(timestamp\): .*3600 s in the past/);
    const nl = await svc(['webhooks', 'verify', ...now, capture('nl.http', signed('svc'), BODY)], {
      ...env,
      SVC_WEBHOOK_SECRET: `${SECRET}\n`,
    });
    expect(nl.code).toBe(1);
    expect(nl.stdout).toMatch(/^invalid \(secret\): .*trim it/);
  });

  it('Standard Webhooks from stdin with LF line ends, the secret from SVC_WEBHOOK_SECRET, rotation: secret #2', async () => {
    const raw = capture('standard.http', signed('standard', [SECRET, OLD_SECRET]), BODY, '\n');
    const child = spawn(process.execPath, [SVC_BIN, 'webhooks', 'verify', ...now, '-'], {
      cwd: ROOT,
      env: { ...env, SVC_WEBHOOK_SECRET: `${newSigningSecret()},${OLD_SECRET}` },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stdin.end(readFileSync(raw));
    const code = await new Promise((r) => child.on('close', r));
    expect({ code, stdout }).toEqual({
      code: 0,
      stdout: `valid: ${eventId} customer.created (signed with secret #2)\n`,
    });
  });

  it('usage errors are reported without a stack', async () => {
    const r = await svc(['webhooks', 'verify', join(dir, 'valid.http')], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^svc: usage: svc webhooks verify/);
    const unknown = await svc(['webhooks', 'replay'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown webhooks command "replay"/);
  });
});
