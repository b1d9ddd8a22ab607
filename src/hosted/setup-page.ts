/**
 * The hosted setup page `GET /s/<token>` (token = `<ss_id>_<secret>`; docs/guides/setup-sessions.md):
 * saving a payment method with no charge. One self-contained HTML document (inline CSS and a small
 * script, the checkout page's CSP: no third-party frames), in the customer's language. No card number
 * is ever typed here: cards, wallets and PayPal are tokenized on the provider's own page (a redirect),
 * direct debit asks for its OTP here; in test mode the managed sandbox answers with a picker of its
 * scenarios.
 */
import { formatDateTime } from '../modules/documents/render/format.ts';
import { type Language, localeOf, messages } from '../core/i18n/index.ts';
import type { SetupPageView } from '../modules/setup-sessions/hosted.ts';
import { setupSuccessRedirect } from '../modules/setup-sessions/hosted.ts';
import { setupOpen, setupSessionMachine } from '../modules/setup-sessions/states.ts';
import { languageSwitch } from './language.ts';
import { scriptJson } from './page.ts';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const { complete, expire, cancel } = setupSessionMachine.moves;

function closedScreen(view: SetupPageView): string | null {
  const M = messages(view.lang).setup;
  if (view.status === complete.to)
    return (
      `<section class="done" data-state="completed"><h2>${esc(M.saved)}</h2>` +
      `<p><a id="continue" href="${esc(setupSuccessRedirect(view.successUrl, view.id))}">${esc(M.continue)}</a></p></section>`
    );
  if (view.status === expire.to)
    return (
      `<section class="done" data-state="expired"><h2>${esc(M.expired)}</h2>` +
      `<p>${esc(M.askNewLink(view.merchantName))}</p></section>`
    );
  if (view.status === cancel.to)
    return (
      `<section class="done" data-state="canceled"><h2>${esc(M.canceled)}</h2>` +
      `<p><a href="${esc(view.cancelUrl)}">${esc(M.continue)}</a></p></section>`
    );
  return null;
}

function typeRow(view: SetupPageView, t: SetupPageView['types'][number]): string {
  const M = messages(view.lang).setup;
  const channels = t.channels.length
    ? `<select name="channel" aria-label="${esc(M.client.channel)}">${t.channels
        .map((c) => `<option value="${esc(c)}">${esc(c.toUpperCase())}</option>`)
        .join('')}</select>` +
      `<input name="phone" inputmode="tel" autocomplete="tel" placeholder="${esc(M.client.phone)}" ` +
      `aria-label="${esc(M.client.phone)}">`
    : '';
  return (
    `<div class="type" data-type="${esc(t.type)}"><strong>${esc(M.types[t.type])}</strong>${channels}` +
    `<button class="primary save" data-type="${esc(t.type)}">${esc(M.client.save)}</button></div>`
  );
}

export function renderSetupPage(view: SetupPageView): string {
  const M = messages(view.lang).setup;
  const closed = closedScreen(view);
  const deadline = `<time datetime="${view.expiresAt.toISOString()}">${esc(formatDateTime(view.expiresAt, localeOf(view.lang), view.timezone))}</time>`;
  const body =
    closed ??
    `<section id="choose" data-state="choose">
      <h2>${esc(M.choose)}</h2>
      <p class="consent" id="consent">${esc(M.consent(view.merchantName))}</p>
      <div class="types">${view.types.map((t) => typeRow(view, t)).join('')}</div>
      <p class="err" id="error" role="alert"></p>
    </section>
    <section id="next" hidden data-state="next">
      <div id="instructions"></div>
      <p class="muted" id="status-line"></p>
    </section>
    <p class="expires">${esc(M.saveBefore)} ${deadline}</p>
    <button class="link cancel" id="cancel">${esc(M.cancel)}</button>`;
  const badge = view.testMode ? `<span class="test">${esc(messages(view.lang).checkout.testMode)}</span>` : '';
  const session = scriptJson({
    token: view.token,
    lang: view.lang,
    cancelUrl: view.cancelUrl,
    scenarios: view.scenarios,
    t: M.client,
  });
  return `<!doctype html>
<html lang="${view.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${esc(M.title(view.merchantName))}</title>
<style>
*{box-sizing:border-box}
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f7;color:#1f2328}
main{max-width:460px;margin:0 auto;padding:16px}
header,section{background:#fff;border-radius:14px;padding:20px;box-shadow:0 1px 3px #0001;margin-top:12px}
.merchant{font-weight:600;color:#0f766e}h1{font-size:1.4rem;margin:4px 0}h2{font-size:1.1rem;margin:0 0 12px}
.test{display:inline-block;background:#fde68a;color:#713f12;border-radius:6px;padding:2px 8px;font-size:.75rem;
font-weight:600}
.types{display:grid;gap:10px}.type{display:grid;gap:8px;padding:14px 16px;border:1.5px solid #d0d7de;border-radius:12px}
select,input{font:inherit;padding:10px;border:1px solid #d0d7de;border-radius:8px;width:100%}
.primary{width:100%;padding:12px;border:0;border-radius:12px;background:#0f766e;color:#fff;font:inherit;font-weight:600;
cursor:pointer;margin-top:6px;display:block;text-align:center;text-decoration:none}
.secondary{width:100%;padding:10px;border:1.5px solid #d0d7de;border-radius:12px;background:#fff;font:inherit;
cursor:pointer;margin-top:6px}
.link{background:none;border:0;color:#57606a;text-decoration:underline;font:inherit;cursor:pointer;padding:8px 0}
.cancel{display:block;margin:8px auto}.muted{color:#57606a;font-size:.9rem}.consent{font-size:.9rem;color:#57606a}
.expires{text-align:center;color:#57606a;font-size:.85rem}.done{text-align:center}.err{color:#b42318}
</style></head>
<body><main>
${languageSwitch(view.lang)}
<header><div class="merchant">${esc(view.merchantName)}</div><h1>${esc(M.heading)}</h1>
<p class="muted">${esc(M.noCharge)}</p>${badge}</header>
${body}
</main>
${closed ? '' : `<script>window.__setup=${session};</script><script>${clientScript}</script>`}
</body></html>`;
}

