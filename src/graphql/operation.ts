import {
  getDirectiveValues,
  getOperationAST,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  type DocumentNode,
  type GraphQLError,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationTypeNode,
  type SelectionSetNode,
} from 'graphql';
import type { RateClass } from '../core/config.ts';
import { DomainError, isDomainError, type Resource } from '../core/errors.ts';
import type { Scope } from '../core/auth/scopes.ts';

/**
 * What a root field needs to be admitted, declared once on the field and read by the one admission
 * pipeline (src/server/admission.ts) for REST routes, POST/GET /graphql and the socket alike.
 */
export interface Admission {
  /** Whose error spelling (src/core/errors.ts); `generic` when omitted. */
  resource?: Resource;
  /**
   * The scope the operation needs. A mutation's (and the subscription's) is checked before anything
   * else runs, the Idempotency-Key lookup included (docs/security.md); a query's fields check theirs
   * as they resolve, so a query answers the fields the key may read.
   */
  scope?: Scope;
  /** The rate class of the root field: `read` for queries and `mutating_light` for mutations when omitted. */
  rateClass?: RateClass;
  /**
   * spec Conventions "Idempotency ... Required on": the ONE declaration that a key is required;
   * `ignored`: the header means nothing to this field (usage ingestion: event ids are the idempotency).
   */
  idempotencyKey?: (typeof idempotencyKeyModes)[number];
}

const idempotencyKeyModes = ['required', 'ignored'] as const;
/** `idempotencyKey` of a field that ignores the header (its own ids are the idempotency). */
export const IDEMPOTENCY_KEY_IGNORED = idempotencyKeyModes[1];

/** The field options of a root field's declaration: spread into `t.field({...})`. */
export const admission = (a: Admission) =>
  a.idempotencyKey === 'required'
    ? {
        extensions: { admission: a },
        description: 'Requires an Idempotency-Key (the `idempotencyKey` argument or the header).',
      }
    : { extensions: { admission: a } };

export interface RootField {
  name: string;
  /** The field's `idempotencyKey` argument (literal or variable), if given. */
  idempotencyKey?: string;
  rateClass: RateClass;
  requiresIdempotencyKey: boolean;
  ignoresIdempotencyKey: boolean;
  scope?: Scope;
  resource: Resource;
}

export interface Operation {
  operation: OperationTypeNode;
  /** The root fields that will execute, in order: fragments and inline fragments resolved, @skip/@include applied. */
  fields: RootField[];
}

/**
 * The executable operation of a validated document and the root fields it will run. Found the way
 * execution finds them, so `mutation { ... on Mutation { createRefund } }` is seen as createRefund.
 */
export function operationOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | null | undefined,
): Operation | null {
  const op = getOperationAST(document, operationName ?? undefined);
  if (!op) return null;
  const rootType = schema.getRootType(op.operation);
  if (!rootType) return null;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const vars = variables ?? {};
  const included = (node: { directives?: readonly unknown[] }) => {
    const n = node as FieldNode;
    if (!n.directives?.length) return true;
    if (getDirectiveValues(GraphQLSkipDirective, n, vars)?.if === true) return false;
    return getDirectiveValues(GraphQLIncludeDirective, n, vars)?.if !== false;
  };
  const applies = (typeName: string | undefined) => typeName === undefined || typeName === rootType.name;

  const nodes: FieldNode[] = [];
  const seen = new Set<string>();
  const collect = (set: SelectionSetNode) => {
    for (const s of set.selections) {
      if (!included(s)) continue;
      if (s.kind === Kind.FIELD) nodes.push(s);
      else if (s.kind === Kind.INLINE_FRAGMENT) {
        if (applies(s.typeCondition?.name.value)) collect(s.selectionSet);
      } else {
        const f = fragments.get(s.name.value);
        if (f && !seen.has(f.name.value) && applies(f.typeCondition.name.value)) {
          seen.add(f.name.value);
          collect(f.selectionSet);
        }
      }
    }
  };
  collect(op.selectionSet);

  // Fields sharing a response key run once, as in execution.
  const byKey = new Map<string, FieldNode>();
  for (const n of nodes) if (!byKey.has((n.alias ?? n.name).value)) byKey.set((n.alias ?? n.name).value, n);
  const defs = rootType.getFields();
  const fields = [...byKey.values()].map((n): RootField => {
    const name = n.name.value;
    const arg = n.arguments?.find((a) => a.name.value === 'idempotencyKey');
    let idempotencyKey: string | undefined;
    if (arg?.value.kind === Kind.STRING) idempotencyKey = arg.value.value;
    if (arg?.value.kind === Kind.VARIABLE) {
      const v = vars[arg.value.name.value];
      if (typeof v === 'string') idempotencyKey = v;
    }
    const declared = (defs[name]?.extensions?.admission ?? {}) as Admission;
    return {
      name,
      idempotencyKey,
      rateClass: declared.rateClass ?? (op.operation === 'mutation' ? 'mutating_light' : 'read'),
      requiresIdempotencyKey: op.operation === 'mutation' && declared.idempotencyKey === 'required',
      ignoresIdempotencyKey: declared.idempotencyKey === IDEMPOTENCY_KEY_IGNORED,
      scope: declared.scope,
      resource: declared.resource ?? 'generic',
    };
  });
  return { operation: op.operation, fields };
}

