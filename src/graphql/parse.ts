import {
  GraphQLError,
  Kind,
  parse,
  visit,
  type DocumentNode,
  type FragmentDefinitionNode,
  type ParseOptions,
  type SelectionSetNode,
} from 'graphql';
import { DomainError } from '../core/errors.ts';

/**
 * What one GraphQL document may ask for, checked once per distinct document before validation
 * (validation itself is quadratic in aliases of one field) and before anything runs. Every path
 * parses through parseDocument: POST and GET /graphql, the socket, yoga's own fallbacks.
 * docs/security.md lists them; real clients use a small fraction of each.
 */
export const limits = {
  /** UTF-8 bytes of the document: refused before the parser sees it. */
  bytes: 64 * 1024,
  /** Lexical tokens (graphql-js `maxTokens`): bounds the parser's work and the AST's size. */
  tokens: 5000,
  /** Brackets of any kind: graphql-js parses recursively, deeper documents overflowed its stack. */
  nesting: 64,
  /** Selection sets within selection sets, through fragments (the introspection query needs 13). */
  depth: 15,
  /** Aliased fields, counted as executed (a fragment spread twice counts twice). */
  aliases: 30,
  /** Root fields of one operation: each is its own tenant transaction, and costs a rate-limit token. */
  rootFields: 20,
  /** Fields selected, counted as executed: the document's cost. */
  fields: 1000,
};
/** Kept for callers and messages that name the nesting limit. */
export const MAX_NESTING = limits.nesting;

const tooComplex = (message: string) => new DomainError('validation_error', message, { field: 'query' });

/** `parse` behind every limit above; also refuses string literals PostgreSQL cannot store. */
export function parseDocument(source: string, options?: ParseOptions): DocumentNode {
  const bytes = Buffer.byteLength(source, 'utf8');
  if (bytes > limits.bytes)
    throw new DomainError('payload_too_large', `The document is ${bytes} bytes; at most ${limits.bytes} are accepted`, {
      field: 'query',
    });
  if (nestingDepth(source) > limits.nesting) {
    throw new GraphQLError(`Syntax Error: the document nests deeper than ${limits.nesting} levels.`, {
      extensions: { code: 'GRAPHQL_PARSE_FAILED' },
    });
  }
  const document = parse(source, { ...options, maxTokens: limits.tokens });
  assertWithinLimits(document);
  if (source.includes('\\u')) assertStorableLiterals(document);
  return document;
}

interface Measure {
  depth: number;
  aliases: number;
  fields: number;
  roots: number;
}

/** Depth, aliases, fields and root fields of every operation, fragments expanded (memoized, so cheap). */
export function assertWithinLimits(document: DocumentNode) {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const memo = new Map<string, Measure>();
  const visiting = new Set<string>();
  const zero: Measure = { depth: 0, aliases: 0, fields: 0, roots: 0 };

  const measure = (set: SelectionSetNode): Measure => {
    const m = { ...zero };
    for (const s of set.selections) {
      let inner: Measure;
      if (s.kind === Kind.FIELD) {
        const sub = s.selectionSet ? measure(s.selectionSet) : zero;
        inner = { depth: sub.depth + 1, aliases: sub.aliases + (s.alias ? 1 : 0), fields: sub.fields + 1, roots: 1 };
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        inner = measure(s.selectionSet);
      } else {
        const name = s.name.value;
        const fragment = fragments.get(name);
        // Unknown and cyclic fragments count nothing here: validation refuses them next.
        if (!fragment || visiting.has(name)) continue;
        let known = memo.get(name);
        if (!known) {
          visiting.add(name);
          known = measure(fragment.selectionSet);
          visiting.delete(name);
          memo.set(name, known);
        }
        inner = known;
      }
      m.depth = Math.max(m.depth, inner.depth);
      m.aliases += inner.aliases;
      m.fields += inner.fields;
      m.roots += inner.roots;
    }
    return m;
  };

  for (const d of document.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION) continue;
    const m = measure(d.selectionSet);
    if (m.roots > limits.rootFields)
      throw tooComplex(`The operation selects ${m.roots} root fields; at most ${limits.rootFields} are allowed`);
    if (m.aliases > limits.aliases)
      throw tooComplex(`The operation uses ${m.aliases} aliases; at most ${limits.aliases} are allowed`);
    if (m.depth > limits.depth)
      throw tooComplex(`The operation nests selections ${m.depth} deep; at most ${limits.depth} are allowed`);
    if (m.fields > limits.fields)
      throw tooComplex(`The operation selects ${m.fields} fields; at most ${limits.fields} are allowed`);
  }
}

/** A `\u0000` escape in a literal parses to NUL, which PostgreSQL text refuses (a 500 otherwise). */
function assertStorableLiterals(document: DocumentNode) {
  let argument = 'query';
  visit(document, {
    Argument: { enter: (node) => void (argument = node.name.value) },
    StringValue: (node) => {
      if (node.value.includes('\0'))
        throw new DomainError('validation_error', `${argument} must be valid Unicode without NUL characters`, {
          field: argument,
        });
    },
  });
}

/** The deepest nesting of (), [] and {} in a GraphQL document, skipping strings and comments. */
function nestingDepth(s: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '#') {
      while (i < s.length && s[i] !== '\n' && s[i] !== '\r') i++;
    } else if (c === '"' && s.startsWith('""', i + 1)) {
      // Block string: ends at the next """ that is not escaped as \""".
      for (i += 3; i < s.length && !(s.startsWith('"""', i) && s[i - 1] !== '\\'); i++);
      i += 2;
    } else if (c === '"') {
      for (i++; i < s.length && s[i] !== '"'; i++) if (s[i] === '\\') i++;
    } else if (c === '{' || c === '[' || c === '(') {
      max = Math.max(max, ++depth);
    } else if (c === '}' || c === ']' || c === ')') {
      depth--;
    }
  }
  return max;
}

/**
 * Clients send the same few documents over and over: each is parsed (and checked) once. The cache
 * is bounded by the bytes of the sources it keeps (an AST is tens of times its source) and
 * evicts the least recently used; documents that fail a limit are never kept. It is also yoga's
 * document cache (its own holds 1,000 documents of any size).
 */
const CACHE_BYTES = 512 * 1024;
const cache = new Map<string, DocumentNode>();
let cachedBytes = 0;

export const documentCache = {
  get(source: string): DocumentNode | undefined {
    const hit = cache.get(source);
    if (hit) {
      cache.delete(source);
      cache.set(source, hit);
    }
    return hit;
  },
  set(source: string, document: DocumentNode) {
    if (cache.has(source)) return;
    cachedBytes += source.length;
    cache.set(source, document);
    for (const [k] of cache) {
      if (cachedBytes <= CACHE_BYTES) break;
      cache.delete(k);
      cachedBytes -= k.length;
    }
  },
};

/** yoga caches parse errors by source too: here, never (an error costs one parse of a capped document). */
export const noErrorCache = { get: () => undefined, set: () => {} };

export function parseCached(source: string): DocumentNode {
  let document = documentCache.get(source);
  if (!document) {
    document = parseDocument(source);
    documentCache.set(source, document);
  }
  return document;
}

/** What the cache holds, for tests and metrics. */
export const parseCacheStats = () => ({ entries: cache.size, bytes: cachedBytes, maxBytes: CACHE_BYTES });
