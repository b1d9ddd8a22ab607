// A rule over the whole tree: every status and event of a resource that has a state machine comes
// from its table (src/modules/<module>/states.ts, applied with nextState or editState), never from a
// literal beside it: a literal event type, a status written as a literal, or a hand-written status list.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Machine } from '../src/core/state-machine.ts';

const ROOT = join(import.meta.dirname, '..');
const SRC = join(ROOT, 'src');
// Catalogs that name event types as data (the event list, the CLI's trigger table) and provider
// adapters (the provider's own words, mapped by a machine's `outcomes`) are not writers.
const SKIP = ['src/generated/', 'src/core/event-types.ts', 'src/cli/', 'src/providers/'];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const isMachine = (v: unknown): v is Machine =>
  !!v && typeof v === 'object' && 'statuses' in v && 'moves' in v && 'stored' in v;

async function machines() {
  const byModule = new Map<string, Machine[]>();
  for (const module of readdirSync(join(SRC, 'modules'))) {
    const file = join(SRC, 'modules', module, 'states.ts');
    try {
      statSync(file);
    } catch {
      continue;
    }
    byModule.set(module, Object.values(await import(file)).filter(isMachine));
  }
  return byModule;
}

type Finding = string;

/** The Prisma delegate of a table: `checkout_sessions` -> `checkoutSession`. */
const delegate = (table: string) => table.replace(/s$/, '').replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * The literals of `text` (file `rel`) that bypass a machine: event types anywhere, and statuses of the
 * machines the file belongs to or writes. In a machine's own file only hand-written lists count (the
 * table's own `statuses`, `from` and `in` lists are the machine).
 */
function bypasses(rel: string, text: string, events: Set<string>, statuses: Set<string>, table = false): Finding[] {
  const out: Finding[] = [];
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    const at = `${rel}:${i + 1}`;
    if (/^\s*(\/\/|\*|\/\*)/.test(line)) continue;
    // The table's own lists: `statuses`, a move's `from`, an edit's `in`, and `as const` lists its moves share.
    if (table && (/\b(statuses|from|in|refuses): \[/.test(line) || /as const;$/.test(line))) continue;
    if (table) {
      for (const m of line.matchAll(/\[\s*('[a-z_]+'(?:\s*,\s*'[a-z_]+')+)\s*,?\s*\]/g)) {
        const words = [...m[1].matchAll(/'([a-z_]+)'/g)].map((w) => w[1]);
        if (words.every((w) => statuses.has(w))) out.push(`${at} status list [${words.join(', ')}]`);
      }
      continue;
    }
    for (const m of line.matchAll(/(===|!==|case)?\s*'([a-z_.0-9]+)'/g))
      if (events.has(m[2]) && !m[1]) out.push(`${at} event '${m[2]}'`);
    // A provider's answer ({ status, providerRefundId }) is the provider's word, mapped by `outcomes`.
    for (const m of line.matchAll(/\bstatus(?:: | = )'([a-z_]+)'/g))
      if (statuses.has(m[1]) && !line.includes('providerRefundId')) out.push(`${at} status '${m[1]}'`);
    for (const m of line.matchAll(/\[\s*('[a-z_]+'(?:\s*,\s*'[a-z_]+')+)\s*,?\s*\]/g)) {
      const words = [...m[1].matchAll(/'([a-z_]+)'/g)].map((w) => w[1]);
      if (words.every((w) => statuses.has(w))) out.push(`${at} status list [${words.join(', ')}]`);
    }
  }
  return out;
}

describe('every status and event from its machine', () => {
  it('no literal event type, written status or hand-written status list beside a machine', async () => {
    const byModule = await machines();
    const all = [...byModule.values()].flat();
    const events = new Set(
      all.flatMap((m) => [
        ...Object.values(m.moves).flatMap((mv) => mv.events ?? []),
        ...Object.values(m.edits ?? {}).flatMap((e) => e.events),
      ]),
    );
    expect(events.size).toBeGreaterThan(20);
    const found: Finding[] = [];
    for (const file of files(SRC)) {
      const rel = relative(ROOT, file);
      if (SKIP.some((s) => rel.startsWith(s))) continue;
      const text = readFileSync(file, 'utf8');
      const module = rel.match(/^src\/modules\/([^/]+)\//)?.[1];
      // The file's own module's machines, and those whose table it writes through Prisma (`tx.member.create`).
      const own = (module && byModule.get(module)) || [];
      const written = all.filter((m) => m.stored.some((t) => text.includes(`.${delegate(t.table)}.create(`)));
      const statuses = new Set([...own, ...written].flatMap((m) => m.statuses));
      found.push(...bypasses(rel, text, events, statuses, rel.endsWith('/states.ts')));
    }
    expect(found).toEqual([]);
  });

  it('sees each kind of bypass (probe)', () => {
    const events = new Set(['refund.created']);
    const statuses = new Set(['pending', 'succeeded', 'canceled']);
    const text = [
      "await emit(tx, scope, 'refund.created', wire);",
      "next: { status: 'canceled', canceledAt },",
      "export const reserving = ['pending', 'succeeded'];",
      "if (t === 'refund.created') skip();",
      "{ status: 'succeeded', providerRefundId: null }",
    ].join('\n');
    expect(bypasses('x.ts', text, events, statuses)).toEqual([
      "x.ts:1 event 'refund.created'",
      "x.ts:2 status 'canceled'",
      'x.ts:3 status list [pending, succeeded]',
    ]);
    // In a machine's own file: a derived list is hand-written there too; the table's lists are not.
    const table = ["    create: { from: [null], to: 'pending' },", "  statuses: ['pending', 'succeeded'],"].join('\n');
    expect(bypasses('states.ts', `${table}\n${text}`, events, statuses, true)).toEqual([
      'states.ts:5 status list [pending, succeeded]',
    ]);
  });
});
