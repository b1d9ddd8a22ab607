import { GraphQLError, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';

/**
 * Documents compiled to JavaScript by graphql-jit (docs/performance.md): the executor's per-field
 * interpretation (argument coercion, field lookup, type checks) was ~15% of a list request's CPU.
 * A compiled query is tied to its schema and document, so it is kept beside the document (a
 * WeakMap: it goes when the parse cache lets the document go).
 */
interface Entry {
  hits: number;
  /** Per operation name ('' for the only one); null when it did not compile (it runs interpreted). */
  compiled: Map<string, CompiledQuery | null>;
}
const entries = new WeakMap<DocumentNode, Entry>();

/**
 * Client documents compile on their second execution: a one-off document (or a client sending a
 * new one each time) costs the interpreter's run, never a compilation (milliseconds) as well.
 */
export const COMPILE_AFTER = 2;

export function compiledFor(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  compileAfter = COMPILE_AFTER,
): CompiledQuery | null {
  let entry = entries.get(document);
  if (!entry) entries.set(document, (entry = { hits: 0, compiled: new Map() }));
  const name = operationName ?? '';
  const known = entry.compiled.get(name);
  if (known !== undefined) return known;
  if (++entry.hits < compileAfter) return null;
  const c = compileQuery(schema, document, operationName ?? undefined, { disablingCapturingStackErrors: true });
  const compiled = isCompiledQuery(c) ? c : null;
  entry.compiled.set(name, compiled);
  return compiled;
}

/** Contexts whose execution already failed compiled: the interpreter answers them, without a second try. */
export const interpreting = new WeakSet<object>();

/** Executions by path, for tests and metrics: `compiled` ran graphql-jit's code, `interpreted` fell back. */
export const jitStats = { compiled: 0, interpreted: 0 };

/**
 * Runs a compiled query; `interpret` answers when the variables do not coerce (nothing ran then):
 * graphql-js words those messages, and REST names the field of its 400 from them.
 */
export async function runCompiled(
  compiled: CompiledQuery,
  args: Pick<ExecutionArgs, 'rootValue' | 'contextValue' | 'variableValues'>,
  interpret: () => Promise<ExecutionResult>,
): Promise<ExecutionResult> {
  const result = await compiled.query(args.rootValue, args.contextValue, args.variableValues);
  if (result.errors?.length && result.data === undefined) {
    jitStats.interpreted++;
    if (args.contextValue && typeof args.contextValue === 'object') interpreting.add(args.contextValue);
    return interpret();
  }
  jitStats.compiled++;
  // graphql-js's key order ({errors, data}): the answer's bytes do not depend on the executor.
  return result.errors ? { errors: result.errors.map(asInterpreted), data: result.data } : result;
}

/**
 * The executor's own errors (a null in a non-null field, a list that is not one) carry no
 * originalError in graphql-jit, and would reach the client as they are; graphql-js raises them as
 * plain Errors, which masking turns into an internal error (logged). The same here.
 */
function asInterpreted(e: GraphQLError): GraphQLError {
  if (e.originalError || !e.path) return e;
  const error = new GraphQLError(e.message, { path: e.path, originalError: new Error(e.message) });
  (error as { locations?: GraphQLError['locations'] }).locations = e.locations;
  return error;
}
