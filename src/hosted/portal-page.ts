/**
 * The hosted customer portal page `GET /portal/<ps_id>` (spec Portal session): one self-contained
 * HTML document in the checkout page's style (inline CSS and script, no third-party assets), mobile
 * first, in the customer's language (src/hosted/language.ts). It carries no session data. Its
 * script reads the token from the URL's fragment (never sent to a server), keeps it in
 * sessionStorage and takes it out of the address bar, and calls `/portal/<ps_id>/api/...` with it
 * in the `X-Portal-Token` header; everything shown comes from that JSON
 * (src/modules/portal-sessions/portal.ts).
 */
import { type Language, localeOf, messages } from '../core/i18n/index.ts';
import { zoneLabel } from '../modules/documents/render/format.ts';
import { languageSwitch } from './language.ts';
import { hostedPageHeaders, renderErrorPage, scriptJson } from './page.ts';
import { invoiceOpen } from '../modules/invoices/states.ts';
import { chargeable } from '../modules/payment-methods/states.ts';
import { subscriptionCanceled, subscriptionPaused, subscriptionTrialing } from '../modules/subscriptions/states.ts';

/** As the checkout page's, and links out (invoice pages, PDFs, the merchant's returnUrl) are plain navigations. */
export const portalPageHeaders = hostedPageHeaders;

const css = `:root{--accent:#0f766e}*{box-sizing:border-box}
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f7;color:#1f2328}
main{max-width:560px;margin:0 auto;padding:16px}
header,section{background:#fff;border-radius:14px;padding:20px;box-shadow:0 1px 3px #0001;margin-top:12px}
header{margin-top:0}.merchant{font-weight:600;color:var(--accent)}
h1{font-size:1.35rem;margin:4px 0}h2{font-size:1.1rem;margin:0 0 12px}h3{font-size:1rem;margin:0}
[hidden]{display:none!important}
.test{display:inline-block;background:#fde68a;color:#713f12;border-radius:6px;padding:2px 8px;font-size:.75rem;
font-weight:600}
.card{border:1.5px solid #d0d7de;border-radius:12px;padding:14px 16px;margin-top:10px}
.row{display:flex;justify-content:space-between;gap:12px;align-items:baseline;flex-wrap:wrap}
.price{font-weight:700}.muted{color:#57606a;font-size:.9rem}.note{background:#f6f8fa;border-radius:8px;padding:8px 10px;
font-size:.9rem;margin-top:8px}
.badge{display:inline-block;border-radius:999px;padding:1px 10px;font-size:.8rem;font-weight:600;background:#eef2f5;
color:#32383f}.badge.active,.badge.paid,.badge.trialing{background:#dcfce7;color:#14532d}
.badge.past_due,.badge.open,.badge.incomplete{background:#fef3c7;color:#78350f}.badge.canceled,.badge.void,
.badge.uncollectible{background:#fee2e2;color:#7f1d1d}.badge.paused{background:#e0e7ff;color:#312e81}
.actions{display:flex;flex-wrap:wrap;gap:8px;margin-top:12px}
button.act,a.act{flex:1 1 auto;min-height:44px;padding:10px 14px;border:1.5px solid #d0d7de;border-radius:12px;
background:#fff;font:inherit;font-weight:600;cursor:pointer;text-align:center;text-decoration:none;color:inherit}
button.primary,a.primary{background:var(--accent);border-color:var(--accent);color:#fff}
button.danger{border-color:#b42318;color:#b42318}button:disabled{opacity:.6;cursor:progress}
button:focus-visible,a:focus-visible,select:focus-visible,input:focus-visible{outline:3px solid #0969da;outline-offset:2px}
.panel{border-top:1px solid #eee;margin-top:12px;padding-top:12px}
.option{display:flex;gap:10px;align-items:flex-start;padding:10px;border:1.5px solid #d0d7de;border-radius:10px;
margin-top:8px;cursor:pointer}.option input{margin-top:4px;width:20px;height:20px}
.tag{font-size:.75rem;font-weight:700;text-transform:uppercase;letter-spacing:.03em}.tag.upgrade{color:#14532d}
.tag.downgrade{color:#78350f}
select{width:100%;min-height:44px;font:inherit;padding:8px;border:1.5px solid #d0d7de;border-radius:10px;background:#fff}
ul.invoices{list-style:none;margin:0;padding:0}ul.invoices li{border-bottom:1px solid #f1f1f1;padding:10px 0}
ul.invoices li:last-child{border-bottom:0}.links{display:flex;gap:8px;margin-top:8px;flex-wrap:wrap}
.links a{flex:0 1 auto;min-height:40px;padding:8px 12px;font-size:.9rem}
#flash{margin:10px 4px 0}#flash:empty{margin:0}.ok{color:#14532d}.err{color:#b42318}
footer{text-align:center;margin:16px 0}.center{text-align:center}`;

