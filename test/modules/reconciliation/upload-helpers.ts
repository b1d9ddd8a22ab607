// Signed raw-body uploads to POST /v1/reconciliation/imports, and generated report files.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { canonicalOfHash, signature, signingKeyOf } from '../../../src/core/auth/signing.ts';
import type { TestServer, Workspace } from '../../helpers/server.ts';

export type Res = { status: number; json: any; text: string; headers: Headers };
export const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

export interface UploadOpts {
  /** The declared hash (default: the body's); null sends none. */
  sha?: string | null;
  contentType?: string;
  headers?: Record<string, string>;
}

const HEADER =
  'transaction_id,type,reference,provider_reference,occurred_at,currency,amount,fee,fee_vat,withholding_tax,net,settlement_id,settled_at,method,description';

/** A generic provider report: `rows` payment lines (`txn_<prefix>_<i>`), in batches of 1,000 per settlement id. */
export function providerLine(prefix: string, i: number, amount = 100000) {
  const fee = Math.round(amount * 0.007);
  return `txn_${prefix}_${i},payment,pay_${i},ref_${i},2026-11-20T10:00:00Z,IDR,${amount},${fee},0,0,${amount - fee},SET-${prefix}-${Math.floor(i / 1000)},2026-11-22,qris,order ${i}`;
}
export const providerCsv = (prefix: string, rows: number) =>
  `${HEADER}\n${Array.from({ length: rows }, (_, i) => providerLine(prefix, i)).join('\n')}\n`;

export const bankCsv = (lines: string[]) =>
  `line_id,value_date,direction,amount,currency,description,reference,balance_after\n${lines.join('\n')}\n`;

export const providerQuery = (adapter = 'provider_a', extra = '') =>
  `/v1/reconciliation/imports?source=provider_report&adapter=${adapter}${extra}`;

/** Signs the declared hash (the body's unless given) and sends the body, a buffer or a stream. */
export async function upload(
  server: TestServer,
  ws: Workspace,
  target: string,
  body: Buffer | string | Readable,
  opts: UploadOpts = {},
): Promise<Res> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const declared = opts.sha === undefined ? sha256(bytes as Buffer) : opts.sha;
  const ts = String(Math.floor(Date.now() / 1000));
  const sig = signature(signingKeyOf(ws.secret), canonicalOfHash(ts, 'POST', target, declared ?? ''));
  const res = await fetch(server.url + target, {
    method: 'POST',
    headers: {
      authorization: `Svc-HMAC-SHA256 keyId=${ws.keyId}, scope=*, signature=${sig}`,
      'x-svc-timestamp': ts,
      'content-type': opts.contentType ?? 'text/csv',
      ...(declared === null ? {} : { 'x-svc-content-sha256': declared }),
      ...opts.headers,
    },
    body: bytes instanceof Readable ? (Readable.toWeb(bytes) as ReadableStream) : bytes,
    ...(bytes instanceof Readable ? { duplex: 'half' } : {}),
  } as RequestInit);
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, json, text, headers: res.headers };
}
