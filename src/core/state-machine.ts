/**
 * State machines as data (docs/architecture.md, "State machines"): each resource with states
 * declares one table of `from x trigger -> to + events` and its conflict code; `nextState` is the
 * one way to move, and every status list the SQL needs is derived from the table
 * (`statusesWhere`, `sqlIn`), so a status is written in one place. test/core/state-machines.test.ts walks
 * every machine and checks its statuses against the database; docs/states.md is drawn from them.
 */
import { DomainError, type Resource } from './errors.ts';
import { sql, type Fragment } from './db/sql-template.ts';

/** A move: the states it may start from (`null`: the row is being created), where it leads, what it emits. */
export interface Move<S extends string> {
  from: readonly (S | null)[];
  to: S;
  /** Event types the move emits, in order (none: the move is silent, e.g. payout cancel). */
  events?: readonly string[];
  /** How the move is named in the conflict message and the diagram (default: the trigger, spaced). */
  label?: string;
}

/** A change that keeps the status (an edit of fields): allowed in `in`, emits `events`. */
export interface Edit<S extends string> {
  in: readonly S[];
  events: readonly string[];
}

/** A condition on the row beyond its status that refuses some triggers (a claimed payout refuses cancel). */
export interface Hold<S extends string, T extends string> {
  /** The statuses in which the condition holds (a claim ends with the pending status). */
  in: readonly S[];
  refuses: readonly T[];
  message: (label: string) => string;
}

export interface Machine<S extends string = string, T extends string = string, H extends string = string> {
  /** The noun in messages and the diagram title (`checkout session`). */
  noun: string;
  resource: Resource;
  /** Where the status is stored (table and column), checked against the database's CHECK constraint. */
  stored: readonly { table: string; column: string }[];
  statuses: readonly S[];
  moves: Readonly<Record<T, Move<NoInfer<S>>>>;
  /** spec: `conflict` (checkout, refund) or `invalid_transition` (payout). */
  conflict: 'conflict' | 'invalid_transition';
  /** The refusal's message; default `The <noun> is <from>; <label> is not possible`. */
  message?(from: NoInfer<S>, label: string): string;
  holds?: Readonly<Record<H, Hold<NoInfer<S>, NoInfer<T>>>>;
  /** Changes that keep the status (PATCH): where each is allowed and what it emits. */
  edits?: Readonly<Record<string, Edit<NoInfer<S>>>>;
  /** Provider-driven moves: operation x outcome -> trigger. */
  outcomes?: Readonly<Record<string, Readonly<Record<string, NoInfer<T>>>>>;
}

/** Declares a machine with its literal types kept (statuses and triggers become unions). */
export const defineMachine = <const S extends string, const T extends string, const H extends string = never>(
  m: Machine<S, T, H>,
) => m;

export type StatusOf<M extends { statuses: readonly string[] }> = M['statuses'][number];
export type TriggerOf<M extends { moves: object }> = keyof M['moves'] & string;

export interface Next<S extends string> {
  to: S;
  events: readonly string[];
}

const labelOf = (moves: Readonly<Record<string, Move<string>>>, trigger: string) =>
  moves[trigger]?.label ?? trigger.replace(/_/g, ' ');

/** Whether `trigger` may move a row in `from` (`null`: creation), holds aside. */
export function canMove<S extends string, T extends string>(
  m: Machine<S, T, string>,
  from: S | null,
  trigger: T,
): boolean {
  return (m.moves[trigger].from as readonly (S | null)[]).includes(from);
}

/**
 * The state and events after `trigger` from `from` (`null`: creation), or the machine's conflict
 * (409) naming the state the row is in. `held`: the holds the row is under (Machine.holds).
 */