/** The page's behaviour: token, state, rendering in either language, actions. */
const script = `(() => {
const id = location.pathname.split('/')[2];
const key = 'svc-portal:' + id;
const m = /(?:^#|&)t=([^&]+)/.exec(location.hash);
if (m) { sessionStorage.setItem(key, decodeURIComponent(m[1])); history.replaceState(null, '', location.pathname); }
const token = sessionStorage.getItem(key);
const P = window.__portal, T = P.t;
const $ = (s) => document.getElementById(s);
const el = (tag, props, ...kids) => {
  const { attrs, ...rest } = props || {};
  const e = Object.assign(document.createElement(tag), rest);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const k of kids) if (k != null && k !== false) e.append(k);
  return e;
};
let state = null, loadedAt = 0;
const t = () => T;
// In the workspace's zone (its dates are its days); times carry the zone's name (WIB).
const fmt = (d) => d ? new Intl.DateTimeFormat(P.locale, { dateStyle: 'medium', timeZone: P.timezone })
  .format(new Date(d)) : '';
const fmtTime = (d) => new Intl.DateTimeFormat(P.locale, { timeStyle: 'short', hourCycle: 'h23',
  timeZone: P.timezone }).format(new Date(d)) + ' ' + P.zone;
const flash = (text, ok) => { const f = $('flash'); f.textContent = text || ''; f.className = ok ? 'ok' : 'err'; };
class Gone extends Error {}
async function api(path, body) {
  const r = await fetch('/portal/' + encodeURIComponent(id) + '/api' + path, {
    method: body ? 'POST' : 'GET',
    headers: Object.assign({ 'x-portal-token': token || '' }, body ? { 'content-type': 'application/json' } : {}),
    body: body ? JSON.stringify(body) : undefined,
  });
  const j = await r.json().catch(() => ({}));
  if (r.status === 410) throw new Gone(t().expired);
  if (r.status === 404 && !state) throw new Gone(t().invalid);
  if (!r.ok) throw new Error(r.status === 403 ? t().forbidden : (j.error && j.error.message) || t().error);
  return j.data;
}
const every = (n, unit) => {
  const w = t().interval[unit] || [unit, unit];
  return n === 1 ? t().per + ' ' + w[0] : t().every + ' ' + n + ' ' + w[1];
};
function closed(text) {
  $('app').replaceChildren(el('section', { className: 'center', id: 'closed' }, el('h2', { textContent: text })));
}
/** A method's name: a fixed test token's, or a saved method's display fields (brand and last four, wallet, bank). */
function pmLabel(pm) {
  const L = t();
  if (L.pmNames[pm]) return L.pmNames[pm];
  const m = (state.paymentMethods || []).find((x) => x.id === pm);
  if (!m) return pm;
  if (m.card) return m.card.brand.toUpperCase() + ' \u2022\u2022\u2022\u2022 ' + m.card.last4;
  if (m.ewallet) return m.ewallet.provider.toUpperCase() + ' ' + m.ewallet.maskedAccount;
  if (m.directDebit) return m.directDebit.bank.toUpperCase() + ' ' + m.directDebit.maskedAccount;
  if (m.paypal) return 'PayPal ' + m.paypal.maskedEmail;
  return pm;
}
async function act(sub, action, body, button) {
  if (button) button.disabled = true;
  try {
    state = await api('/subscriptions/' + encodeURIComponent(sub) + '/' + action, body || {});
    loadedAt = Date.now(); render(); flash(t().done[action], true);
  } catch (e) {
    if (e instanceof Gone) return closed(e.message);
    flash(e.message, false); if (button) button.disabled = false;
  }
}
function subCard(s) {
  const L = t(), a = s.actions;
  const card = el('article', { className: 'card', attrs: { 'aria-label': s.planName } });
  card.dataset.sub = s.id;
  card.append(el('div', { className: 'row' }, el('h3', { textContent: s.planName }),
    el('span', { className: 'badge ' + s.status, textContent: L.status[s.status] || s.status })));
  card.append(el('div', { className: 'price', textContent: s.usage ? L.usage : s.amount + ' ' +
    every(s.intervalCount, s.interval) }));
  const when = s.status === '${subscriptionCanceled}' || s.status === '${subscriptionPaused}' ? null : s.cancelAtPeriodEnd ? L.willCancel : s.status === '${subscriptionTrialing}' ?
    L.trialEnds : L.renews;
  if (when) card.append(el('p', { className: 'muted', textContent: when + ' ' + fmt(s.status === '${subscriptionTrialing}' &&
    s.trialEnd ? s.trialEnd : s.currentPeriodEnd) }));
  if (s.discount) card.append(el('p', { className: 'note discount', textContent: L.discount + ': ' + s.discount.name +
    (s.discount.end ? ' (' + L.discountUntil + ' ' + fmt(s.discount.end) + ')' : '') }));
  if (s.pendingPriceId) card.append(el('p', { className: 'note', textContent: L.pending.replace('{plan}',
    s.pendingPlanName || s.pendingPriceId) }));
  if (state.testMode || s.paymentMethod) card.append(el('p', { className: 'muted', textContent: L.pm + ': ' +
    (s.paymentMethod ? pmLabel(s.paymentMethod) : L.pmNone) }));
  const panel = el('div', { className: 'panel', hidden: true });
  const open = (kids) => { panel.replaceChildren(...kids); panel.hidden = false;
    const f = panel.querySelector('input,select,button'); if (f) f.focus(); };
  const btn = (action, text, cls, onclick) => {
    const b = el('button', { className: 'act ' + (cls || ''), type: 'button', textContent: text, onclick });
    b.dataset.action = action; return b;
  };
  const closeBtn = () => btn('close', L.close, '', () => { panel.hidden = true; });
  const acts = el('div', { className: 'actions' });
  if (s.options.length) acts.append(btn('change', L.change, 'primary', () => {
    const list = el('fieldset', { style: 'border:0;margin:0;padding:0' }, el('legend', { className: 'muted',
      textContent: L.change }));
    for (const o of s.options) {
      const input = el('input', { type: 'radio', name: 'price-' + s.id, value: o.priceId });
      list.append(el('label', { className: 'option' }, input, el('span', {},
        el('span', { className: 'tag ' + o.direction, textContent: L[o.direction] }), el('br'),
        el('strong', { textContent: o.planName }), ' ', o.amount + ' ' + every(o.intervalCount, o.interval))));
    }
    open([list, el('div', { className: 'actions' }, btn('confirm-change', L.confirmChange, 'primary', (ev) => {
      const picked = panel.querySelector('input[type=radio]:checked');
      if (picked) act(s.id, 'change', { priceId: picked.value }, ev.currentTarget);
    }), closeBtn())]);
  }));
  if (a.updatePaymentMethod) acts.append(btn('payment-method', L.updatePm, '', () => {
    const select = el('select', { id: 'pm-' + s.id });
    const saved = state.paymentMethods.filter((m) => m.status === '${chargeable}').map((m) => m.id);
    for (const pm of saved.concat(state.testPaymentMethods || [])) select.append(el('option', { value: pm,
      textContent: pmLabel(pm), selected: pm === s.paymentMethod }));
    open([el('label', { htmlFor: 'pm-' + s.id, className: 'muted', textContent: L.pm }), select,
      el('div', { className: 'actions' }, btn('save-payment-method', L.savePm, 'primary', (ev) =>
        act(s.id, 'payment-method', saved.includes(select.value) ? { paymentMethodId: select.value } :
          { paymentMethod: select.value }, ev.currentTarget)),
        // A new method is saved on the hosted setup page, which comes back here (docs/guides/setup-sessions.md).
        btn('add-payment-method', L.addPm, '', async (ev) => {
          ev.currentTarget.disabled = true;
          try { location.assign((await api('/payment-methods/setup', { subscriptionId: s.id })).url); }
          catch (e) { ev.currentTarget.disabled = false; flash(e.message); }
        }), closeBtn())]);
  }));
  if (a.pause) acts.append(btn('pause', L.pause, '', (ev) => act(s.id, 'pause', null, ev.currentTarget)));
  if (a.resume) acts.append(btn('resume', L.resume, 'primary', (ev) => act(s.id, 'resume', null, ev.currentTarget)));
  if (a.keep) acts.append(btn('keep', L.keep, 'primary', (ev) => act(s.id, 'keep', null, ev.currentTarget)));
  if (a.cancel) acts.append(btn('cancel', L.cancel, 'danger', () => open([
    el('p', { textContent: L.cancelAsk.replace('{date}', fmt(s.currentPeriodEnd)) }),
    el('div', { className: 'actions' }, btn('confirm-cancel', L.confirmCancel, 'danger', (ev) =>
      act(s.id, 'cancel', null, ev.currentTarget)), btn('close', L.keep, '', () => { panel.hidden = true; })),
  ])));
  if (acts.childElementCount) card.append(acts);
  card.append(panel);
  return card;
}
function invoiceItem(i) {
  const L = t();
  const li = el('li');
  li.dataset.invoice = i.id;
  li.append(el('div', { className: 'row' }, el('strong', { textContent: i.number || i.id }),
    el('span', { className: 'badge ' + i.status, textContent: L.status[i.status] || i.status })));
  li.append(el('div', { className: 'row' }, el('span', { className: 'muted', textContent: (i.status === '${invoiceOpen}' &&
    i.dueAt ? L.due + ' ' + fmt(i.dueAt) : L.issued + ' ' + fmt(i.issuedAt)) }),
    el('span', { className: 'price', textContent: i.status === '${invoiceOpen}' ? i.amountDue : i.total })));
  for (const d of i.discounts || []) li.append(el('div', { className: 'row discount' },
    el('span', { className: 'muted', textContent: L.discount + ': ' + d.name }), el('span', { textContent: '-' + d.amount })));
  for (const c of i.creditNotes || []) li.append(el('div', { className: 'row credit-note' },
    el('span', { className: 'muted', textContent: L.creditNote + ' ' + c.number }), el('span', { textContent: '-' + c.total })));
  if (i.balanceApplied) li.append(el('div', { className: 'row balance-applied' },
    el('span', { className: 'muted', textContent: L.balanceApplied }),
    el('span', { textContent: '-' + i.balanceApplied })));
  const pdf = el('a', { className: 'act pdf', href: i.pdfUrl, textContent: L.pdf, target: '_blank', rel: 'noopener' });
  // The signed link lives about 5 minutes: an older page asks for a fresh one first.
  pdf.addEventListener('click', async (ev) => {
    if (Date.now() - loadedAt < 240000) return;
    ev.preventDefault();
    try { state = await api('/state'); loadedAt = Date.now(); render(); } catch (e) { return flash(e.message); }
    const fresh = state.invoices && state.invoices.find((x) => x.id === i.id);
    if (fresh) window.open(fresh.pdfUrl, '_blank', 'noopener');
  });
  const links = el('div', { className: 'links' }, pdf);
  if (i.payUrl) links.append(el('a', { className: 'act primary pay', href: i.payUrl, textContent: L.pay }));
  li.append(links);
  return li;
}
function render() {
  const L = t(), s = state;
  document.title = L.title + ' - ' + s.merchantName;
  $('merchant').textContent = s.merchantName;
  $('title').textContent = L.title;
  $('who').textContent = L.hello + ' ' + [s.customer.name, s.customer.email].filter(Boolean).join(' · ');
  $('badge').hidden = !s.testMode; $('badge').textContent = L.test;
  const subs = el('section', { attrs: { 'aria-labelledby': 'subs-h' }, id: 'subscriptions' }, el('h2', { id: 'subs-h',
    textContent: L.subs }));
  if (!s.subscriptions.length) subs.append(el('p', { className: 'muted', textContent: L.noSubs }));
  for (const sub of s.subscriptions) subs.append(subCard(sub));
  const parts = [subs];
  if (s.invoices) {
    const inv = el('section', { attrs: { 'aria-labelledby': 'inv-h' }, id: 'invoices' }, el('h2', { id: 'inv-h',
      textContent: L.invoices }));
    if (!s.invoices.length) inv.append(el('p', { className: 'muted', textContent: L.noInvoices }));
    else inv.append(el('ul', { className: 'invoices' }, ...s.invoices.map(invoiceItem)));
    parts.push(inv);
  }
  parts.push(el('footer', {}, el('a', { className: 'act', id: 'return', href: s.returnUrl,
    textContent: L.back + ' ' + s.merchantName }), el('p', { className: 'muted', textContent: L.expires + ' ' +
    fmtTime(s.expiresAt) })));
  $('app').replaceChildren(...parts);
}
if (!token) return closed(t().invalid);
api('/state').then((s) => { state = s; loadedAt = Date.now(); render(); }).catch((e) => closed(e.message));
})();`;

