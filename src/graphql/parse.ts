import { GraphQLError, parse, type DocumentNode, type ParseOptions } from 'graphql';

/**
 * graphql-js parses recursively, so a document nested a few thousand levels deep overflows the
 * stack and surfaced as an internal error. Real documents nest a dozen levels; anything deeper
 * than this is refused as a syntax error before the parser sees it.
 */
export const MAX_NESTING = 64;

/** `parse`, after a cheap scan that refuses documents nested deeper than MAX_NESTING. */
export function parseDocument(source: string, options?: ParseOptions): DocumentNode {
  if (nestingDepth(source) > MAX_NESTING) {
    throw new GraphQLError(`Syntax Error: the document nests deeper than ${MAX_NESTING} levels.`, { extensions: { code: 'GRAPHQL_PARSE_FAILED' } });
  }
  return parse(source, options);
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