/** The page's behaviour: save a type, follow the provider's next step (redirect, OTP, sandbox picker), finish. */
const clientScript = `(() => {
const s = window.__setup, T = s.t, base = '/s/' + encodeURIComponent(s.token);
const $ = (id) => document.getElementById(id);
const el = (tag, props, ...kids) => {
  const e = Object.assign(document.createElement(tag), props || {}); e.append(...kids); return e;
};
const post = async (path, body) => {
  const r = await fetch(base + path + '?lang=' + s.lang, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body || {}),
  });
  const j = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error((j.error && j.error.message) || T.error);
  return j.data;
};
const show = (which) => { $('choose').hidden = which !== 'choose'; $('next').hidden = which !== 'next'; };
const failed = (d) => {
  $('error').textContent = (d && d.lastError && d.lastError.message) ? T.failed + ' (' + d.lastError.message + ')' : T.failed;
  show('choose');
};
const done = (d) => {
  if (d && d.redirectUrl) { location.assign(d.redirectUrl); return true; }
  if (d && d.status === '${setupOpen}') { failed(d); return true; }
  return false;
};
function render(d) {
  if (done(d)) return;
  const box = $('instructions'); box.replaceChildren();
  const n = d.next || {};
  if (n.kind === 'redirect') {
    box.append(el('a', { className: 'primary', id: 'provider-link', href: n.redirectUrl, textContent: T.continueTo }));
  } else if (n.kind === 'otp') {
    const input = el('input', { id: 'otp', inputMode: 'numeric', autocomplete: 'one-time-code', placeholder: T.otp });
    box.append(el('p', { textContent: T.otp }), input, el('button', { className: 'primary', id: 'otp-confirm',
      textContent: T.confirm, onclick: async () => {
        try { render(await post('/attempt/otp', { otp: input.value })); } catch (e) { $('status-line').textContent = e.message; }
      } }));
  } else if (n.kind === 'sandbox') {
    box.append(el('p', { textContent: T.sandbox }));
    for (const sc of s.scenarios) box.append(el('button', {
      className: 'secondary', textContent: sc.name + ' (' + sc.last4 + ')', onclick: () => simulate('success', sc.name),
    }));
    box.dataset.sandbox = '1';
    box.querySelectorAll('button').forEach((b, i) => { b.dataset.scenario = s.scenarios[i].name; });
    box.append(el('button', { className: 'link', id: 'simulate-failure', textContent: T.fail,
      onclick: () => simulate('failure') }));
  } else {
    $('status-line').textContent = T.waiting;
  }
  show('next');
}
async function simulate(outcome, scenario) {
  try { const d = await post('/simulate', scenario ? { outcome, scenario } : { outcome }); if (!done(d)) render(d); }
  catch (e) { $('status-line').textContent = e.message; }
}
document.querySelectorAll('button.save').forEach((b) => b.addEventListener('click', async () => {
  const row = b.closest('.type'), channel = row.querySelector('select'), phone = row.querySelector('input');
  const body = { type: b.dataset.type };
  if (channel) body.channel = channel.value;
  if (phone && phone.value) body.phone = phone.value;
  b.disabled = true; $('error').textContent = '';
  try { render(await post('/attempt', body)); } catch (e) { $('error').textContent = e.message; }
  finally { b.disabled = false; }
}));
$('cancel').addEventListener('click', async () => {
  if (!confirm(T.confirmCancel)) return;
  try { await post('/cancel'); location.assign(s.cancelUrl); } catch (e) { alert(e.message); }
});
})();`;

export type { Language };
