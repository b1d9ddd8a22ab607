// Every root field declares its scope once, in `admission({ scope })` (src/graphql/operation.ts), and
// its service checks a scope again with `authorize(ctx, scope)` (src/core/context.ts): the two must be
// the same scope (docs/architecture.md, A request). Each root field's resolver is called with a key
// that holds no scope at all; the first `authorize` its service reaches refuses it, naming the scope
// it checks, before anything is read.
import { describe, expect, it } from 'vitest';
import type { GraphQLField, GraphQLResolveInfo, GraphQLSchema } from 'graphql';
import { schema } from '../schema/index.ts';
import type { Auth } from '../src/core/auth/authenticate.ts';
import { authorize, type Context } from '../src/core/context.ts';
import { isDomainError } from '../src/core/errors.ts';
import type { Admission } from '../src/graphql/operation.ts';

/** A key of the `restricted` role with an empty scope list: every `authorize` refuses it. */
const noScopes: Auth = {
  apiKeyId: 'key_scopes',
  keyId: 'pk_test_scopes',
  mode: 'test',
  role: 'restricted',
  scopes: [],
  memberId: null,
  memberRole: null,
  keyWorkspaceId: 'ws_scopes',
  isPlatformAdmin: false,
  workspaceId: 'ws_scopes',
  accountId: 'acct_scopes',
  tier: 'standard',
  onBehalfOf: false,
};

// Arguments as a resolver reads them: any name is there, as an object any field of which is there.
const anything: unknown = new Proxy(() => {}, {
  get: (_, key) => (key === Symbol.toPrimitive ? () => 'x' : key === 'then' ? undefined : anything),
  apply: () => anything,
});

interface Checked {
  field: string;
  declared: string | undefined;
  /** The scope the service refused first; null when it refused nothing, with what it did instead. */
  authorized: string | null;
  instead?: string;
}

/** What one root field's service authorizes first, asked with a key that has no scope. */
async function authorizedBy(type: string, field: GraphQLField<unknown, Context>): Promise<Checked> {
  const declared = (field.extensions?.admission as Admission | undefined)?.scope;
  const ctx: Context = { requestId: 'req_scopes', auth: { ...noScopes }, admitted: true };
  const info = { fieldName: field.name, parentType: { name: type }, path: { key: field.name } } as GraphQLResolveInfo;
  const run = type === 'Subscription' ? field.subscribe : field.resolve;
  try {
    await run?.({}, anything as Record<string, unknown>, ctx, info);
  } catch (e) {
    const m = isDomainError(e) && e.canonical === 'insufficient_scope' ? /lacks the (\S+) scope/.exec(e.message) : null;
    if (m) return { field: `${type}.${field.name}`, declared, authorized: m[1] };
    return { field: `${type}.${field.name}`, declared, authorized: null, instead: String((e as Error).message) };
  }
  return { field: `${type}.${field.name}`, declared, authorized: null, instead: 'returned without a scope check' };
}

type RootField = [type: string, field: GraphQLField<unknown, Context>];

/** The root fields of a schema: queries, mutations and subscriptions. */
const rootFields = (s: GraphQLSchema): RootField[] =>
  [s.getQueryType(), s.getMutationType(), s.getSubscriptionType()].flatMap((root) =>
    root ? Object.values(root.getFields()).map((f): RootField => [root.name, f as GraphQLField<unknown, Context>]) : [],
  );

const declaredScope = (f: GraphQLField<unknown, Context>) => (f.extensions?.admission as Admission | undefined)?.scope;

/** Every root field that declares a scope and whose service authorizes another one first (or none). */
async function disagreements(fields: RootField[]): Promise<Checked[]> {
  const out: Checked[] = [];
  for (const [type, field] of fields) {
    if (!declaredScope(field)) continue;
    const c = await authorizedBy(type, field);
    if (c.authorized !== c.declared) out.push(c);
  }
  return out;
}

describe('declared and authorized scopes agree', () => {
  const fields = rootFields(schema);

  it('every root field that declares a scope: its service authorizes that scope first', async () => {
    expect(fields.filter(([, f]) => declaredScope(f)).length).toBeGreaterThan(100);
    expect(await disagreements(fields)).toEqual([]);
  });

  it('the check fails when either side is edited (a modified copy of one field)', async () => {
    const [type, field] = fields.find(([t, f]) => t === 'Mutation' && declaredScope(f))!;
    const declared = declaredScope(field)!;
    const other = declared === 'svc:plan:read' ? 'svc:plan:write' : 'svc:plan:read';
    // The admission edited: it declares another scope than its service authorizes.
    const redeclared = {
      ...field,
      extensions: { admission: { ...(field.extensions.admission as Admission), scope: other } },
    };
    expect(await disagreements([[type, redeclared]])).toEqual([
      { field: `${type}.${field.name}`, declared: other, authorized: declared },
    ]);
    // The service edited: it authorizes another scope first.
    const reauthorized = {
      ...field,
      resolve: (root: unknown, args: Record<string, unknown>, ctx: Context, info: GraphQLResolveInfo) => {
        authorize(ctx, other);
        return field.resolve!(root, args, ctx, info);
      },
    };
    expect(await disagreements([[type, reauthorized]])).toEqual([
      { field: `${type}.${field.name}`, declared, authorized: other },
    ]);
    // The service edited: it authorizes nothing.
    const unchecked = { ...field, resolve: () => null };
    expect(await disagreements([[type, unchecked]])).toEqual([
      { field: `${type}.${field.name}`, declared, authorized: null, instead: 'returned without a scope check' },
    ]);
  });
});
