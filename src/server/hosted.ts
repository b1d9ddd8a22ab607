import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { attempt, customerCancel, declarePaid, hostedPageView, publicStatus, simulate } from '../modules/checkout-sessions/hosted.ts';
import { handleCallback } from '../modules/checkout-sessions/callbacks.ts';
import { renderHostedPage } from '../hosted/page.ts';
import { envelope, errorReply } from './envelope.ts';
import { parseJsonBody, rawBody } from './edge.ts';
import { enforceRate, type RateLimiter } from '../core/rate-limit.ts';

type Params = { id: string };

/**
 * The customer-facing pages (DECISIONS §4): `GET /c/<id>` and the JSON calls its script makes.
 * Public, so rate-limited per session id; answers use the envelope like the API.
 */
export function mountHosted(app: FastifyInstance, limiter: RateLimiter) {
  const json = (fn: (id: string, body: Record<string, unknown>) => Promise<unknown>) => async (req: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
    try {
      await enforceRate(limiter, `hosted:${req.params.id}`, 'mutating_light');
      const body = req.method === 'POST' ? parseJsonBody(rawBody(req), { allowEmpty: true }) : {};
      const data = await fn(req.params.id, body);
      return reply.type('application/json; charset=utf-8').header('cache-control', 'no-store').send(envelope(req.requestId, data));
    } catch (e) {
      const r = errorReply(e, req.requestId, 'checkout_session');
      return reply.status(r.status).headers(r.headers).type('application/json; charset=utf-8').send(r.body);
    }
  };

  app.get<{ Params: Params }>('/c/:id', async (req, reply) => {
    try {
      const view = await hostedPageView(req.params.id);
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('content-security-policy', "default-src 'none'; img-src data: https:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'")
        .header('referrer-policy', 'no-referrer')
        .send(renderHostedPage(view));
    } catch (e) {
      const r = errorReply(e, req.requestId, 'checkout_session');
      const title = r.status === 404 ? 'This payment link does not exist' : 'Something went wrong';
      return reply.status(r.status).type('text/html; charset=utf-8').send(`<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title><body style="font:16px system-ui;text-align:center;padding:48px 16px"><h1 style="font-size:1.2rem">${title}</h1></body>`);
    }
  });
  app.get<{ Params: Params }>('/c/:id/status', json((id) => publicStatus(id)));
  app.post<{ Params: Params }>('/c/:id/attempt', json((id, body) => attempt(id, String(body.method ?? ''))));
  app.post<{ Params: Params }>('/c/:id/attempt/declare-paid', json((id) => declarePaid(id)));
  app.post<{ Params: Params }>('/c/:id/simulate', json((id, body) => simulate(id, String(body.outcome ?? ''))));
  app.post<{ Params: Params }>('/c/:id/cancel', json((id) => customerCancel(id)));

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
