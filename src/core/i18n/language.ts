/**
 * Which language a customer reads: one rule, one function (docs/decisions.md, Customer language).
 * explicit choice (`?lang=`, the page's switch) > the remembered choice (cookie) > the browser's
 * Accept-Language > the customer's stored language > the workspace's default language.
 * Emails and PDFs have no browser: the same function with only the last two.
 */
import type { Language } from './index.ts';

const supported: readonly Language[] = ['id', 'en'];
const isSupported = (s: string | null | undefined): s is Language => s === 'id' || s === 'en';

/** Longer headers are cut: browsers send a few dozen characters; this bounds the work per request. */
export const MAX_ACCEPT_LANGUAGE = 256;
/** And so many ranges at most are read. */
const MAX_RANGES = 16;

/**
 * The best supported language of an Accept-Language header (RFC 9110 §12.5.4): ranges by q-value,
 * ties in header order; `id-ID` matches `id`; `*` is no preference (but after `id;q=0` it is `en`); q=0 refuses. Null when
 * nothing matches (or the header is absent or unreadable): the next rule decides.
 */
export function negotiateLanguage(header: string | null | undefined): Language | null {
  if (!header) return null;
  const ranges: { lang: string; q: number; order: number }[] = [];
  const parts = header.slice(0, MAX_ACCEPT_LANGUAGE).split(',', MAX_RANGES);
  for (const [order, part] of parts.entries()) {
    const [tag, ...params] = part.trim().split(';');
    const lang = tag.trim().toLowerCase();
    if (!/^(?:[a-z]{1,8}(?:-[a-z0-9]{1,8})*|\*)$/.test(lang)) continue;
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(p);
      if (m) q = Math.min(1, Number(m[1]));
      else if (/^\s*q\s*=/i.test(p)) q = -1; // a malformed weight: the range is ignored
    }
    if (q >= 0) ranges.push({ lang, q, order });
  }
  ranges.sort((a, b) => b.q - a.q || a.order - b.order);
  // A language refused with q=0 (bare: `en;q=0`, not `en-US;q=0`) is not picked by another of its ranges or `*`.
  const refused = new Set(ranges.filter((r) => r.q === 0 && !r.lang.includes('-')).map((r) => r.lang));
  for (const r of ranges) {
    if (r.q === 0) break;
    // `*` alone states no preference (fetch clients send it): the next rule decides. After a refusal it
    // names what is left.
    if (r.lang === '*') return refused.size ? (supported.find((l) => !refused.has(l)) ?? null) : null;
    const primary = r.lang.split('-')[0];
    if (isSupported(primary) && !refused.has(primary)) return primary;
    // Indonesian's old code (ISO 639 before 1989), still sent by some Android and Java stacks.
    if (primary === 'in' && !refused.has('id')) return 'id';
  }
  return null;
}

/** The workspace's default language: Indonesian for a rupiah workspace, else English. */
export const workspaceLanguage = (defaultCurrency: string): Language => (defaultCurrency === 'IDR' ? 'id' : 'en');

export interface LanguageInputs {
  /** `?lang=` of this request (the switch's links). */
  explicit?: string | null;
  /** The choice remembered from an earlier switch (the `svc_lang` cookie). */
  remembered?: string | null;
  acceptLanguage?: string | null;
  /** The customer's stored language, where the model has one (today none: docs/decisions.md). */
  customer?: string | null;
  workspace: Language;
}

/** The one rule (see the file's comment). `source` says which input decided (logs and tests). */
export function chooseLanguage(input: LanguageInputs): { lang: Language; source: keyof LanguageInputs } {
  if (isSupported(input.explicit)) return { lang: input.explicit, source: 'explicit' };
  if (isSupported(input.remembered)) return { lang: input.remembered, source: 'remembered' };
  const browser = negotiateLanguage(input.acceptLanguage);
  if (browser) return { lang: browser, source: 'acceptLanguage' };
  if (isSupported(input.customer)) return { lang: input.customer, source: 'customer' };
  return { lang: input.workspace, source: 'workspace' };
}
