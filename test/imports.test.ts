// Meta-tests over the import graph of src/ (read from the source text, no package): the layers
// point one way (modules and core never reach into the HTTP server), and no module imports
// itself back through another (a cycle loads one side half-initialised).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const src = join(root, 'src');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'generated' ? [] : filesUnder(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

// Static imports and re-exports (type-only ones erase at run time: they cannot form a cycle), and dynamic import().
const importRe =
  /^\s*(?:import|export)\s+(type\s+)?(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** The relative imports of a file, resolved to paths; `runtime`: without type-only ones. */
function importsOf(file: string, text = readFileSync(file, 'utf8')): { path: string; typeOnly: boolean }[] {
  const out: { path: string; typeOnly: boolean }[] = [];
  for (const m of text.matchAll(importRe)) {
    const spec = m[2] ?? m[3];
    if (!spec.startsWith('.')) continue;
    out.push({ path: resolve(dirname(file), spec), typeOnly: !!m[1] });
  }
  return out;
}

/** Every cycle of the graph, each as the list of files that form it (depth-first search, one report per back edge). */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push(stack.slice(stack.indexOf(next)).concat(next));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

const files = filesUnder(src);
const rel = (p: string) => relative(root, p);

describe('the import graph of src/', () => {
  it('finds imports, including re-exports and dynamic ones (self-check)', () => {
    const f = join(src, 'modules/x/a.ts');
    const found = importsOf(
      f,
      `import { a } from './b.ts';\nimport type { T } from '../../server/c.ts';\nexport { d } from './d.ts';\nconst e = await import('./e.ts');\nimport 'node:fs';`,
    );
    expect(found.map((i) => [rel(i.path), i.typeOnly])).toEqual([
      ['src/modules/x/b.ts', false],
      ['src/server/c.ts', true],
      ['src/modules/x/d.ts', false],
      ['src/modules/x/e.ts', false],
    ]);
    expect(
      cyclesOf(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b', 'c', 'a']]);
  });

  it('src/modules and src/core never import src/server (type imports included)', () => {
    const server = `${join(src, 'server')}/`;
    const offending = files
      .filter((f) => f.startsWith(`${join(src, 'modules')}/`) || f.startsWith(`${join(src, 'core')}/`))
      .flatMap((f) =>
        importsOf(f)
          .filter((i) => i.path.startsWith(server))
          .map((i) => `${rel(f)} -> ${rel(i.path)}`),
      );
    expect(offending).toEqual([]);
  });

  it('has no import cycles', () => {
    const graph = new Map(
      files.map((f) => [
        f,
        importsOf(f)
          .filter((i) => !i.typeOnly)
          .map((i) => i.path),
      ]),
    );
    expect(cyclesOf(graph).map((c) => c.map(rel).join(' -> '))).toEqual([]);
  });
});
