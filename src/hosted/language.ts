/**
 * The language of a page a browser opens (docs/decisions.md, Customer language): the one rule
 * (src/core/i18n/language.ts) fed from the request, the headers that say and remember it, and the
 * switch every customer page shows.
 */
import { chooseLanguage, type Language, languages, messages } from '../core/i18n/index.ts';

/** Where an explicit choice is remembered: every hosted page shares it (same origin, path /). */
export const LANG_COOKIE = 'svc_lang';
const ONE_YEAR_S = 365 * 24 * 3600;

export interface PageRequest {
  query(name: string): string | undefined;
  headers: Record<string, string | string[] | undefined>;
}

const header = (req: PageRequest, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(',') : v;
};

/** The remembered choice, if the cookie holds one of ours. */
function rememberedLanguage(req: PageRequest): string | null {
  const m = /(?:^|;\s*)svc_lang=([a-z]{2})(?:;|$)/.exec(header(req, 'cookie') ?? '');
  return m ? m[1] : null;
}

/**
 * The page's language and the headers of its answer: `Content-Language`, `Vary` (a shared cache
 * must key the page by both inputs) and, after an explicit `?lang=`, the cookie that remembers it.
 */
export function pageLanguage(
  req: PageRequest,
  workspace: Language,
  customer?: string | null,
): { lang: Language; headers: Record<string, string> } {
  const { lang, source } = chooseLanguage({
    explicit: req.query('lang'),
    remembered: rememberedLanguage(req),
    acceptLanguage: header(req, 'accept-language'),
    customer,
    workspace,
  });
  const headers: Record<string, string> = { 'content-language': lang, vary: 'Accept-Language, Cookie' };
  if (source === 'explicit')
    headers['set-cookie'] = `${LANG_COOKIE}=${lang}; Path=/; Max-Age=${ONE_YEAR_S}; SameSite=Lax; HttpOnly`;
  return { lang, headers };
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * "Bahasa Indonesia | English": plain links (keyboard reachable, no script) to the same page with
 * `?lang=`; the current one is marked `aria-current`.
 */
export function languageSwitch(lang: Language): string {
  const names = messages(lang).languageNames;
  const links = languages
    .map(
      (l) =>
        `<a href="?lang=${l}" hreflang="${l}" lang="${l}" data-lang="${l}"` +
        `${l === lang ? ' aria-current="true" style="font-weight:600;color:inherit"' : ' style="color:inherit"'}>` +
        `${esc(names[l])}</a>`,
    )
    .join(' <span aria-hidden="true">|</span> ');
  return (
    `<nav class="lang-switch" aria-label="${esc(messages(lang).switchLabel)}" ` +
    `style="text-align:right;font-size:.85rem;margin:0 0 8px">${links}</nav>`
  );
}
