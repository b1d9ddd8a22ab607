// The layer table (docs/architecture.md, Layers) over every value import of src/, schema/, rest-compat/,
// jobs/ and app/ (static, side-effect, re-export and dynamic; `import type` erases at run time): a folder
// imports only the folders before it, so no two folders import each other, directly or around a loop.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

/**
 * Low to high. A folder may import the folders of the rows below it and those before it in its own
 * row, nothing after it. `src/modules/<x>` is `modules/<x>`; `modules` is the compositions beside them
 * (src/modules/state-machines.ts, src/modules/reactions.ts); other src folders by name; `schema`,
 * `rest-compat`, `jobs` and `app` (the composition root: the HTTP app, the CLI's entry, the process
 * run) are the top folders. Printed in docs/architecture.md, Layers.
 */
const layers: [string, string[]][] = [
  ['generated', ['generated']],
  ['core', ['core']],
  ['platform', ['providers', 'graphql', 'client', 'auth']],
  [
    'foundation',
    [
      'modules/templates',
      'modules/documents',
      'modules/adapters',
      'modules/dunning-policies',
      'modules/plans',
      'modules/api-keys',
      'modules/members',
      'modules/audit-log',
      'modules/events',
      'modules/webhooks',
      'modules/customers',
    ],
  ],
  ['usage records', ['modules/meters', 'modules/usage-events']],
  [
    'money records',
    [
      'modules/ledger',
      'modules/payments',
      'modules/refunds',
      'modules/receipts',
      'modules/customer-balances',
      'modules/payment-methods',
      'modules/payouts',
    ],
  ],
  ['reconciliation', ['modules/reconciliation']],
  ['billing documents', ['modules/coupons', 'modules/discounts', 'modules/invoices', 'modules/credit-notes']],
  ['collection', ['modules/collection']],
  ['subscriptions', ['modules/subscriptions', 'modules/usage-records', 'modules/test-clocks', 'modules/usage-rollups']],
  [
    'sessions and tenants',
    ['modules/setup-sessions', 'modules/checkout-sessions', 'modules/portal-sessions', 'modules/workspaces'],
  ],
  ['pages and compositions', ['hosted', 'modules', 'schema']],
  ['transports and processes', ['dashboard', 'server', 'rest-compat', 'jobs', 'cli']],
  ['composition root', ['app']],
];

const scanned = ['src', 'schema', 'rest-compat', 'jobs', 'app'];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'generated' || e.name === 'node_modules' ? [] : filesUnder(p);
    return /\.(ts|tsx)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** The folder a file belongs to, as the table names it; null outside the scanned folders. */
function unitOf(file: string): string | null {
  const parts = relative(root, file).split(sep);
  if (parts[0] === 'src') {
    if (parts.length === 2) return '(src root)';
    if (parts[1] === 'modules') return parts.length > 3 ? `modules/${parts[2]}` : 'modules';
    return parts[1];
  }
  return scanned.includes(parts[0]) ? parts[0] : null;
}

const importRe =
  /^\s*(?:import|export)\s+(type\s+)?([^'"]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** The value imports of a file's text (relative ones, resolved): static, side-effect, re-exports, dynamic. */
function valueImports(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(importRe)) {
    const spec = m[3] ?? m[4];
    if (!spec.startsWith('.')) continue;
    if (m[1]) continue;
    // `import { type A, type B } from` erases too; one name without `type` keeps it.
    const names = m[2]?.match(/^\{([^}]*)\}\s*from\s+$/)?.[1];
    if (names?.trim() && names.split(',').every((n) => !n.trim() || /^type\s/.test(n.trim()))) continue;
    out.push(resolve(dirname(file), spec));
  }
  return out;
}

const rank = new Map(layers.flatMap(([, units]) => units).map((u, i) => [u, i]));

interface Violation {
  edge: string;
  why: string;
}

/** Every import of `files` the table refuses, and the folder graph of the allowed ones. */
function check(files: { path: string; text: string }[]) {
  const violations: Violation[] = [];
  const graph = new Map<string, Set<string>>();
  for (const { path, text } of files) {
    const from = unitOf(path);
    if (!from) continue;
    for (const target of valueImports(path, text)) {
      const to = unitOf(target);
      if (!to || to === from) continue;
      const edge = `${relative(root, path)} -> ${relative(root, target)}`;
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from)!.add(to);
      const [a, b] = [rank.get(from), rank.get(to)];
      if (a === undefined) violations.push({ edge, why: `${from} is in no row of the layer table` });
      else if (b === undefined) violations.push({ edge, why: `${to} is in no row of the layer table` });
      else if (b >= a) violations.push({ edge, why: `${from} may not import ${to} (it is not below)` });
    }
  }
  return { violations, graph };
}

/** Folders locked in cycles (strongly connected components of more than one folder). */
function cyclesOf(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const on = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  const nodes = new Set([...graph.keys(), ...[...graph.values()].flatMap((s) => [...s])]);
  const strong = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) out.push(c.sort());
    }
  };
  for (const v of nodes) if (!idx.has(v)) strong(v);
  return out;
}

const tree = () =>
  scanned.flatMap((d) => filesUnder(join(root, d))).map((path) => ({ path, text: readFileSync(path, 'utf8') }));

describe('layers', () => {
  it('reads value imports and refuses an upward one (self-check)', () => {
    const f = join(root, 'src/modules/payments/x.ts');
    const text = [
      "import { a } from '../invoices/issue.ts';",
      "import type { T } from '../subscriptions/moves.ts';",
      "import { type U } from '../subscriptions/states.ts';",
      "import '../checkout-sessions/reactions.ts';",
      "export { b } from '../ledger/schema.ts';",
      "const c = await import('../../server/http.ts');",
      "import { d } from '../../../rest-compat/plugin.ts';",
    ].join('\n');
    expect(valueImports(f, text).map((p) => relative(root, p))).toEqual([
      'src/modules/invoices/issue.ts',
      'src/modules/checkout-sessions/reactions.ts',
      'src/modules/ledger/schema.ts',
      'src/server/http.ts',
      'rest-compat/plugin.ts',
    ]);
    const { violations, graph } = check([
      { path: f, text },
      { path: join(root, 'src/modules/invoices/y.ts'), text: "import '../payments/z.ts';" },
    ]);
    expect(violations.map((v) => v.edge.split(' -> ')[1])).toEqual([
      'src/modules/invoices/issue.ts',
      'src/modules/checkout-sessions/reactions.ts',
      'src/server/http.ts',
      'rest-compat/plugin.ts',
    ]);
    expect(cyclesOf(graph)).toEqual([['modules/invoices', 'modules/payments']]);
  });

  it('every import of src/, schema/, rest-compat/, jobs/ and app/ goes down the table', () => {
    expect(check(tree()).violations.map((v) => `${v.edge}: ${v.why}`)).toEqual([]);
  });

  it('no folder imports itself back through others (no cycles)', () => {
    expect(cyclesOf(check(tree()).graph)).toEqual([]);
  });

  it('nothing in src/ imports a folder outside it (the composition root is app/)', () => {
    const out = tree()
      .filter((f) => relative(root, f.path).startsWith(`src${sep}`))
      .flatMap((f) => valueImports(f.path, f.text).map((t) => `${relative(root, f.path)} -> ${relative(root, t)}`))
      .filter((e) => !e.split(' -> ')[1].startsWith(`src${sep}`));
    expect(out).toEqual([]);
  });

  it('docs/architecture.md prints this table', () => {
    const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
    for (const [name, units] of layers) expect(doc).toContain(`| ${name} | ${units.join(', ')} |`);
  });
});
