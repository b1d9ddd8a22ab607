// The one rule that picks a customer's language (src/core/i18n/language.ts) and Accept-Language
// negotiation: q-values, regional tags, unknown languages, refusals, malformed and oversized headers.
import { describe, expect, it } from 'vitest';
import { chooseLanguage, negotiateLanguage, workspaceLanguage } from '../../../src/core/i18n/index.ts';
import { MAX_ACCEPT_LANGUAGE } from '../../../src/core/i18n/language.ts';

describe('negotiateLanguage', () => {
  it.each([
    ['id', 'id'],
    ['en', 'en'],
    ['id-ID', 'id'],
    ['en-GB,en;q=0.9', 'en'],
    ['ID-id', 'id'],
    ['in-ID', 'id'],
    // q-values order the ranges, whatever their position.
    ['en;q=0.5, id;q=0.8', 'id'],
    ['id;q=0.1, en', 'en'],
    ['fr-FR,fr;q=0.9,en-US;q=0.8,en;q=0.7,id;q=0.6', 'en'],
    ['fr-FR,fr;q=0.9,id;q=0.8,en;q=0.7', 'id'],
    // Equal weights: header order.
    ['en;q=0.7, id;q=0.7', 'en'],
    ['id;q=0.7, en;q=0.7', 'id'],
    // Unknown languages only: nothing (the next rule decides).
    ['fr', null],
    ['de-DE, ja;q=0.5', null],
    // `*` alone is no preference (undici's fetch sends it); after a refusal, what is left.
    ['*', null],
    ['fr, *;q=0.5', null],
    ['id;q=0, *', 'en'],
    ['en;q=0, *', 'id'],
    // q=0 refuses.
    ['id;q=0', null],
    ['en;q=0, id;q=0', null],
    ['en-US;q=0, en;q=0.5', 'en'],
  ])('%j -> %j', (header, want) => {
    expect(negotiateLanguage(header)).toBe(want);
  });

  it.each([
    [undefined],
    [null],
    [''],
    [',,,;;;'],
    ['q=1'],
    ['en;q=abc'],
    ['en;q=2'],
    ['<script>'],
    ['e n'],
    ['toolonglanguagetag'],
  ])('malformed %j: nothing, no throw', (header) => {
    expect(negotiateLanguage(header)).toBeNull();
  });

  it('a malformed range is skipped, the rest still count', () => {
    expect(negotiateLanguage('en;q=abc, id;q=0.4')).toBe('id');
    expect(negotiateLanguage('??, en')).toBe('en');
  });

  it('reads a bounded prefix of a huge header, in bounded time', () => {
    const junk = 'xx;q=0.1,'.repeat(100_000);
    const started = performance.now();
    expect(negotiateLanguage(`${junk}id`)).toBeNull();
    expect(negotiateLanguage(`id,${junk}`)).toBe('id');
    // Past the bound: not read.
    expect(negotiateLanguage(`${' '.repeat(MAX_ACCEPT_LANGUAGE)}id`)).toBeNull();
    expect(performance.now() - started).toBeLessThan(50);
  });
});

describe('chooseLanguage', () => {
  it('explicit > remembered > browser > customer > workspace', () => {
    const all = { explicit: 'en', remembered: 'id', acceptLanguage: 'id', customer: 'id', workspace: 'id' as const };
    expect(chooseLanguage(all)).toEqual({ lang: 'en', source: 'explicit' });
    expect(chooseLanguage({ ...all, explicit: null, remembered: 'en' })).toEqual({ lang: 'en', source: 'remembered' });
    expect(chooseLanguage({ ...all, explicit: null, remembered: null, acceptLanguage: 'en-US' })).toEqual({
      lang: 'en',
      source: 'acceptLanguage',
    });
    expect(chooseLanguage({ acceptLanguage: 'fr', customer: 'en', workspace: 'id' })).toEqual({
      lang: 'en',
      source: 'customer',
    });
    expect(chooseLanguage({ acceptLanguage: 'fr', workspace: 'id' })).toEqual({ lang: 'id', source: 'workspace' });
    expect(chooseLanguage({ workspace: 'en' })).toEqual({ lang: 'en', source: 'workspace' });
  });

  it('an unsupported explicit or remembered value is ignored, not trusted', () => {
    expect(chooseLanguage({ explicit: 'fr', remembered: '<x>', acceptLanguage: 'id', workspace: 'en' }).lang).toBe(
      'id',
    );
  });

  it("the workspace's default: Indonesian for rupiah", () => {
    expect(workspaceLanguage('IDR')).toBe('id');
    expect(workspaceLanguage('USD')).toBe('en');
  });
});
