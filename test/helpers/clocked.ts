import { signRequest } from '../../src/core/auth/signing.ts';
import { clock, epochSeconds } from '../../src/core/clock.ts';
import type { Workspace } from './server.ts';

/**
 * A signed request over the exact body bytes (a string is sent as it is), timestamped by the
 * injectable clock: for tests that move the clock past leases and expiries.
 */
export const clockedSender =
  (server: { url: string }) =>
  (
    ws: Pick<Workspace, 'keyId' | 'secret'>,
    method: string,
    target: string,
    body: unknown,
    headers: Record<string, string> = {},
  ) =>
    send(server.url, ws, method, target, body, headers);

async function send(
  baseUrl: string,
  ws: Pick<Workspace, 'keyId' | 'secret'>,
  method: string,
  target: string,
  body: unknown,
  headers: Record<string, string>,
) {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const signed = signRequest({
    keyId: ws.keyId,
    secret: ws.secret,
    method,
    target,
    body: raw,
    timestamp: epochSeconds(clock.now()),
  });
  const res = await fetch(baseUrl + target, {
    method,
    headers: { ...signed, 'content-type': 'application/json', ...headers },
    body: raw,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : null };
}
