/**
 * Finds statuses and event types written by hand (docs/architecture.md, State machines): every
 * string a machine owns (a status of any machine, an event type any move or edit emits) must be read
 * from the machine (its moves, `statusesWhere`, the constants its states.ts exports), never spelled
 * as a literal. The TypeScript parser reads each file, so every place a word can hide is seen: string
 * and template literals (comparisons, `case`, constants, arrays, call arguments, object values,
 * literal types) and the quoted words inside any string or template text (SQL `status = 'x'`,
 * `IN ('x', 'y')`, a page's inline script).
 *
 * Not a literal status, by what the syntax says it is:
 * - the machine's table itself: the argument of `defineMachine(...)` in a states.ts;
 * - a name, not a value: an object or type member's key, a `Pick`/`Omit` key, the left side of `in`,
 *   a `class` attribute;
 * - a trigger (or a provider outcome) given to the machine's functions (`nextState(m, from, 'void')`)
 *   or held in a variable of a trigger type (`const t: InvoiceTrigger = ...`): the compiler checks it
 *   against the machine's moves;
 * - an EventEmitter's own event (`.on('error', ...)`);
 * - a word of a vocabulary the file declares (a literal union or `as const` list holding a word no
 *   machine has: a signed URL's `'expired' | 'invalid'`).
 * Not scanned: generated code, and src/providers/ (a provider's wire vocabulary, mapped to the
 * machines by their `outcomes`). A word that is another vocabulary's is in `ALLOWED`, file by file.
 */
import ts from 'typescript';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Machine } from '../../src/core/state-machine.ts';

export const ROOT = join(import.meta.dirname, '..', '..');
export const SCANNED = ['src', 'jobs', 'rest-compat', 'app', 'schema'];
const SKIPPED = ['src/providers/'];

/**
 * Words that coincide with a status in a vocabulary of their own, per file (keep it short: a status
 * the code means is read from its machine instead).
 */
export const ALLOWED: Record<string, { words: string[]; why: string }> = {
  'src/core/pagination.ts': { words: ['expired'], why: "a cursor's rejection reason" },
  'src/core/metrics.ts': { words: ['error'], why: "a metric's label value (a request's outcome)" },
  'app/server.ts': { words: ['ready'], why: "the readiness probe's answer" },
  'src/server/metrics.ts': { words: ['active'], why: "pg-boss's own job states, read from its table" },
  'rest-compat/openapi/responses.ts': {
    words: ['error'],
    why: "the REST envelope's member name (a JSON schema's `required`)",
  },
  'src/hosted/setup-page.ts': { words: ['error'], why: "an element's id in the page's script (`$('error')`)" },
  'src/dashboard/app/i18n.ts': { words: ['archived'], why: 'a label key of the dashboard (an archived plan)' },
  'src/modules/plans/service.ts': { words: ['active'], why: "the plan's `active` field, named in a validation error" },
  'src/modules/plans/validate.ts': { words: ['active'], why: "the plan's `active` field, named in a validation error" },
  // The sandbox answers as a provider does (test scenarios), so its words are a provider's (src/providers/).
  'src/modules/payment-methods/scenarios.ts': {
    words: ['succeeded', 'requires_action', 'pending'],
    why: "the sandbox's charge answers",
  },
  'src/modules/payment-methods/sandbox.ts': {
    words: ['revoked', 'requires_action'],
    why: "the sandbox's scenario names",
  },
  // Below the machine's module in the layer table (test/layers.test.ts), so they cannot import it.
  'src/auth/session.ts': { words: ['joined'], why: 'a session is valid for a joined member (below modules/members)' },
  'src/modules/api-keys/service.ts': { words: ['removed'], why: "a removed member's keys (below modules/members)" },
  'src/modules/invoices/documents.ts': {
    words: ['issued'],
    why: "an invoice's issued credit notes (before modules/credit-notes)",
  },
  'src/modules/dunning-policies/service.ts': {
    words: ['uncollectible', 'void'],
    why: "the API's `finalAction`, invoice statuses (below modules/invoices; the test checks them against its machine)",
  },
  'src/modules/receipts/issue.ts': {
    words: ['completed', 'paid'],
    why: 'a receipt records how its source ended (below modules/checkout-sessions and modules/invoices)',
  },
};

/** Functions of src/core/state-machine.ts and the argument index from which their arguments are triggers or outcomes. */
const TRIGGER_ARGS: Record<string, number> = {
  nextState: 2,
  canMove: 2,
  editState: 2,
  statusesWhere: 1,
  outcomeTrigger: 1,
  // The modules' moves of a row by a trigger of its machine.
  moveInvoice: 3,
  moveSubscription: 3,
  moveMethod: 3,
};
const LISTENERS = new Set(['on', 'once', 'off', 'addListener', 'removeListener', 'prependListener']);

export interface Vocabulary {
  statuses: Set<string>;
  events: Set<string>;
}

export const vocabularyOf = (machines: readonly Machine[]): Vocabulary => ({
  statuses: new Set(machines.flatMap((m) => m.statuses)),
  events: new Set(
    machines.flatMap((m) => [
      ...Object.values(m.moves).flatMap((mv) => mv.events ?? []),
      ...Object.values(m.edits ?? {}).flatMap((e) => e.events),
    ]),
  ),
});

export function scannedFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) return name === 'generated' ? [] : walk(p);
      return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [p] : [];
    });
  return SCANNED.flatMap((d) => walk(join(ROOT, d)))
    .map((p) => relative(ROOT, p))
    .filter((rel) => !SKIPPED.some((s) => rel.startsWith(s)));
}

