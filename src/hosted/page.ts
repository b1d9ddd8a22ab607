/**
 * The hosted checkout page `GET /c/<token>` (token = `<cs_id>_<secret>`, src/core/hosted-link.ts):
 * one self-contained HTML document (inline CSS and a small script, no third-party assets), mobile
 * first. The script talks to the public `/c/<token>/...` endpoints only; everything it shows comes
 * from their JSON.
 */
import { formatMoney } from '../core/money.ts';
import {
  sessionCanceled,
  sessionCompleted,
  sessionExpired,
  type SessionStatus,
} from '../modules/checkout-sessions/states.ts';
import { formatDateTime } from '../modules/documents/render/format.ts';
import { type Language, localeOf, messages } from '../core/i18n/index.ts';
import { languageSwitch } from './language.ts';
import { successRedirect } from '../modules/checkout-sessions/redirect.ts';

export interface HostedMethod {
  method: string;
  label: string;
  hint: string;
  /** Its payment can leave a reusable token (the consent box stands next to it). */
  savable?: boolean;
}

export interface HostedPageView {
  /** The customer's language (src/hosted/language.ts). */
  lang: Language;
  /** A completed session's receipt can be opened (`/c/<token>/receipt`). */
  hasReceipt: boolean;
  id: string;
  /** The URL's capability token; the page's own calls carry it. */
  token: string;
  status: SessionStatus;
  amount: number;
  currency: string;
  merchantName: string;
  accentColor: string | null;
  lineItems: { name: string; quantity: number; unitAmount: number }[];
  methods: HostedMethod[];
  expiresAt: Date;
  /** The workspace's IANA zone: the deadline is shown in it. */
  timezone: string;
  testMode: boolean;
  /** Where the customer goes after paying (`?session_id=` appended) or canceling. */
  successUrl: string;
  cancelUrl: string;
  /** Saving the method: `optional` shows the unticked consent box, `required` a notice (docs/guides/checkout-sessions.md). */
  savePaymentMethod?: 'none' | 'optional' | 'required';
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** JSON inside <script>: `</script>` and U+2028/9 cannot break out. */
export const scriptJson = (v: unknown) =>
  JSON.stringify(v)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
const safeColor = (c: string | null) => (c && /^#[0-9a-fA-F]{3,8}$/.test(c) ? c : '#0f766e');

function closedScreen(view: HostedPageView): string | null {
  const M = messages(view.lang).checkout;
  switch (view.status) {
    case sessionCompleted:
      return (
        `<section class="done" data-state="completed"><h2>${esc(M.received)}</h2>` +
        `<p>${esc(M.thanks)} <a href="${esc(successRedirect(view.successUrl, view.id))}">${esc(M.continue)}</a></p>` +
        (view.hasReceipt
          ? `<p><a id="receipt" href="/c/${esc(encodeURIComponent(view.token))}/receipt">${esc(M.viewReceipt)}</a></p>`
          : '') +
        '</section>'
      );
    case sessionExpired:
      return (
        `<section class="done" data-state="expired"><h2>${esc(M.expired)}</h2>` +
        `<p>${esc(M.askNewLink(view.merchantName))}</p></section>`
      );
    case sessionCanceled:
      return (
        `<section class="done" data-state="canceled"><h2>${esc(M.canceled)}</h2>` +
        `<p><a href="${esc(view.cancelUrl)}">${esc(M.backTo(view.merchantName))}</a></p></section>`
      );
    default:
      return null;
  }
}

export function renderHostedPage(view: HostedPageView): string {
  const M = messages(view.lang).checkout;
  const accent = safeColor(view.accentColor);
  const total = formatMoney(view.amount, view.currency);
  const items = view.lineItems
    .map(
      (i) =>
        `<li><span>${esc(i.name)}${i.quantity > 1 ? ` &times; ${i.quantity}` : ''}</span>` +
        `<span>${esc(formatMoney(BigInt(i.unitAmount) * BigInt(i.quantity), view.currency))}</span></li>`,
    )
    .join('');
  const closed = closedScreen(view);
  // In the merchant's zone, named (WIB), as its receipts and invoices say it; not the server's GMT.
  const deadline = `<time datetime="${view.expiresAt.toISOString()}">${esc(formatDateTime(view.expiresAt, localeOf(view.lang), view.timezone))}</time>`;
  const body =
    closed ??
    `<section id="choose" data-state="choose">
      <h2>${esc(M.choose)}</h2>
      <div class="methods">${view.methods
        .map(
          (m) =>
            `<button class="method" data-method="${esc(m.method)}"${m.savable ? ' data-savable="1"' : ''}>` +
            `<strong>${esc(m.label)}</strong><small>${esc(m.hint)}</small></button>`,
        )
        .join('')}</div>${saveChoice(view)}
    </section>
    <section id="pay" hidden data-state="pay">
      <div id="instructions"></div>
      <div id="actions"></div>
      <p class="muted" id="status-line"></p>
      <button class="link" id="back">${esc(M.chooseAnother)}</button>
    </section>
    <p class="expires">${esc(M.payBefore)} ${deadline}</p>
    <button class="link cancel" id="cancel">${esc(M.cancel)}</button>`;
  const head =
    `<div class="merchant">${esc(view.merchantName)}</div>` + `<div class="amount" data-amount>${esc(total)}</div>`;
  const badge = view.testMode ? `<span class="test">${esc(M.testMode)}</span>` : '';
  const list = items ? `<ul class="items">${items}</ul>` : '';
  const session = scriptJson({
    token: view.token,
    testMode: view.testMode,
    cancelUrl: view.cancelUrl,
    lang: view.lang,
    t: M.client,
  });
  return `<!doctype html>
<html lang="${view.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${esc(M.title(view.merchantName, total))}</title>
<style>
:root{--accent:${accent}}*{box-sizing:border-box}
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f7;color:#1f2328}
main{max-width:460px;margin:0 auto;padding:16px}
header{background:#fff;border-radius:14px;padding:20px;box-shadow:0 1px 3px #0001}
.merchant{font-weight:600;color:var(--accent)}.amount{font-size:2rem;font-weight:700;margin:4px 0}
.test{display:inline-block;background:#fde68a;color:#713f12;border-radius:6px;padding:2px 8px;font-size:.75rem;
font-weight:600}
ul.items{list-style:none;padding:0;margin:12px 0 0;border-top:1px solid #eee}
ul.items li{display:flex;justify-content:space-between;gap:12px;padding:6px 0;border-bottom:1px solid #f1f1f1;
font-size:.95rem}
section{background:#fff;border-radius:14px;padding:20px;margin-top:12px;box-shadow:0 1px 3px #0001}
h2{font-size:1.1rem;margin:0 0 12px}
.methods{display:grid;gap:10px}
.save{display:flex;gap:8px;align-items:flex-start;margin-top:12px;font-size:14px}
.save small{display:block;color:#57606a}.save-notice{margin-top:12px;font-size:14px;color:#57606a}
.method{display:flex;flex-direction:column;align-items:flex-start;text-align:left;padding:14px 16px;
border:1.5px solid #d0d7de;border-radius:12px;background:#fff;font:inherit;cursor:pointer}
.method:hover,.method:focus{border-color:var(--accent);outline:none}.method small{color:#57606a}
.primary{width:100%;padding:14px;border:0;border-radius:12px;background:var(--accent);color:#fff;font:inherit;
font-weight:600;cursor:pointer;margin-top:10px}
.secondary{width:100%;padding:12px;border:1.5px solid #d0d7de;border-radius:12px;background:#fff;font:inherit;
cursor:pointer;margin-top:8px}
.link{background:none;border:0;color:#57606a;text-decoration:underline;font:inherit;cursor:pointer;padding:8px 0}
.cancel{display:block;margin:8px auto}
.qr{display:block;margin:8px auto;width:240px;max-width:100%;height:auto}
.code{font:600 1.4rem ui-monospace,monospace;letter-spacing:.06em;background:#f6f8fa;padding:10px;border-radius:8px;
text-align:center;word-break:break-all}
.muted{color:#57606a;font-size:.9rem}.expires{text-align:center;color:#57606a;font-size:.85rem}.done{text-align:center}
.err{color:#b42318}
</style></head>
<body><main>
${languageSwitch(view.lang)}
<header>${head}${badge}${list}</header>
${body}
</main>
${closed ? '' : `<script>window.__session=${session};</script><script>${clientScript}</script>`}
</body></html>`;
}

/** The page's behaviour: pick a method, show instructions, settle (sandbox), poll, redirect. */
const clientScript = `(() => {
const s = window.__session, T = s.t, base = '/c/' + encodeURIComponent(s.token);
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
const show = (which) => { $('choose').hidden = which !== 'choose'; $('pay').hidden = which !== 'pay'; };
const status = (text, err) => {
  const l = $('status-line'); l.textContent = text; l.className = err ? 'err' : 'muted';
};
const finish = (d) => { if (d && d.redirectUrl) location.assign(d.redirectUrl); };
let polling;
const poll = () => { clearInterval(polling); polling = setInterval(async () => {
  const r = await fetch(base + '/status').then((x) => x.json()).catch(() => null);
  if (r && r.data && r.data.redirectUrl) { clearInterval(polling); finish(r.data); }
  else if (r && r.data && ['${sessionExpired}', '${sessionCanceled}'].includes(r.data.status)) location.reload();
}, 2000); };
function render(a) {
  const box = $('instructions'), actions = $('actions');
  box.replaceChildren(el('h2', { textContent: a.title }));
  if (a.qrSvg) {
    const src = 'data:image/svg+xml;base64,' + btoa(a.qrSvg);
    const img = el('img', { className: 'qr', alt: T.qrAlt, src });
    box.append(img);
  }
  if (a.code) box.append(el('div', { className: 'code', textContent: a.code }));
  for (const line of a.lines || []) box.append(el('p', { textContent: line }));
  if (a.redirectUrl) box.append(el('a', {
    className: 'primary', href: a.redirectUrl, textContent: T.continueTo.replace('{label}', a.label),
    style: 'display:block;text-align:center;text-decoration:none',
  }));
  actions.replaceChildren();
  if (a.canDeclarePaid) actions.append(el('button', { className: 'primary', id: 'declare', textContent: T.declare,
    onclick: async () => {
      try {
        await post('/attempt/declare-paid'); status(T.declared);
        actions.replaceChildren(); poll();
      } catch (e) { status(e.message, true); }
    } }));
  if (s.testMode && a.canSimulate) {
    actions.append(el('button', {
      className: 'primary', id: 'simulate-success', textContent: T.simulateSuccess,
      onclick: () => simulate('success'),
    }));
    actions.append(el('button', {
      className: 'secondary', id: 'simulate-failure', textContent: T.simulateFailure,
      onclick: () => simulate('failure'),
    }));
  }
  status(a.waiting ? T.waiting : '');
  show('pay');
  if (a.waiting) poll();
}
async function simulate(outcome) {
  try {
    const d = await post('/simulate', { outcome }); if (d.redirectUrl) return finish(d);
    status(T.failed, true); show('choose');
  } catch (e) { status(e.message, true); }
}
document.querySelectorAll('.method').forEach((b) => b.addEventListener('click', async () => {
  b.disabled = true;
  const box = $('save-method');
  const save = !!(box && box.checked && b.dataset.savable === '1');
  try { render(await post('/attempt', { method: b.dataset.method, savePaymentMethod: save })); }
  catch (e) { alert(e.message); }
  finally { b.disabled = false; }
}));
$('back').addEventListener('click', () => { clearInterval(polling); show('choose'); });
$('cancel').addEventListener('click', async () => {
  if (!confirm(T.confirmCancel)) return;
  try { await post('/cancel'); location.assign(s.cancelUrl); } catch (e) { alert(e.message); }
});
})();`;

/**
 * Saving the method (docs/guides/checkout-sessions.md, Saving the payment method): `optional` shows an
 * unticked consent box for the savable methods, `required` a notice (only savable methods are offered).
 */
function saveChoice(view: HostedPageView): string {
  const M = messages(view.lang).checkout;
  if (view.savePaymentMethod === 'required')
    return `<p class="save-notice" id="save-notice">${esc(M.saveRequired(view.merchantName))}</p>`;
  if (view.savePaymentMethod !== 'optional' || !view.methods.some((m) => m.savable)) return '';
  return (
    `<label class="save" for="save-method"><input type="checkbox" id="save-method" name="savePaymentMethod">` +
    `<span>${esc(M.saveForFuture)}<small>${esc(M.saveForFutureHint)}</small></span></label>`
  );
}

/** Headers of every hosted page: never cached, scripts and styles inline only, no framing, no referrer. */
export const hostedPageHeaders: Record<string, string> = {
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; img-src data: https:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; " +
    "connect-src 'self'; form-action 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
};

/** The page a browser gets instead of the envelope when a hosted page fails; a page may word a status its own way. */
export function renderErrorPage(
  status: number,
  lang: Language = 'en',
  titles: Partial<Record<number, string>> = {},
): string {
  const E = messages(lang).errors;
  const title =
    titles[status] ?? (status === 404 ? E.notFound : status === 410 ? E.gone : status === 429 ? E.tooMany : E.generic);
  return (
    `<!doctype html><html lang="${lang}"><meta charset="utf-8">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${esc(title)}</title><body style="font:16px system-ui;text-align:center;padding:48px 16px">` +
    `<h1 style="font-size:1.2rem">${esc(title)}</h1></body></html>`
  );
}
