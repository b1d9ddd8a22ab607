import {
  attempt,
  customerCancel,
  declarePaid,
  hostedPageView,
  hostedReceipt,
  publicStatus,
  simulate,
} from '../modules/checkout-sessions/hosted.ts';
import { handleCallback } from '../modules/checkout-sessions/callbacks.ts';
import {
  authenticateHostedInvoice,
  authenticationOf,
  confirmHostedInvoice,
  hostedInvoicePage,
  hostedInvoicePdfUrl,
  payHostedInvoice,
} from '../modules/checkout-sessions/invoice-page.ts';
import { acceptInvitationPage, invitationPage } from '../modules/members/hosted.ts';
import { hostedPageHeaders, renderErrorPage, renderHostedPage } from '../hosted/page.ts';
import { portalPageHeaders, renderPortalErrorPage, renderPortalPage } from '../hosted/portal-page.ts';
import { languageSwitch, pageLanguage, type PageRequest } from '../hosted/language.ts';
import { type Language, messages } from '../core/i18n/index.ts';
import { escapeHtml, renderHtml } from '../modules/documents/render/html.ts';
import { assertPortalPage, portalState } from '../modules/portal-sessions/portal.ts';
import { portalAction } from '../modules/portal-sessions/subscription-actions.ts';
import { edgeRoute, type EdgeInput, type EdgeRoute } from './edge-route.ts';
import { sluggedPage, type SluggedPage } from '../modules/workspaces/hosted.ts';
import {
  customerCancelSetup,
  publicSetupStatus,
  setupAttempt,
  setupOtp,
  setupPageView,
  setupReturn,
  simulateSetup,
} from '../modules/setup-sessions/hosted.ts';
import { renderSetupPage } from '../hosted/setup-page.ts';
import { portalMethodAction, portalSetup } from '../modules/portal-sessions/payment-method-actions.ts';

const noStore = { 'cache-control': 'no-store' };
/** The invoice page has no script; its one form posts to itself (same origin). */
const hostedInvoicePageHeaders = {
  ...hostedPageHeaders,
  'content-security-policy':
    "default-src 'none'; img-src https: http: data:; style-src 'unsafe-inline'; form-action 'self'; " +
    "frame-ancestors 'none'",
};

/** The invitation page has no script; its one form posts to itself. */
const invitationPageHeaders = {
  ...hostedInvoicePageHeaders,
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
};
// Invitations are read by the merchant's team, not customers: English (docs/decisions.md, Customer language).
const renderInvitationErrorPage = (status: number) =>
  renderErrorPage(status, 'en', { 404: 'This invitation link is not valid', 410: 'This invitation has expired' });

/**
 * The test sandbox's authentication step (docs/guides/payment-methods.md, Requires action): two
 * buttons posting to the page itself, no script; "nothing waits" once the charge was settled.
 */
