import {
  attempt,
  customerCancel,
  declarePaid,
  hostedPageView,
  publicStatus,
  simulate,
} from '../modules/checkout-sessions/hosted.ts';
import { handleCallback } from '../modules/checkout-sessions/callbacks.ts';
import { hostedInvoicePage, payHostedInvoice } from '../modules/invoices/hosted.ts';
import { hostedPageHeaders, renderErrorPage, renderHostedPage } from '../hosted/page.ts';
import { edgeRoute, type EdgeInput, type EdgeRoute } from './edge-route.ts';

const noStore = { 'cache-control': 'no-store' };
/** The invoice page has no script; its one form posts to itself (same origin). */
const hostedInvoicePageHeaders = {
  ...hostedPageHeaders,
  'content-security-policy':
    "default-src 'none'; img-src https: http: data:; style-src 'unsafe-inline'; form-action 'self'; " +
    "frame-ancestors 'none'",
};

/** A JSON call of the page's script: public, the token is the capability, never cached. */
const pageCall = (
  method: 'GET' | 'POST',
  path: string,
  fn: (token: string, body: Record<string, unknown>) => Promise<unknown>,
) =>
  edgeRoute({
    method,
    url: `/c/:token${path}`,
    auth: 'capability',
    rateClass: 'hosted',
    resource: 'checkout_session',
    handler: async (input: EdgeInput<'capability'>) => ({
      json: await fn(input.params.token, input.json()),
      headers: noStore,
    }),
  });

/**
 * The customer-facing pages (spec Payment flow): `GET /c/<token>` and the JSON calls its script makes,
 * where the token is `<cs_id>_<secret>` (src/core/hosted-link.ts); a bare session id is a 404.
 * Public, so rate-limited per client address before anything is looked up; answers use the
 * envelope like the API. Then the provider callbacks, authenticated the provider's own way over
 * the raw bytes (callbacks.ts).
 */
export const hostedRoutes: EdgeRoute[] = [
  edgeRoute({
    method: 'GET',
    url: '/c/:token',
    auth: 'capability',
    rateClass: 'hosted',
    resource: 'checkout_session',
    errorPage: renderErrorPage,
    handler: async ({ params }) => ({
      contentType: 'text/html; charset=utf-8',
      headers: hostedPageHeaders,
      body: renderHostedPage(await hostedPageView(params.token)),
    }),
  }),
  pageCall('GET', '/status', (token) => publicStatus(token)),
  pageCall('POST', '/attempt', (token, body) => attempt(token, String(body.method ?? ''))),
  pageCall('POST', '/attempt/declare-paid', (token) => declarePaid(token)),
  pageCall('POST', '/simulate', (token, body) => simulate(token, String(body.outcome ?? ''))),
  pageCall('POST', '/cancel', (token) => customerCancel(token)),
  // The hosted invoice page (src/modules/invoices/hosted.ts): its Pay button posts a form, which
  // opens (or reuses) the invoice's checkout session and lands on that session's page.
  edgeRoute({
    method: 'GET',
    url: '/i/:token',
    auth: 'capability',
    rateClass: 'hosted',
    resource: 'invoice',
    errorPage: renderErrorPage,
    handler: async ({ params }) => ({
      contentType: 'text/html; charset=utf-8',
      headers: hostedInvoicePageHeaders,
      body: await hostedInvoicePage(params.token),
    }),
  }),
  edgeRoute({
    method: 'POST',
    url: '/i/:token/pay',
    auth: 'capability',
    rateClass: 'hosted',
    resource: 'invoice',
    errorPage: renderErrorPage,
    handler: async ({ params }) => ({ redirect: await payHostedInvoice(params.token), status: 303, headers: noStore }),
  }),
  edgeRoute({
    method: 'POST',
    url: '/v1/callbacks/:provider',
    auth: 'none',
    rateClass: null,
    resource: 'checkout_session',
    handler: async ({ params, headers, rawBody }) => ({
      json: { received: true, ...(await handleCallback(params.provider, { headers, rawBody })) },
    }),
  }),
];
