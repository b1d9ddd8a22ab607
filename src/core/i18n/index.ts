/**
 * The one message catalog of every customer-facing surface (docs/decisions.md, Customer language):
 * `id` and `en`, typed so a missing or extra key in either fails tsc. The rule that picks a
 * language lives in language.ts.
 */
import { en } from './en.ts';
import { id } from './id.ts';

export type Messages = typeof en;
export const languages = ['id', 'en'] as const;
export type Language = (typeof languages)[number];

const catalogs: Record<Language, Messages> = { id, en };

/** The catalog of a language (one of `languages`). */
export const messages = (lang: Language): Messages => catalogs[lang];

/** BCP 47 locale for dates and numbers in a language. */
export const localeOf = (lang: Language): string => (lang === 'id' ? 'id-ID' : 'en-US');

export const isLanguage = (s: unknown): s is Language => s === 'id' || s === 'en';

export { chooseLanguage, negotiateLanguage, workspaceLanguage } from './language.ts';