function authenticatePage(lang: Language, token: string, waiting: boolean): string {
  const L = messages(lang).doc;
  const form = waiting
    ? `<form method="post" action="/i/${escapeHtml(token)}/authenticate">` +
      `<button type="submit" name="outcome" value="success" id="authenticate">${escapeHtml(L.authenticate)}</button> ` +
      `<button type="submit" name="outcome" value="failure" id="fail">${escapeHtml(L.authenticateFail)}</button></form>`
    : `<p><a href="/i/${escapeHtml(token)}">${escapeHtml(L.invoice)}</a></p>`;
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="robots" content="noindex">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(L.authenticateTitle)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}button{padding:.6rem 1.2rem;margin-right:.5rem}</style>
</head><body><main><p><strong>${escapeHtml(L.testMode)}</strong></p><h1>${escapeHtml(L.authenticateTitle)}</h1>
<p>${escapeHtml(L.authenticateIntro)}</p>${form}</main></body></html>`;
}

/** A form's field (`application/x-www-form-urlencoded`), or the JSON body's. */
function formField(input: EdgeInput<'capability'>, name: string): string {
  const text = input.rawBody.toString('utf8');
  if (text.trimStart().startsWith('{')) return String(input.json()[name] ?? '');
  return new URLSearchParams(text).get(name) ?? '';
}

/**
 * A customer page's language, chosen once the workspace's default is known (the module calls
 * `pick`), and the headers that go with it (Content-Language, Vary, the remembering cookie).
 */
function languageOf(req: PageRequest) {
  let headers: Record<string, string> = {};
  return {
    pick: (workspace: Language): Language => {
      const chosen = pageLanguage(req, workspace);
      headers = chosen.headers;
      return chosen.lang;
    },
    headers: () => headers,
  };
}

/** The invitation link (src/modules/members/hosted.ts): GET shows it, its button's POST accepts. */
const invitationRoute = (method: 'GET' | 'POST', page: (token: string) => Promise<string>) =>
  edgeRoute({
    method,
    url: '/invitations/:token',
    auth: 'capability',
    rateClass: 'hosted',
    resource: 'member',
    errorPage: renderInvitationErrorPage,
    handler: async ({ params }) => ({
      contentType: 'text/html; charset=utf-8',
      headers: invitationPageHeaders,
      body: await page(params.token),
    }),
  });

/** A JSON call of the page's script: public, the token is the capability, never cached. */
const pageCall = (
  method: 'GET' | 'POST',
  path: string,
  fn: (token: string, body: Record<string, unknown>, lang: Language) => Promise<unknown>,
) =>
  edgeRoute({
    method,
    url: `/c/:token${path}`,
    auth: 'capability',
    rateClass: 'hosted',
    resource: 'checkout_session',
    handler: async (input: EdgeInput<'capability'>) => ({
      json: await fn(input.params.token, input.json(), pageLanguage(input, 'en').lang),
      headers: noStore,
    }),
  });

/** A JSON call of the setup page's script (docs/guides/setup-sessions.md): public, the token is the capability. */
const setupCall = (
  method: 'GET' | 'POST',
  path: string,
  fn: (token: string, body: Record<string, unknown>) => Promise<unknown>,
) =>
  edgeRoute({
    method,
    url: `/s/:token${path}`,
    auth: 'capability',
    rateClass: 'hosted',
    resource: 'setup_session',
    handler: async (input: EdgeInput<'capability'>) => ({
      json: await fn(input.params.token, method === 'POST' ? input.json() : {}),
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
    handler: async (input) => {
      const language = languageOf(input);
      const body = renderHostedPage(await hostedPageView(input.params.token, language.pick));
      return {
        contentType: 'text/html; charset=utf-8',
        headers: { ...hostedPageHeaders, ...language.headers() },
        body,
      };
    },
  }),
  // The receipt of a completed session, for the customer who paid: the same document as the API's
  // receipt.html, in the customer's language with the switch.
  edgeRoute({
    method: 'GET',
    url: '/c/:token/receipt',
    auth: 'capability',
    rateClass: 'hosted',
    resource: 'receipt',
    errorPage: renderErrorPage,
    handler: async (input) => {
      const language = languageOf(input);
      const { view, language: lang } = await hostedReceipt(input.params.token, language.pick);
      return {
        contentType: 'text/html; charset=utf-8',
        headers: { ...hostedInvoicePageHeaders, ...language.headers() },
        body: renderHtml(view, { top: languageSwitch(lang) }),
      };
    },
  }),
  pageCall('GET', '/status', (token) => publicStatus(token)),
  // The page's script sends its language (`?lang=`): the instructions are worded in it.
  pageCall('POST', '/attempt', (token, body, lang) =>
    attempt(token, String(body.method ?? ''), lang, body.savePaymentMethod),
  ),
  pageCall('POST', '/attempt/declare-paid', (token) => declarePaid(token)),
  pageCall('POST', '/simulate', (token, body) =>
    simulate(token, String(body.outcome ?? ''), { savePaymentMethod: body.savePaymentMethod, scenario: body.scenario }),
  ),
  pageCall('POST', '/cancel', (token) => customerCancel(token)),
  // The hosted setup page (src/modules/setup-sessions/hosted.ts): saving a method, no charge.
  edgeRoute({
    method: 'GET',
    url: '/s/:token',
    auth: 'capability',
    rateClass: 'hosted',
    resource: 'setup_session',
    errorPage: renderErrorPage,
    handler: async (input) => {
      const language = languageOf(input);
      const body = renderSetupPage(await setupPageView(input.params.token, language.pick));
      return {
        contentType: 'text/html; charset=utf-8',
        headers: { ...hostedPageHeaders, ...language.headers() },
        body,
      };
    },
  }),
  // The provider sends the customer back here; its word is asked (fetchSetup), never the redirect's.
  edgeRoute({
    method: 'GET',
    url: '/s/:token/return',
    auth: 'capability',
    rateClass: 'hosted',
    resource: 'setup_session',
    errorPage: renderErrorPage,
    handler: async (input) => ({ redirect: await setupReturn(input.params.token), status: 303, headers: noStore }),
  }),
  setupCall('GET', '/status', (token) => publicSetupStatus(token)),
  setupCall('POST', '/attempt', (token, body) => setupAttempt(token, body)),
  setupCall('POST', '/attempt/otp', (token, body) => setupOtp(token, body)),
  setupCall('POST', '/simulate', (token, body) => simulateSetup(token, body)),
  setupCall('POST', '/cancel', (token) => customerCancelSetup(token)),
  // The hosted invoice page (src/modules/checkout-sessions/invoice-page.ts): its Pay button posts a form, which
  // opens (or reuses) the invoice's checkout session and lands on that session's page.
  edgeRoute({
    method: 'GET',
    url: '/i/:token',
    auth: 'capability',
    rateClass: 'hosted',
    resource: 'invoice',
    errorPage: renderErrorPage,
    handler: async (input) => {
      const language = languageOf(input);
      const body = await hostedInvoicePage(input.params.token, language.pick, languageSwitch);
      return {
        contentType: 'text/html; charset=utf-8',
        headers: { ...hostedInvoicePageHeaders, ...language.headers() },
        body,
      };
    },
  }),
  edgeRoute({
    method: 'POST',
    url: '/i/:token/pay',
    auth: 'capability',
    rateClass: 'hosted',
    resource: 'invoice',
    errorPage: renderErrorPage,
    handler: async (input) => ({
      redirect: await payHostedInvoice(input.params.token, languageOf(input).pick),
      status: 303,
      headers: noStore,
    }),
  }),
  // The page's `doc.downloadPdf` link: to a freshly signed PDF URL (src/server/downloads.ts, /f/).
  edgeRoute({
    method: 'GET',
    url: '/i/:token/pdf',
    auth: 'capability',
    rateClass: 'hosted',
    resource: 'invoice',
    errorPage: renderErrorPage,
    handler: async (input) => ({
      redirect: await hostedInvoicePdfUrl(input.params.token),
      status: 302,
      headers: { ...noStore, 'referrer-policy': 'no-referrer' },
    }),
  }),
  // The confirm link (`doc.confirmPayment`) while an automatic charge waits for the customer: to the action's page.
  edgeRoute({
    method: 'GET',
    url: '/i/:token/confirm',
    auth: 'capability',
    rateClass: 'hosted',
    resource: 'invoice',
    errorPage: renderErrorPage,
    handler: async (input) => ({
      redirect: await confirmHostedInvoice(input.params.token),
      status: 303,
      headers: noStore,
    }),
  }),
  // The test sandbox's authentication step (test mode only): the same effect as POST /v1/payments/:id/simulate.
  edgeRoute({
    method: 'GET',
    url: '/i/:token/authenticate',
    auth: 'capability',
    rateClass: 'hosted',
    resource: 'invoice',
    errorPage: renderErrorPage,
    handler: async (input) => {
      const { paymentId } = await authenticationOf(input.params.token);
      const { lang, headers } = pageLanguage(input, 'id');
      return {
        contentType: 'text/html; charset=utf-8',
        headers: { ...hostedInvoicePageHeaders, ...headers },
        body: authenticatePage(lang, input.params.token, paymentId !== null),
      };
    },
  }),
  edgeRoute({
    method: 'POST',
    url: '/i/:token/authenticate',
    auth: 'capability',
    rateClass: 'hosted',
    resource: 'invoice',
    errorPage: renderErrorPage,
    handler: async (input) => ({
      redirect: await authenticateHostedInvoice(input.params.token, formField(input, 'outcome')),
      status: 303,
      headers: noStore,
    }),
  }),
  invitationRoute('GET', invitationPage),
  // The customer portal (src/modules/portal-sessions/portal.ts): the page carries no data; its script
  // reads the token from the URL's fragment and sends it in X-Portal-Token, never in a URL.
  edgeRoute({
    method: 'GET',
    url: '/portal/:id',
    auth: 'capability',
    rateClass: 'hosted',
    resource: 'portal_session',
    errorPage: renderPortalErrorPage,
    handler: async (input) => {
      const { language: workspace, timezone } = await assertPortalPage(input.params.id);
      const { lang, headers } = pageLanguage(input, workspace);
      return {
        contentType: 'text/html; charset=utf-8',
        headers: { ...portalPageHeaders, ...headers },
        body: renderPortalPage(lang, timezone),
      };
    },
  }),
  edgeRoute({
    method: 'GET',
    url: '/portal/:id/api/state',
    auth: 'capability',
    rateClass: 'hosted',
    resource: 'portal_session',
    handler: async ({ params, headers }) => ({
      json: await portalState(params.id, headers['x-portal-token']),
      headers: noStore,
    }),
  }),
  invitationRoute('POST', acceptInvitationPage),
  edgeRoute({
    method: 'POST',
    url: '/portal/:id/api/subscriptions/:sub/:action',
    auth: 'capability',
    rateClass: 'hosted',
    resource: 'portal_session',
    handler: async ({ params, headers, json, requestId }) => ({
      json: await portalAction(params.id, headers['x-portal-token'], params.sub, params.action, json(), requestId),
      headers: noStore,
    }),
  }),
  // The customer's saved payment methods (docs/guides/setup-sessions.md, Portal): a setup session to save one,
  // the default, a detach.
  edgeRoute({
    method: 'POST',
    url: '/portal/:id/api/payment-methods/setup',
    auth: 'capability',
    rateClass: 'hosted',
    resource: 'portal_session',
    handler: async ({ params, headers, json, requestId }) => ({
      json: await portalSetup(params.id, headers['x-portal-token'], json(), requestId),
      headers: noStore,
    }),
  }),
  edgeRoute({
    method: 'POST',
    url: '/portal/:id/api/payment-methods/:pm/:action',
    auth: 'capability',
    rateClass: 'hosted',
    resource: 'portal_session',
    handler: async ({ params, headers, requestId }) => ({
      json: await portalMethodAction(params.id, headers['x-portal-token'], params.pm, params.action, requestId),
      headers: noStore,
    }),
  }),
  // The same pages under the merchant's slug (src/modules/workspaces/hosted.ts): a retired slug is 410.
  ...(['c', 'i'] as SluggedPage[]).map((page) =>
    edgeRoute({
      method: 'GET',
      url: `/:slug/${page}/:token`,
      auth: 'capability',
      rateClass: 'hosted',
      resource: page === 'c' ? 'checkout_session' : 'invoice',
      errorPage: (status, lang) => renderErrorPage(status, lang, { 410: messages(lang).errors.slugMoved }),
      handler: async ({ params }) => ({
        redirect: await sluggedPage(params.slug, page, params.token),
        status: 302,
        headers: noStore,
      }),
    }),
  ),
  edgeRoute({
    method: 'POST',
    url: '/v1/callbacks/:provider',
    auth: 'none',
    // Per client address before any lookup: a forged callback may cost a verification call to the provider.
    rateClass: 'callback',
    resource: 'checkout_session',
    handler: async ({ params, headers, rawBody }) => ({
      json: { received: true, ...(await handleCallback(params.provider, { headers, rawBody })) },
    }),
  }),
];