const pages = new Map<string, string>();

/**
 * The page in a language and a workspace's zone: no session data, so the same bytes for every session
 * of that language and zone (built once each, kept; the switch's links reload it with `?lang=`).
 */
export function renderPortalPage(lang: Language, timezone: string): string {
  const key = `${lang}|${timezone}`;
  let page = pages.get(key);
  if (page) return page;
  const L = messages(lang).portal.client;
  const locale = localeOf(lang);
  const data = scriptJson({ t: L, locale, timezone, zone: zoneLabel(timezone, locale) });
  page = `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${L.title}</title>
<style>${css}</style></head>
<body><main>
${languageSwitch(lang)}
<header>
<div class="merchant" id="merchant"></div><h1 id="title">${L.title}</h1><p class="muted" id="who"></p>
<span class="test" id="badge" hidden></span>
</header>
<p id="flash" role="status" aria-live="polite"></p>
<div id="app"><section class="center"><p class="muted" id="loading">${L.loading}</p></section></div>
</main>
<script>window.__portal=${data};</script><script>${script}</script>
</body></html>`;
  if (pages.size < 256) pages.set(key, page);
  return page;
}

/** The page a browser gets instead of the envelope: 410 once expired (spec), in the request's language. */
export function renderPortalErrorPage(status: number, lang: Language): string {
  const E = messages(lang).errors;
  return renderErrorPage(status, lang, { 410: E.portalExpired, 404: E.portalInvalid });
}
