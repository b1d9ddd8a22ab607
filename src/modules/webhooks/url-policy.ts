import { BlockList, isIP } from 'node:net';
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { Mode } from '../../core/db/client.ts';
import { DomainError, errorsFor } from '../../core/errors.ts';

/**
 * Where webhooks may go (spec Webhook endpoints): `https://` in live mode, `http://` too in test
 * mode, and never to this machine, a private network, link-local or cloud metadata addresses,
 * judged on every address the host resolves to. The same rule runs again at connect time
 * (`guardedLookup`), so a name that later resolves elsewhere (DNS rebinding) is refused then.
 *
 * `SVC_WEBHOOK_ALLOW_LOOPBACK=1` allows loopback receivers (127.0.0.0/8, ::1, localhost) for local
 * development and tests; nothing else is relaxed by it.
 */
const err = errorsFor('webhook_endpoint');

const privateRanges = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  privateRanges.addSubnet(net, bits, 'ipv4');
// The IANA IPv6 special-purpose registry's ranges that are not globally reachable, and those that
// carry an IPv4 address a relay would reach (6to4, Teredo, IPv4-compatible).
for (const [net, bits] of [
  ['::', 96], // unspecified and IPv4-compatible (deprecated): ::a.b.c.d
  ['::ffff:0:0:0', 96], // IPv4-translated (RFC 2765)
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215)
  ['100::', 64], // discard-only
  ['100:0:0:1::', 64], // dummy prefix (RFC 9780)
  ['2001::', 23], // IETF protocol assignments: Teredo 2001::/32, benchmarking, ORCHID
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: an IPv4 address inside
  ['3fff::', 20], // documentation (RFC 9637)
  ['5f00::', 16], // SRv6 SIDs (RFC 9602)
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  privateRanges.addSubnet(net, bits, 'ipv6');
}
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

const metadataHosts = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);
const isLocalName = (host: string) =>
  host === 'localhost' || host.endsWith('.localhost') || host === 'ip6-localhost' || host === 'ip6-loopback';

export const loopbackAllowed = () =>
  ['1', 'true', 'yes'].includes((process.env.SVC_WEBHOOK_ALLOW_LOOPBACK ?? '').toLowerCase());

/** IPv4 written inside IPv6 (`::ffff:10.0.0.1`, NAT64 `64:ff9b::a00:1`) is judged as IPv4. */
function embeddedIpv4(address: string): string | null {
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return null;
  const [hi, lo] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

const LOOPBACK = 'a loopback address';
const LOOPBACK_HINT =
  ': for a local receiver, run `svc listen --forward-to <url>` (signed like real deliveries), or start ' +
  'the server with SVC_WEBHOOK_ALLOW_LOOPBACK=1 (development only)';

/** Why an address may not receive webhooks, or null when it may. */
export function refusedAddress(address: string): string | null {
  const v4 = embeddedIpv4(address);
  const [addr, family] = v4
    ? [v4, 'ipv4' as const]
    : [address, isIP(address) === 6 ? ('ipv6' as const) : ('ipv4' as const)];
  if (loopback.check(addr, family)) return loopbackAllowed() ? null : LOOPBACK;
  if (privateRanges.check(addr, family)) return 'a private, link-local, metadata or reserved address';
  return null;
}

/** How long endpoint validation waits for DNS before it refuses the URL (`SVC_WEBHOOK_DNS_TIMEOUT_MS`). */
const dnsTimeoutMs = () => Number(process.env.SVC_WEBHOOK_DNS_TIMEOUT_MS) || 2500;

/** The resolver; tests may replace it to resolve names to chosen addresses. */
export const resolver = {
  lookupAll: (host: string): Promise<string[]> =>
    dns.promises.lookup(host, { all: true, verbatim: true }).then((rs) => rs.map((r) => r.address)),
};

const notAllowed = (message: string) =>
  new DomainError('url_not_allowed', message, { field: 'url', resource: 'webhook_endpoint' });

/** Validates an endpoint URL for a mode; returns it normalised. */
export async function checkWebhookUrl(raw: unknown, mode: Mode): Promise<string> {
  if (typeof raw !== 'string' || !raw.trim()) throw err.validation('url', 'url is required');
  if (raw.length > 2048) throw err.validation('url', 'url must be at most 2048 characters');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw err.validation('url', 'url must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw err.validation('url', 'url must use https:// (or http:// in test mode)');
  if (mode === 'live' && url.protocol !== 'https:') throw notAllowed('Live-mode endpoints must use https://');
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (metadataHosts.has(host)) throw notAllowed(`${host} is a cloud metadata service`);
  const addresses = isIP(host) ? [host] : isLocalName(host) ? ['127.0.0.1'] : await boundedLookup(host, raw);
  if (!addresses?.length) throw notAllowed(`${host} does not resolve`);
  for (const a of addresses) {
    const why = refusedAddress(a);
    if (!why) continue;
    const what = isIP(host) ? `${host} is ${why}` : `${host} resolves to ${a}, ${why}`;
    // A developer's local receiver: say the two ways that work.
    throw notAllowed(why === LOOPBACK ? `${what}${LOOPBACK_HINT}` : what);
  }
  return url.toString();
}

/** The host's addresses, null when it does not resolve; a resolver slower than the bound is a 400 naming the URL. */
async function boundedLookup(host: string, url: string): Promise<string[] | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), dnsTimeoutMs())));
  try {
    const answer = await Promise.race([resolver.lookupAll(host).catch(() => null), timeout]);
    if (answer === 'timeout')
      throw err.validation('url', `${url}: resolving ${host} took longer than ${dnsTimeoutMs()} ms`);
    return answer;
  } finally {
    clearTimeout(timer);
  }
}

/** A `lookup` for outgoing sockets that refuses the addresses `refusedAddress` refuses. */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  resolver.lookupAll(hostname).then(
    (addresses) => {
      const refused = addresses.map((a) => [a, refusedAddress(a)] as const).find(([, why]) => why);
      if (refused)
        return callback(
          Object.assign(new Error(`${hostname} resolves to ${refused[0]}, ${refused[1]}`), { code: 'EADDRNOTALLOWED' }),
          '',
          4,
        );
      const list = addresses.map((address) => ({ address, family: isIP(address) }));
      if (options.all) return (callback as unknown as (e: null, l: typeof list) => void)(null, list);
      callback(null, list[0].address, list[0].family);
    },
    (e) => callback(e, '', 4),
  );
};
