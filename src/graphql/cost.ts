import {
  getNamedType,
  getNullableType,
  getOperationAST,
  isListType,
  isObjectType,
  isLeafType,
  Kind,
  valueFromASTUntyped,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { DomainError } from '../core/errors.ts';
import { listPageSize } from '../core/pagination.ts';

/**
 * The graph's cost of a document: how many objects it may fetch (docs/security.md, "Document
 * cost"). Every object a field returns counts once per parent; a connection counts its page
 * (`first`, else its default page: a root list's `listPageSize`, the one its resolver pages by; an
 * edge's `extensions.pageSize`; else 50, the largest default page of a list)
 * and multiplies everything selected under it; a plain list of objects counts `extensions.listSize`
 * (else 10) per parent. Connection plumbing (`edges`, `node`, `pageInfo`) costs nothing; scalars
 * cost nothing; fragments on several types of a union all count (an upper bound). Checked after
 * validation, with the request's variables, before anything runs.
 */
export const costLimits = {
  /** Objects one document may fetch: a dashboard page is a few hundred to a few thousand. */
  maxNodes: 10_000,
  /** A connection without `first` and without a declared page size (none today: test/graphql/graph-cost.test.ts). */
  defaultPage: 50,
  /** A plain list of objects without a declared size. */
  defaultList: 10,
};

type Vars = Record<string, unknown>;

/** The page a connection field returns when `first` is omitted: what its resolver uses. */
export function defaultPageOf(def: GraphQLField<unknown, unknown>, onRoot: boolean): number {
  const root = onRoot ? (listPageSize as Record<string, number>)[def.name] : undefined;
  return Number(root ?? def.extensions?.pageSize ?? costLimits.defaultPage);
}

const isConnection = (type: GraphQLNamedType) =>
  isObjectType(type) && 'edges' in type.getFields() && 'pageInfo' in type.getFields();
const isEdge = (type: GraphQLNamedType) =>
  isObjectType(type) && 'node' in type.getFields() && 'cursor' in type.getFields();

// A document's cost depends on its variables only through a `first: $var`: any other is computed
// once per parsed document (the parse cache keeps the same DocumentNode for the same source).
const costOf = new WeakMap<DocumentNode, Map<string, number>>();

/** The computed cost of the document's operation (`operationName` as execution picks it). */
export function documentCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string | null,
  variables?: Vars | null,
): number {
  const cached = costOf.get(document)?.get(operationName ?? '');
  if (cached !== undefined) return cached;
  const op = getOperationAST(document, operationName ?? undefined);
  const root = op && schema.getRootType(op.operation);
  if (!op || !root) return 0;
  let variable = false;
  const first = (node: FieldNode): unknown => {
    const arg = node.arguments?.find((a) => a.name.value === 'first');
    if (!arg) return undefined;
    if (arg.value.kind === Kind.VARIABLE) variable = true;
    return valueFromASTUntyped(arg.value, vars);
  };
  const vars: Vars = { ...variables };
  for (const d of op.variableDefinitions ?? [])
    if (!(d.variable.name.value in vars) && d.defaultValue)
      vars[d.variable.name.value] = valueFromASTUntyped(d.defaultValue);
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);

  const walk = (set: SelectionSetNode, type: GraphQLNamedType, times: number, seen: Set<string>): number => {
    let total = 0;
    for (const s of set.selections) {
      if (s.kind === Kind.INLINE_FRAGMENT) {
        const on = s.typeCondition ? schema.getType(s.typeCondition.name.value) : type;
        if (on) total += walk(s.selectionSet, on, times, seen);
      } else if (s.kind === Kind.FRAGMENT_SPREAD) {
        const f = fragments.get(s.name.value);
        const on = f && schema.getType(f.typeCondition.name.value);
        // Validation refuses cycles first; `seen` only guards this walk.
        if (f && on && !seen.has(f.name.value))
          total += walk(f.selectionSet, on, times, new Set(seen).add(f.name.value));
      } else if (isObjectType(type) && s.selectionSet) {
        const def: GraphQLField<unknown, unknown> | undefined = type.getFields()[s.name.value];
        if (!def) continue;
        const named = getNamedType(def.type);
        if (isLeafType(named)) continue;
        let size = 1;
        let counts = true;
        if (isConnection(named)) {
          const n = first(s);
          size = typeof n === 'number' ? n : defaultPageOf(def, type === root);
        } else if (isConnection(type) || isEdge(type)) {
          counts = false; // edges, node, pageInfo: the connection counted its page
        } else if (isListType(getNullableType(def.type))) {
          size = Number(def.extensions?.listSize ?? costLimits.defaultList);
        }
        const inner = times * size;
        total += (counts ? inner : 0) + walk(s.selectionSet, named, inner, seen);
      }
    }
    return total;
  };
  const cost = walk(op.selectionSet, root, 1, new Set());
  if (!variable) {
    let byName = costOf.get(document);
    if (!byName) costOf.set(document, (byName = new Map()));
    byName.set(operationName ?? '', cost);
  }
  return cost;
}

/** Refuses a document over `costLimits.maxNodes`, naming its cost (`extensions.cost`, `extensions.maxCost`). */
export function assertCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string | null,
  variables?: Vars | null,
) {
  const cost = documentCost(schema, document, operationName, variables);
  if (cost > costLimits.maxNodes) {
    const e = new DomainError(
      'validation_error',
      `The operation may fetch ${cost} objects; at most ${costLimits.maxNodes} are allowed (lower first, or select less)`,
      { field: 'query' },
    );
    Object.assign(e.extensions, { cost, maxCost: costLimits.maxNodes });
    throw e;
  }
  return cost;
}
