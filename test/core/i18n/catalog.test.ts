// The one catalog (src/core/i18n): both languages have the same keys, each leaf the same kind (text, or a
// function of as many arguments), no empty text; tsc checks the shape too, this catches what a cast hides.
import { describe, expect, it } from 'vitest';
import { languages, messages } from '../../../src/core/i18n/index.ts';

type Leaf = { path: string; kind: string };

function leaves(v: unknown, path = ''): Leaf[] {
  if (typeof v === 'function') return [{ path, kind: `fn/${v.length}` }];
  if (Array.isArray(v)) return v.flatMap((x, i) => leaves(x, `${path}[${i}]`));
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => leaves(x, path ? `${path}.${k}` : k));
  return [{ path, kind: typeof v }];
}

const valueAt = (root: unknown, path: string): any =>
  path
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .reduce<any>((o, k) => o[k], root);

describe('message catalogs', () => {
  it('id and en have identical key sets and leaf kinds', () => {
    const [a, b] = languages.map((l) => leaves(messages(l)).sort((x, y) => x.path.localeCompare(y.path)));
    expect(a.map((l) => l.path)).toEqual(b.map((l) => l.path));
    expect(a).toEqual(b);
    expect(a.length).toBeGreaterThan(100);
  });

  it('no text is empty except the method hints that have none, and functions return text', () => {
    for (const lang of languages) {
      for (const { path, kind } of leaves(messages(lang))) {
        const value = valueAt(messages(lang), path);
        if (kind === 'string' && !path.endsWith('bank_transfer.hint')) expect(value, `${lang} ${path}`).not.toBe('');
        if (kind.startsWith('fn/')) {
          const out = value(...Array.from({ length: value.length }, (_, i) => `<arg${i}>`));
          expect(typeof out).toBe('string');
          for (let i = 0; i < value.length; i++) expect(out, `${lang} ${path}`).toContain(`<arg${i}>`);
        }
      }
    }
  });

  it('the two languages differ where they should (a copied catalog would pass the key test)', () => {
    expect(messages('id').checkout.choose).not.toBe(messages('en').checkout.choose);
    expect(messages('id').doc.receipt).toBe('Struk');
    expect(messages('en').doc.receipt).toBe('Receipt');
  });
});

describe('one home for customer texts', () => {
  it('no catalog sentence is written again elsewhere in src/ (a per-surface table came back)', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const src = join(import.meta.dirname, '..', '..', '..', 'src');
    const files = (readdirSync(src, { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts') && !f.startsWith('generated') && !f.startsWith(join('core', 'i18n')))
      .map((f) => ({ f, text: readFileSync(join(src, f), 'utf8') }));
    // Sentences (a space and 12+ characters): single words like "Total" or "QRIS" may be ids or data.
    const sentences = new Set(
      languages.flatMap((l) =>
        leaves(messages(l))
          .filter((x) => x.kind === 'string')
          .map((x) => valueAt(messages(l), x.path) as string),
      ),
    );
    const found = [...sentences]
      .filter((s) => s.length >= 12 && s.includes(' '))
      .flatMap((s) =>
        files.filter(({ text }) => text.includes(`'${s}'`) || text.includes(`"${s}"`)).map(({ f }) => `${f}: ${s}`),
      );
    expect(found).toEqual([]);
  });
});
