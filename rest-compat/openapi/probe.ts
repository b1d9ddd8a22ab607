// What a route reads from its path, query and body, found by running its `variables()`.
import type { Route } from '../routes.ts';

/** `/v1/x/:id` as OpenAPI spells it. */
export const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

export interface Probed {
  /** Query parameter name -> the variable it fills. */
  query: Map<string, string>;
  /** `metadata[<key>]` filters. */
  metadataQuery: boolean;
  path: Map<string, string>;
  /** The variable that receives the whole body, or the body fields picked one by one. */
  bodyVariable?: string;
  bodyFields: Map<string, string>;
  emptyBody: boolean;
}

/**
 * What a route reads: its pure `variables()` is run over recording inputs. Each query name it
 * looks up is then given alone, and the variable that changes is the one it fills.
 */
export function probe(route: Route): Probed {
  const queryNames: string[] = [];
  let iteratesQuery = false;
  const pathNames = new Set<string>();
  const bodyNames: string[] = [];
  let iteratesBody = false;
  const recorder = (names: string[] | Set<string>, onKeys: () => void) =>
    new Proxy({} as Record<string, unknown>, {
      get(_, k) {
        if (typeof k === 'string' && k !== 'then' && k !== 'toJSON') {
          if (Array.isArray(names)) {
            if (!names.includes(k)) names.push(k);
          } else names.add(k);
        }
        return undefined;
      },
      ownKeys() {
        onKeys();
        return [];
      },
    });
  const params = recorder(pathNames, () => {});
  const body = recorder(bodyNames, () => {
    iteratesBody = true;
  });
  const baseline = route.variables({
    params: params as Record<string, string>,
    query: recorder(queryNames, () => {
      iteratesQuery = true;
    }) as Record<string, string>,
    body,
  }) as Record<string, unknown>;
  const bodyVariable = Object.entries(baseline).find(([, v]) => v === body)?.[0];
  const changed = (out: Record<string, unknown>, base: Record<string, unknown>) =>
    Object.keys(out).find((k) => out[k] !== undefined && JSON.stringify(out[k]) !== JSON.stringify(base[k]));
  const quiet = { params: {}, query: {}, body: {} };
  const base = route.variables(quiet) as Record<string, unknown>;
  const query = new Map<string, string>();
  for (const name of queryNames) {
    for (const value of ['2026-01-01T00:00:00Z', 'true', '7']) {
      try {
        const v = changed(route.variables({ ...quiet, query: { [name]: value } }) as Record<string, unknown>, base);
        if (v) {
          query.set(name, v);
          break;
        }
      } catch {
        /* the value is not of the parameter's kind: try the next */
      }
    }
  }
  const path = new Map<string, string>();
  for (const name of pathNames) {
    const v = changed(route.variables({ ...quiet, params: { [name]: 'x' } }) as Record<string, unknown>, base);
    if (v) path.set(name, v);
  }
  const bodyFields = new Map<string, string>();
  if (!bodyVariable) {
    for (const name of bodyNames) {
      const v = changed(route.variables({ ...quiet, body: { [name]: 'x' } }) as Record<string, unknown>, base);
      if (v) bodyFields.set(name, v);
    }
  }
  let metadataQuery = false;
  if (iteratesQuery) {
    const out = route.variables({ ...quiet, query: { 'metadata[k]': 'v' } }) as Record<string, unknown>;
    metadataQuery = JSON.stringify(out.metadata) === JSON.stringify({ k: 'v' });
  }
  return {
    query,
    metadataQuery,
    path,
    bodyVariable,
    bodyFields,
    emptyBody: iteratesBody && !bodyVariable && bodyFields.size === 0,
  };
}