export function nextState<S extends string, T extends string, H extends string>(
  m: Machine<S, T, H>,
  from: S | null,
  trigger: T,
  held: readonly H[] = [],
): Next<S> {
  const move = m.moves[trigger];
  const label = labelOf(m.moves, trigger);
  if (!move || !canMove(m, from, trigger)) {
    const message =
      from === null
        ? `A ${m.noun} cannot be created by ${label}`
        : m.message
          ? m.message(from, label)
          : `The ${m.noun} is ${from}; ${label} is not possible`;
    throw new DomainError(m.conflict, message, { resource: m.resource });
  }
  for (const h of held) {
    const hold = m.holds?.[h];
    if (hold?.refuses.includes(trigger) && from !== null && hold.in.includes(from))
      throw new DomainError(m.conflict, hold.message(label), { resource: m.resource });
  }
  return { to: move.to, events: move.events ?? [] };
}

/** An edit (Machine.edits) of a row in `from`: the status it keeps and the events, or the machine's conflict. */
export function editState<S extends string>(m: Machine<S, string, string>, from: S, edit: string): Next<S> {
  const e = m.edits?.[edit];
  if (!e) throw new Error(`${m.noun}: no edit ${edit}`);
  if (!e.in.includes(from))
    throw new DomainError(m.conflict, `The ${m.noun} is ${from}; it cannot be changed`, { resource: m.resource });
  return { to: from, events: e.events };
}

/** The statuses from which any of `triggers` is allowed (creation aside), in the machine's order. */
export function statusesWhere<S extends string, T extends string>(m: Machine<S, T, string>, ...triggers: T[]): S[] {
  return m.statuses.filter((s) => triggers.some((t) => canMove(m, s, t)));
}

/** The statuses a row can be created in (the moves from `null`), in the machine's order. */
export function createdStatuses<S extends string, T extends string>(m: Machine<S, T, string>): S[] {
  const moves = Object.values<Move<S>>(m.moves);
  return m.statuses.filter((s) => moves.some((mv) => mv.from.includes(null) && mv.to === s));
}

/** The statuses from which no trigger leads anywhere else: nothing changes them any more. */
export function terminalStatuses<S extends string, T extends string>(m: Machine<S, T, string>): S[] {
  return m.statuses.filter((s) => !(Object.keys(m.moves) as T[]).some((t) => canMove(m, s, t) && m.moves[t].to !== s));
}

/** The trigger a provider's `outcome` of `operation` maps to. */
export function outcomeTrigger<S extends string, T extends string>(
  m: Machine<S, T, string>,
  operation: string,
  outcome: string,
): T {
  const t = m.outcomes?.[operation]?.[outcome];
  if (!t) throw new Error(`${m.noun}: no move for ${operation} ${outcome}`);
  return t;
}

/** A status as an SQL literal (a plain lower-case word, checked by sql.words). */
export const sqlStatus = (s: string): Fragment => sql.words([s]);

/** `<column> = 'a'` or `<column> IN ('a', 'b')`, built once at module load into a statement's text. */
export function sqlIn(column: Fragment, statuses: readonly string[]): Fragment {
  return statuses.length === 1 ? sql`${column} = ${sql.words(statuses)}` : sql`${column} IN (${sql.words(statuses)})`;
}

/** A Mermaid stateDiagram-v2 of one machine (docs/states.md). */
export function mermaid(m: Machine): string {
  const lines = ['stateDiagram-v2'];
  for (const [trigger, move] of Object.entries(m.moves) as [string, Move<string>][]) {
    const events = move.events?.length ? ` / ${move.events.join(', ')}` : '';
    for (const from of move.from) lines.push(`    ${from ?? '[*]'} --> ${move.to} : ${trigger}${events}`);
  }
  for (const [name, e] of Object.entries(m.edits ?? {}))
    for (const s of e.in)
      lines.push(`    ${s} --> ${s} : ${name}${e.events.length ? ` / ${e.events.join(', ')}` : ''}`);
  for (const s of m.statuses)
    if (!Object.values<Move<string>>(m.moves).some((mv) => mv.to === s || mv.from.includes(s))) lines.push(`    ${s}`);
  return lines.join('\n');
}