const calleeName = (e: ts.Expression) =>
  ts.isIdentifier(e) ? e.text : ts.isPropertyAccessExpression(e) ? e.name.text : undefined;

/** Whether a literal type names keys: a type argument of `Pick` or `Omit` (through a union of them). */
function keysOf(t: ts.Node): boolean {
  let a = t.parent;
  while (ts.isUnionTypeNode(a)) a = a.parent;
  return ts.isTypeReferenceNode(a) && ['Pick', 'Omit'].includes(a.typeName.getText()) && a.typeArguments?.[0] !== t;
}

/** Whether the literal `n` stands for something other than a value a status could be (see the header). */
function exempt(n: ts.Node, table: boolean): boolean {
  let p = n.parent;
  if (ts.isImportDeclaration(p) || ts.isExportDeclaration(p) || ts.isExternalModuleReference(p)) return true;
  if ((ts.isPropertyAssignment(p) || ts.isPropertySignature(p) || ts.isPropertyDeclaration(p)) && p.name === n)
    return true;
  if (ts.isLiteralTypeNode(p) && keysOf(p)) return true;
  if (ts.isBinaryExpression(p) && p.operatorToken.kind === ts.SyntaxKind.InKeyword && p.left === n) return true;
  if (ts.isJsxAttribute(p) && ['class', 'className'].includes(p.name.getText())) return true;
  // A value chosen between words (`a ? 'void' : 'mark_uncollectible'`) is where the choice goes.
  let value: ts.Node = n;
  while (ts.isConditionalExpression(p) || ts.isParenthesizedExpression(p) || ts.isAsExpression(p)) {
    if (ts.isConditionalExpression(p) && p.condition === value) break;
    value = p;
    p = p.parent;
  }
  if (ts.isVariableDeclaration(p) && p.initializer === value && p.type && /Trigger\b/.test(p.type.getText()))
    return true;
  if (ts.isCallExpression(p)) {
    const name = calleeName(p.expression);
    const at = p.arguments.indexOf(value as ts.Expression);
    if (name && name in TRIGGER_ARGS && at >= TRIGGER_ARGS[name]) return true;
    if (name && ts.isPropertyAccessExpression(p.expression) && LISTENERS.has(name) && at === 0) return true;
  }
  if (table) {
    for (let a: ts.Node | undefined = p; a; a = a.parent)
      if (ts.isCallExpression(a) && calleeName(a.expression) === 'defineMachine') return true;
  }
  return false;
}

/**
 * The words of the vocabularies a file declares itself: a literal union type (`'declined' | 'expired'`)
 * or an `as const` list with a word no machine owns is another vocabulary that shares some words.
 */
function ownVocabulary(file: ts.SourceFile, owned: (w: string) => string | null): string[] {
  const out: string[] = [];
  const add = (members: (string | undefined)[]) => {
    const words = members.filter((w) => w !== undefined);
    if (words.some((w) => !owned(w))) out.push(...words);
  };
  const visit = (n: ts.Node): void => {
    if (ts.isUnionTypeNode(n))
      add(n.types.map((t) => (ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal) ? t.literal.text : undefined)));
    if (ts.isAsExpression(n) && n.type.getText() === 'const' && ts.isArrayLiteralExpression(n.expression))
      add(n.expression.elements.map((e) => (ts.isStringLiteral(e) ? e.text : undefined)));
    ts.forEachChild(n, visit);
  };
  visit(file);
  return out;
}

/** The hand-written statuses and event types of one file (`rel`: its path from the root), as `path:line what`. */
export function literalFindings(rel: string, text: string, v: Vocabulary): string[] {
  const kind = rel.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const file = ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true, kind);
  const owned = (w: string) => (v.statuses.has(w) ? 'status' : v.events.has(w) ? 'event' : null);
  const allowed = new Set([...(ALLOWED[rel]?.words ?? []), ...ownVocabulary(file, owned)]);
  const table = rel.endsWith('/states.ts');
  const out: string[] = [];
  const report = (n: ts.Node, what: string, word: string) => {
    if (allowed.has(word)) return;
    out.push(`${rel}:${file.getLineAndCharacterOfPosition(n.getStart()).line + 1} ${what} '${word}'`);
  };
  const visit = (n: ts.Node): void => {
    const isText =
      ts.isStringLiteral(n) ||
      ts.isNoSubstitutionTemplateLiteral(n) ||
      ts.isTemplateHead(n) ||
      ts.isTemplateMiddle(n) ||
      ts.isTemplateTail(n);
    if (isText && !exempt(n, table)) {
      const whole = owned(n.text);
      if (whole && (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n))) report(n, whole, n.text);
      // Quoted inside the text: SQL (`status = 'x'`, `IN ('x', 'y')`) or an inline script's comparison.
      for (const m of n.text.matchAll(/'([a-z][a-z0-9_.]*)'|(?:[=!]=|case)\s*"([a-z][a-z0-9_.]*)"/g)) {
        const word = m[1] ?? m[2];
        const what = owned(word);
        if (what) report(n, `${what} in text`, word);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(file);
  return out;
}

/** Every finding in the tree. */
export const treeFindings = (v: Vocabulary) =>
  scannedFiles().flatMap((rel) => literalFindings(rel, readFileSync(join(ROOT, rel), 'utf8'), v));