/**
 * The Idempotency-Key of a mutation (its `idempotencyKey` argument wins over the header), and the
 * 400 when the declaration above requires one. A mutation under a key, or one that requires a
 * key, has exactly one root field: one key claims one operation.
 */
export function idempotencyOf(
  op: Operation,
  header: string | undefined,
  resource: Resource = 'generic',
): string | undefined {
  if (op.operation !== 'mutation' || op.fields.every((f) => f.ignoresIdempotencyKey)) return undefined;
  const key = op.fields.find((f) => f.idempotencyKey !== undefined)?.idempotencyKey ?? header;
  const requires = op.fields.some((f) => f.requiresIdempotencyKey);
  if ((key || requires) && op.fields.length > 1) {
    throw new DomainError(
      'validation_error',
      'A mutation with an Idempotency-Key (or one that requires it) must have exactly one root field',
      { field: 'query', resource },
    );
  }
  if (requires && !key)
    throw new DomainError(
      'idempotency_required',
      `${op.fields[0].name} requires an Idempotency-Key (the idempotencyKey argument or the header)`,
      { field: 'Idempotency-Key', resource },
    );
  return key;
}

/**
 * Variable coercion failures (wrong types, unknown fields) are the client's 400, naming the field,
 * spelled for the resource: REST routes and POST /graphql alike.
 */
export function coercionError(errors: readonly GraphQLError[], resource: Resource): DomainError {
  const message = errors[0].message;
  return new DomainError('validation_error', message.replace(/^Variable "\$\w+" got invalid value .*?; /, ''), {
    field: coercionField(message),
    resource,
  });
}

/**
 * A variable's error before execution as POST /graphql answers it: a scalar's or a validator's
 * `validation_error` and an uncoded coercion failure are one `coercionError` (the whole path,
 * spelled for the resource, as REST has it); any other coded error is kept.
 */
export function variableError(e: GraphQLError, resource: Resource): GraphQLError {
  const code = isDomainError(e.originalError) ? e.originalError.canonical : e.extensions?.code;
  return code && code !== 'validation_error' ? e : coercionError([e], resource);
}

/**
 * The whole input path a coercion message names, spelled as validation errors spell fields
 * (`lines[0].quantity`, `portalFeatures.selfServeCancel`): graphql-js prints the path from the
 * variable (`at "input.lines[0].quantity"`), and an unknown or missing field after it
 * (`Field "quantity" of required type ...`). The path is relative to the variable (REST bodies are
 * `$input`); a list variable keeps its name (`lines[0]`); a variable invalid as a whole is its name.
 */
export function coercionField(message: string): string | undefined {
  const variable = /^Variable "\$(\w+)"/.exec(message)?.[1];
  const leaf = /[Ff]ield "(?:[A-Za-z]+\.)?([A-Za-z0-9_]+)" (?:is not defined|of required type)/.exec(message)?.[1];
  if (!variable) return leaf ?? /[Ff]ield "(?:[A-Za-z]+\.)?([A-Za-z0-9_]+)"/.exec(message)?.[1];
  const at = new RegExp(
    `^Variable "\\$${variable}" got invalid value .*? at "${variable}((?:\\.\\w+|\\[\\d+\\])+)"; `,
    's',
  ).exec(message)?.[1];
  const path = at ? (at.startsWith('[') ? `${variable}${at}` : at.slice(1)) : '';
  if (leaf) return path ? `${path}.${leaf}` : leaf;
  return path || variable;
}
