/**
 * The SQL builder of the raw paths: a tagged template whose interpolations are always bound
 * parameters, never text. A nested fragment is spliced in (its parameters renumbered after the
 * ones before it), an identifier comes from `sql.id` (quoted and escaped), and nothing else can
 * reach the statement text, so the text of a call site is the same on every call: it is prepared
 * once per connection (src/core/db/client.ts prepareOn keys on the text).
 *
 *     const q = sql`SELECT * FROM ${sql.id(table)} WHERE id = ${id} AND ${also}`;
 *     q.text   // 'SELECT * FROM "checkout_sessions" WHERE id = $1 AND ...'
 *     q.values // [id, ...also's values]
 */

/** A piece of SQL with its parameters. Build one with `sql`; a plain string is not one (by type and at run time). */
export class Fragment {
  // Private: only this module makes fragments, so a string or a look-alike object never type-checks as one.
  #brand = true;
  /** @internal */
  constructor(
    readonly strings: readonly string[],
    readonly params: readonly unknown[],
  ) {}

  static is(v: unknown): v is Fragment {
    return v instanceof Fragment && v.#brand;
  }

  /** The statement text with `$1..$n` in order of appearance across nested fragments. */
  get text(): string {
    return compile(this).text;
  }

  /** The parameters `$1..$n` stand for. */
  get values(): unknown[] {
    return compile(this).values;
  }

  /** A fragment dropped into a plain template string would become text silently: refuse. */
  toString(): never {
    throw new TypeError('an SQL fragment is not a string: interpolate it into sql`...`');
  }
}

export interface Compiled {
  text: string;
  values: unknown[];
}

const compiled = new WeakMap<Fragment, Compiled>();

export function compile(f: Fragment): Compiled {
  if (!Fragment.is(f)) throw new TypeError('SQL must be built with sql`...`, not passed as a string');
  let out = compiled.get(f);
  if (!out) {
    const values: unknown[] = [];
    out = { text: build(f, values), values };
    compiled.set(f, out);
  }
  return out;
}

function build(f: Fragment, values: unknown[]): string {
  let text = f.strings[0];
  for (let i = 0; i < f.params.length; i++) {
    const v = f.params[i];
    if (Fragment.is(v)) text += build(v, values);
    else {
      values.push(v);
      text += `$${values.length}`;
    }
    text += f.strings[i + 1];
  }
  return text;
}

const constant = (text: string) => new Fragment([text], []);

/** `sql\`...\``: interpolated values are parameters; interpolated fragments are spliced in. */
export function sql(strings: TemplateStringsArray, ...params: unknown[]): Fragment {
  return new Fragment(strings, params);
}

/** A quoted identifier: `"` doubled inside, so any name is one identifier and never SQL. */
sql.id = (name: string): Fragment => {
  if (!name || name.includes('\0')) throw new Error('sql.id: an identifier must be a non-empty string without NUL');
  return constant(`"${name.replace(/"/g, '""')}"`);
};

/** Fragments joined by a constant separator (`, ` by default). */
sql.join = (parts: readonly Fragment[], separator: ', ' | ' AND ' | ' OR ' | ' UNION ALL ' = ', '): Fragment => {
  if (!parts.length) return constant('');
  return new Fragment(['', ...parts.slice(1).map(() => separator), ''], parts);
};

/**
 * Text from code, for the rare constant that a template cannot express. Only a string literal
 * type is accepted (a `string` computed at run time is a type error).
 */
sql.raw = <T extends string>(text: string extends T ? never : T): Fragment => constant(text);

/**
 * Constant words from code (statuses, kinds) as SQL string literals, `'a', 'b'`. Each must be a
 * plain lower-case word, so the text is safe and the same on every call: a status list stays a
 * literal list in the prepared statement (the planner sees the values), not a bound array.
 */
sql.words = (words: readonly string[]): Fragment => {
  if (!words.length) throw new Error('sql.words: an empty list');
  for (const w of words)
    if (!/^[a-z][a-z0-9_]*$/.test(w)) throw new Error(`sql.words: not a plain word: ${JSON.stringify(w)}`);
  return constant(words.map((w) => `'${w}'`).join(', '));
};

/** The empty fragment, for optional parts. */
sql.empty = constant('');
