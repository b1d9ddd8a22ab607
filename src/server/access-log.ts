/**
 * What the access log says about a request's URL (docs/security.md, No capability secret in the
 * access log). Hosted links carry their secret in the path (`/c/<cs>_<secret>`, `/i/...`,
 * `/invitations/<mem>_<secret>`, the merchant-slug pages) and signed downloads in the query
 * (`/f/<inv>.pdf?...&s=<mac>`): whoever reads the logs could open them first. So a request is
 * logged as its route pattern and its path with every `:token` parameter reduced to its id, and
 * signed query values replaced; a URL no route matched has every secret-shaped run replaced.
 */
import type { FastifyRequest } from 'fastify';

const REDACTED = '[redacted]';
/** Route parameters that are capabilities (`<id>_<secret>`): only the id part is kept. */
const CAPABILITY_PARAMS = new Set(['token']);
/** Query parameters that are signatures or secrets, whatever the route. */
const SECRET_QUERY = new Set(['s', 'sig', 'signature', 'token', 'secret', 'key']);
/** The id part of a token: a prefixed ULID (src/core/ids.ts). */
const ID_PREFIX = /^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}(?=_)/;
/** In an unmatched URL: a hex run of 16+ (hosted and invitation secrets), a long base64url run (MACs). */
const SECRET_RUN = /[0-9a-f]{16,}|[A-Za-z0-9_-]{32,}/g;

const redactToken = (value: string) => {
  const id = ID_PREFIX.exec(value)?.[0];
  return id ? `${id}_${REDACTED}` : REDACTED;
};

function redactQuery(query: string, all: boolean): string {
  if (!query) return '';
  const parts = query.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    if (eq < 0) return pair.replace(SECRET_RUN, REDACTED);
    const name = pair.slice(0, eq);
    return all || SECRET_QUERY.has(name.toLowerCase())
      ? `${name}=${REDACTED}`
      : `${name}=${pair.slice(eq + 1).replace(SECRET_RUN, REDACTED)}`;
  });
  return `?${parts.join('&')}`;
}

/** The route pattern (`unmatched` when none) and the URL with its secrets removed. */
export function loggedUrl(req: FastifyRequest): { route: string; url: string } {
  const cut = req.url.indexOf('?');
  const path = cut < 0 ? req.url : req.url.slice(0, cut);
  const query = cut < 0 ? '' : req.url.slice(cut + 1);
  const pattern = req.routeOptions.url;
  if (!pattern || req.is404) {
    return { route: 'unmatched', url: path.replace(SECRET_RUN, REDACTED) + redactQuery(query, true) };
  }
  const names = paramsOf(pattern);
  let filled = pattern;
  if (names.length) {
    const params = req.params as Record<string, string>;
    filled = pattern.replace(PARAM, (_m, name: string) => {
      const value = params[name] ?? '';
      return CAPABILITY_PARAMS.has(name) ? redactToken(value) : value;
    });
  }
  return { route: pattern, url: filled + redactQuery(query, false) };
}

const PARAM = /:([A-Za-z0-9_]+)/g;
/** Each route pattern's parameter names, read once (the patterns are the app's routes: a bounded set). */
const patternParams = new Map<string, string[]>();
function paramsOf(pattern: string): string[] {
  let names = patternParams.get(pattern);
  if (!names) patternParams.set(pattern, (names = [...pattern.matchAll(PARAM)].map((m) => m[1])));
  return names;
}
