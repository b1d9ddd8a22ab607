/**
 * Reactions (docs/architecture.md, Layers): where a change in a lower module must move rows of an
 * upper one (a paid invoice activates its subscription), the lower module declares a point with
 * the names it runs, in their order; the upper module registers its function under its name when
 * it loads (`src/modules/<upper>/reactions.ts`, imported by the compositions: schema/index.ts and
 * the worker, through src/modules/reactions.ts). A point runs its functions one after the other, in
 * the caller's transaction, in the declared order; running a point with a name unregistered throws,
 * so a process that forgot a module fails instead of skipping a rule. One registry: `reactionPoints`.
 */

type Fn = (...args: any[]) => unknown;

export interface Reaction<F extends Fn> {
  /** What happened, as the lower module says it (`invoices paid`). */
  readonly point: string;
  /** The reactions, `<module>: <what it does>`, in the order they run. */
  readonly names: readonly string[];
  register(name: string, fn: F): void;
  /** The names registered so far (a test compares them with `names`). */
  registered(): string[];
  /** Runs every reaction in order; their results in the same order. */
  run(...args: Parameters<F>): Promise<Awaited<ReturnType<F>>[]>;
}

const points: Reaction<Fn>[] = [];

/** The one registry: every point declared by a loaded module. */
export const reactionPoints = (): readonly Reaction<Fn>[] => points;

export function reaction<F extends Fn>(point: string, names: readonly string[]): Reaction<F> {
  const fns = new Map<string, F>();
  const r: Reaction<F> = {
    point,
    names,
    register(name, fn) {
      if (!names.includes(name)) throw new Error(`reaction point '${point}' has no reaction '${name}'`);
      if (fns.has(name)) throw new Error(`reaction '${name}' of '${point}' is registered twice`);
      fns.set(name, fn);
    },
    registered: () => names.filter((n) => fns.has(n)),
    async run(...args) {
      const out: Awaited<ReturnType<F>>[] = [];
      for (const name of names) {
        const fn = fns.get(name);
        if (!fn)
          throw new Error(
            `reaction '${name}' of '${point}' is not registered: the process must import src/modules/reactions.ts`,
          );
        out.push((await fn(...args)) as Awaited<ReturnType<F>>);
      }
      return out;
    },
  };
  points.push(r as unknown as Reaction<Fn>);
  return r;
}
