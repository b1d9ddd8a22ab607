// Comments cite what a reader of the repository can open (CONTRIBUTING.md): a file under docs/ and, where
// they name one, a section of it (`docs/billing.md, Proration`): a heading, or a paragraph's bold label
// (`**Order.**`). A citation of a guide outside the repository, or of a section renamed or never
// written, fails here.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.ts';

/** Where code and its comments live; the generated client (git-ignored) copies its comments from prisma/schema. */
const roots = ['app', 'src', 'schema', 'jobs', 'rest-compat', 'bench', 'scripts', 'test', 'prisma/schema'];
const skipped = new Set(['src/generated']);
const extensions = /\.(ts|mts|mjs|js|prisma)$/;
const self = relative(ROOT, import.meta.filename);

function* files(dir: string): Generator<string> {
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (!skipped.has(path)) yield* files(path);
    } else if (extensions.test(e.name) && path !== self) yield path;
  }
}
const read = (path: string) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') });
const sources = roots.flatMap((r) => [...files(r)]).map(read);
/** The docs cite each other's sections the same way (README: `docs/decisions.md, Members`). */
const docs = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
].map(read);

/** What points outside the repository: the shared folder, the design guides by name, their "settled points". */
const outside = [/\.\.\/shared\//, /\b(?:BILLING|COLLECTION)\b(?!_)/, /settled points?\b/i];

/** `docs/x.md, Section`, `docs/x.md, "Section"`, `docs/x.md "Section"` or `docs/x.md (Section)`; README likewise. */
const citation =
  /\b(docs\/[\w./-]+\.md|README(?:\.md)?\b)(?:,\s*"([^"]+)"|\s+"([^"]+)"|,\s*(?!docs\/)([A-Za-z][^,;:.()"`*\n]*)|\s+\(([A-Z][^,;:.()"`*\n]*)\))?/g;

/** A comment's lines joined, so a section name broken over two comment lines reads whole. */
const joined = (text: string) => text.replace(/[ \t]*\n[ \t]*(?:\*(?!\/)|\/\/\/?|--)?[ \t]*/g, ' ');

const headings = new Map<string, string[]>();
function headingsOf(doc: string): string[] | undefined {
  if (!headings.has(doc)) {
    const path = join(ROOT, doc);
    if (!existsSync(path)) return undefined;
    const text = readFileSync(path, 'utf8');
    const sections = [
      ...text.matchAll(/^#{1,6}\s+(.+?)\s*$/gm), // headings
      ...text.matchAll(/^\s*(?:[-*]|\d+\.)?\s*\*\*(.+?)\*\*/gm), // bold labels opening a paragraph or an item
    ];
    headings.set(
      doc,
      sections.map((m) => m[1].replaceAll('`', '').toLowerCase()),
    );
  }
  return headings.get(doc);
}

/** Every citation of a docs file in `text`, with the section it names (if any) and whether it resolves. */
function citations(text: string) {
  return [...joined(text).matchAll(citation)].map((m) => {
    const doc = m[1] === 'README' ? 'README.md' : m[1];
    const section = (m[2] ?? m[3] ?? m[4] ?? m[5])?.trim();
    const heads = headingsOf(doc);
    const ok = heads !== undefined && (!section || heads.some((h) => h.startsWith(section.toLowerCase())));
    return { doc, section, ok };
  });
}

describe('citations', () => {
  it('nothing cites a guide outside the repository (move the rule into docs/ and cite it there)', () => {
    const found = sources.flatMap(({ path, text }) =>
      text
        .split('\n')
        .map((line, i) => ({ line, i }))
        .filter(({ line }) => outside.some((re) => re.test(line)))
        .map(({ line, i }) => `${path}:${i + 1}: ${line.trim().slice(0, 120)}`),
    );
    expect(found).toEqual([]);
  });

  it('every cited docs file exists and every cited section is one of its headings', () => {
    const broken = [...sources, ...docs].flatMap(({ path, text }) =>
      citations(text)
        .filter((c) => !c.ok)
        .map((c) => `${path}: ${c.doc}${c.section ? `, ${c.section}` : ''}`),
    );
    expect(broken).toEqual([]);
  });

  it('reads what it checks: the citations are found, and a missing heading or file is caught', () => {
    expect(sources.length).toBeGreaterThan(300);
    expect(sources.flatMap((s) => citations(s.text)).filter((c) => c.section).length).toBeGreaterThan(50);
    const probe = (t: string) => citations(t).map((c) => c.ok);
    expect(probe('// (docs/billing.md, Proration): a higher amount applies now')).toEqual([true]);
    expect(probe('/**\n * the walk (docs/decisions.md, Test\n * clocks). */')).toEqual([true]);
    expect(probe('// docs/decisions.md (Hosted invoice page)')).toEqual([true]);
    expect(probe('// docs/billing.md, Prorations of credit notes')).toEqual([false]);
    expect(probe('// see docs/no-such-file.md')).toEqual([false]);
    expect(probe('// the roles (README, "Database roles")')).toEqual([true]);
    expect(probe('// not ordered (docs/webhooks.md, Order), so')).toEqual([true]);
    expect(probe('wrote docs/scopes.md, docs/events.md and 4 guides')).toEqual([true, true]);
    expect(outside.some((re) => re.test(['// BILLING', '§3.6'].join(' ')))).toBe(true);
    expect(outside.some((re) => re.test('env: { BILLING_AT: at }'))).toBe(false);
  });
});
