import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { verifyWebhookDelivery, WebhookVerificationError } from '../client/webhooks.ts';
import { usageError } from './api.ts';

const usage =
  'usage: svc webhooks verify --secret <whsec_..> [--secret <old whsec_..>] [--tolerance <s>] [--now <epoch>] <file|->';

/** `svc webhooks <subcommand>`. */
export async function webhooks(args: string[]) {
  const [sub, ...rest] = args;
  if (sub === 'verify') return verify(rest);
  throw usageError(sub ? `unknown webhooks command ${JSON.stringify(sub)}; ${usage}` : usage);
}

/**
 * Verifies a captured delivery (the raw HTTP request: optional request line, headers, a blank
 * line, the body) with the same helper receivers use, and says which part is wrong when it fails.
 */
async function verify(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { secret: { type: 'string', multiple: true }, tolerance: { type: 'string' }, now: { type: 'string' } },
  });
  const secrets = values.secret ?? (process.env.SVC_WEBHOOK_SECRET ?? '').split(',').filter(Boolean);
  if (!secrets.length || positionals.length !== 1)
    throw usageError(`${usage} (the secret may come from SVC_WEBHOOK_SECRET)`);
  const toleranceSec = values.tolerance === undefined ? undefined : seconds('--tolerance', values.tolerance);
  const now = values.now === undefined ? undefined : seconds('--now', values.now);
  const request = parseCapturedRequest(positionals[0] === '-' ? await readStdin() : readFileSync(positionals[0]));
  try {
    const out = verifyWebhookDelivery({
      payload: request.body,
      headers: request.headers,
      secret: secrets,
      toleranceSec,
      now,
    });
    console.log(`valid: ${out.event.id} ${out.event.type} (signed with secret #${out.secretIndex + 1})`);
  } catch (e) {
    if (!(e instanceof WebhookVerificationError)) throw e;
    console.log(`invalid (${e.part}): ${e.message}`);
    process.exitCode = 1;
  }
}

function seconds(flag: string, v: string): number {
  if (!/^\d+$/.test(v)) throw usageError(`${flag} must be a whole number of seconds`);
  return Number(v);
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export interface CapturedRequest {
  headers: Record<string, string>;
  body: Buffer;
}

/** Splits a raw HTTP request (CRLF or LF line ends) into headers and the body bytes, untouched. */
export function parseCapturedRequest(raw: Buffer): CapturedRequest {
  const crlf = raw.indexOf('\r\n\r\n');
  const lf = raw.indexOf('\n\n');
  const [end, sep] = crlf >= 0 && (lf < 0 || crlf < lf) ? [crlf, 4] : [lf, 2];
  if (end < 0)
    throw new Error(
      'no blank line between headers and body: expected a captured HTTP request (headers, a blank line, the body)',
    );
  const lines = raw.subarray(0, end).toString('utf8').split(/\r?\n/);
  if (/^[A-Z]+ \S+ HTTP\/[\d.]+$/.test(lines[0])) lines.shift();
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Error(`not a header line: ${JSON.stringify(line)}`);
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]} ${value}`;
  }
  return { headers, body: raw.subarray(end + sep) };
}
