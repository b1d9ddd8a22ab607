import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { attempt, customerCancel, declarePaid, hostedPageView, publicStatus, simulate } from '../modules/checkout-sessions/hosted.ts';
import { handleCallback } from '../modules/checkout-sessions/callbacks.ts';
import { renderHostedPage } from '../hosted/page.ts';
import { envelope, errorReply } from './envelope.ts';
import { parseJsonBody, rawBody } from './edge.ts';
import { enforceRate, type RateLimiter } from '../core/rate-limit.ts';

type Params = { token: string };

/**
 * The client a public page's rate bucket belongs to: the IPv4 address, or the IPv6 /64 (one
 * subscriber's prefix; single IPv6 addresses are free to rotate).
 */
export function clientBucket(ip: string): string {
  const v4 = /^(?:::ffff:)?(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (v4) return `hosted-ip:${v4[1]}`;
  const [head] = ip.split('::');
  const groups = head.split(':').filter(Boolean);
  // Fewer than four groups before `::` means the rest of the /64 is zeros.
  return `hosted-ip:${[...groups, '0', '0', '0', '0'].slice(0, 4).join(':').toLowerCase()}::/64`;
}

/**
 * The customer-facing pages (spec Payment flow): `GET /c/<token>` and the JSON calls its script makes,
 * where the token is `<cs_id>_<secret>` (src/core/hosted-link.ts); a bare session id is a 404.
 * Public, so rate-limited per client address before anything is looked up; answers use the
 * envelope like the API.
 */
export function mountHosted(app: FastifyInstance, limiter: RateLimiter) {
  const json = (fn: (token: string, body: Record<string, unknown>) => Promise<unknown>) => async (req: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
    try {
      await enforceRate(limiter, clientBucket(req.ip), 'hosted');
      const body = req.method === 'POST' ? parseJsonBody(rawBody(req), { allowEmpty: true }) : {};
      const data = await fn(req.params.token, body);
      return reply.type('application/json; charset=utf-8').header('cache-control', 'no-store').send(envelope(req.requestId, data));
    } catch (e) {
      const r = errorReply(e, req.requestId, 'checkout_session');
      return reply.status(r.status).headers(r.headers).type('application/json; charset=utf-8').send(r.body);
    }
  };

  app.get<{ Params: Params }>('/c/:token', async (req, reply) => {
    try {
      await enforceRate(limiter, clientBucket(req.ip), 'hosted');
      const view = await hostedPageView(req.params.token);
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('content-security-policy', "default-src 'none'; img-src data: https:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'")
        .header('referrer-policy', 'no-referrer')
        .send(renderHostedPage(view));
    } catch (e) {
      const r = errorReply(e, req.requestId, 'checkout_session');
      const title = r.status === 404 ? 'This payment link does not exist' : r.status === 429 ? 'Too many requests; try again shortly' : 'Something went wrong';
      return reply.status(r.status).headers(r.headers).type('text/html; charset=utf-8').send(`<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title><body style="font:16px system-ui;text-align:center;padding:48px 16px"><h1 style="font-size:1.2rem">${title}</h1></body>`);
    }
  });
  app.get<{ Params: Params }>('/c/:token/status', json((token) => publicStatus(token)));
  app.post<{ Params: Params }>('/c/:token/attempt', json((token, body) => attempt(token, String(body.method ?? ''))));
  app.post<{ Params: Params }>('/c/:token/attempt/declare-paid', json((token) => declarePaid(token)));
  app.post<{ Params: Params }>('/c/:token/simulate', json((token, body) => simulate(token, String(body.outcome ?? ''))));
  app.post<{ Params: Params }>('/c/:token/cancel', json((token) => customerCancel(token)));

  // Provider callbacks: authenticated the provider's own way over the raw bytes (callbacks.ts).
  app.post<{ Params: { provider: string } }>('/v1/callbacks/:provider', async (req, reply) => {
    try {
      const data = await handleCallback(req.params.provider, { headers: req.headers, rawBody: rawBody(req) });
      return reply.type('application/json; charset=utf-8').send(envelope(req.requestId, { received: true, ...data }));
    } catch (e) {
      const r = errorReply(e, req.requestId, 'checkout_session');
      return reply.status(r.status).headers(r.headers).type('application/json; charset=utf-8').send(r.body);
    }
  });
}
