import type { FieldKind, FieldSpec } from '../core/wire.ts';
import type { Context } from '../core/context.ts';

export type { FieldKind, FieldSpec } from '../core/wire.ts';

const graphqlType: Record<FieldKind, string | [string]> = {
  id: 'ID',
  string: 'String',
  int: 'Int',
  float: 'Float',
  money: 'Money',
  bool: 'Boolean',
  date: 'DateTime',
  json: 'JSON',
  metadata: 'Metadata',
  strings: ['String'],
};

/** Pothos fields for a spec; `t` is any object field builder. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function exposeFields<Row>(t: any, spec: FieldSpec<Row>) {
  const out: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(spec)) {
    out[name] = t.field({
      type: graphqlType[f.kind],
      nullable: f.nullable ?? false,
      resolve: (row: Row, _args: unknown, ctx: Context) => {
        const value = (f.from ? f.from(row) : (row as Record<string, unknown>)[name]) ?? null;
        if (f.secret && typeof value === 'string') ctx.replay?.secrets.add(value);
        return value;
      },
    });
  }
  return out;
}
