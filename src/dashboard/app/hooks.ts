import type { AnyVariables, Client } from '@urql/core';
import { useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<R> {
  data?: R;
  error?: string;
  fetching: boolean;
}

/**
 * A query kept current: the normalized cache answers first, the network after; a mutation's result
 * updates every screen showing the same object, and `tick` (the live feed) asks the server again.
 */
export function useQuery<R, V extends AnyVariables>(client: Client, query: string, variables: V, tick = 0): Loaded<R> {
  const [state, setState] = useState<Loaded<R>>({ fetching: true });
  const key = JSON.stringify(variables);
  useEffect(() => {
    const { unsubscribe } = client
      .query<R, V>(query, variables, { requestPolicy: tick ? 'network-only' : 'cache-and-network' })
      .subscribe((r) => setState({ data: r.data, error: r.error?.message, fetching: false }));
    return unsubscribe;
  }, [client, query, key, tick]);
  return state;
}

/**
 * A form's fields following what the server holds (on load, after a save's fresh answer) until the
 * member types: a refetch landing between typing and Save must not blank what was typed. `saved()`
 * (after a successful save) lets the server's next answer lead again.
 */
export function useServerForm<T>(server: T | undefined, empty: T) {
  const [form, setForm] = useState<T>(empty);
  const editing = useRef(false);
  const key = server === undefined ? '' : JSON.stringify(server);
  useEffect(() => {
    if (server !== undefined && !editing.current) setForm(server);
  }, [key]);
  return {
    form,
    edit: (next: T) => {
      editing.current = true;
      setForm(next);
    },
    saved: () => {
      editing.current = false;
    },
  };
}

/** A mutation's answer, as urql gives it. */
export type Answer = { error?: { graphQLErrors: { message: string }[]; message: string } };
/** What went wrong, in the API's words; null when the mutation succeeded. */
export const problem = (r: Answer) => (r.error ? (r.error.graphQLErrors[0]?.message ?? r.error.message) : null);

/**
 * A screen's actions: the note its status line shows, and `again`, bumped after each success so the
 * screen's query asks the server again (add it to the query's tick). `report` answers whether it succeeded.
 */
export function useActions() {
  const [note, setNote] = useState<string | null>(null);
  const [again, setAgain] = useState(0);
  const report = (r: Answer, ok: string | null) => {
    const failed = problem(r);
    setNote(failed ?? ok);
    if (!failed) setAgain((n) => n + 1);
    return !failed;
  };
  return { note, setNote, again, report };
}
