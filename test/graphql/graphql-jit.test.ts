import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/server.ts';
import { mintKey } from '../helpers/keys.ts';
import { buildSchema, execute, parse } from 'graphql';
import { compiledFor, jitStats, runCompiled } from '../../src/graphql/jit.ts';

const server = useServer();

/** A cursor's signed body without its expiry (seconds can tick between two sends of one document). */
const normalize = (text: string) =>
  text.replace(/cur_([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]{22}/g, (_, payload: string) => {
    const { x: _expiry, ...rest } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return `cursor:${JSON.stringify(rest)}`;
  });

const KEY = 'id keyId name role scopes environment createdAt revokedAt';

describe('compiled execution (graphql-jit) answers exactly as the interpreter', () => {
  it('/graphql: a document sent again runs compiled, with the same data, errors, paths and statuses', async () => {
    const ws = await server.workspace();
    await mintKey(ws.workspaceId, 'test', { name: 'second' });
    const documents: { query: string; variables?: Record<string, unknown>; interpreted?: boolean }[] = [
      {
        query: `query($first: Int) { apiKeys(first: $first) { limit
          pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { ${KEY} } } } }`,
        variables: { first: 1 },
      },
      // a non-null root field fails: data is null, one error with its code
      { query: 'query($id: ID!) { apiKeys { limit } apiKey(id: $id) { id } }', variables: { id: 'key_missing' } },
      { query: '{ apiKeys(first: 0) { limit } }' },
      { query: '{ __typename apiKeys(first: 1) { edges { node { __typename id } } } }' },
      { query: 'mutation($id: ID!) { revokeApiKey(id: $id) { id } }', variables: { id: 'key_missing' } },
      // variables that do not coerce: graphql-js's own message, from the interpreter
      {
        query: 'query($first: Int) { apiKeys(first: $first) { limit } }',
        variables: { first: 'x' },
        interpreted: true,
      },
    ];
    for (const d of documents) {
      const before = { ...jitStats };
      const sends = [];
      for (let i = 0; i < 3; i++) {
        const res = await ws.client.graphql(d.query, d.variables);
        sends.push({ status: res.status, body: normalize(JSON.stringify(res.json)) });
      }
      // the first send was interpreted (a document compiles on its second execution), the others compiled
      expect(sends[1], d.query).toEqual(sends[0]);
      expect(sends[2], d.query).toEqual(sends[0]);
      if (d.interpreted) expect(jitStats.interpreted - before.interpreted).toBe(2);
      else expect(jitStats.compiled - before.compiled).toBe(2);
    }
    const [list, failed, limit] = await Promise.all(
      documents.slice(0, 3).map((d) => ws.client.graphql(d.query, d.variables)),
    );
    expect(list.json.data.apiKeys.edges).toHaveLength(1);
    expect(list.json.data.apiKeys.pageInfo.endCursor).toBe(list.json.data.apiKeys.edges[0].cursor);
    expect(failed.json.data).toBeNull();
    expect(failed.json.errors).toMatchObject([{ extensions: { code: 'not_found' } }]);
    expect(limit.json.errors![0].extensions.code).toBe('invalid_limit');
  });

  it('REST runs every request compiled, errors included; bad variables are worded by graphql-js', async () => {
    const ws = await server.workspace();
    let before = jitStats.compiled;
    const list = await ws.client.get('/v1/api-keys?limit=1');
    expect(list.status).toBe(200);
    expect(jitStats.compiled).toBe(before + 1);

    before = jitStats.compiled;
    const missing = await ws.client.get('/v1/api-keys/key_missing');
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe('not_found');
    expect(jitStats.compiled).toBe(before + 1);

    const interpreted = jitStats.interpreted;
    const bad = await ws.client.post('/v1/api-keys', { name: 123 }, { 'idempotency-key': 'jit-1' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'validation_error', field: 'name' });
    expect(jitStats.interpreted).toBe(interpreted + 1);
  });
});

it("the executor's own errors (null in a non-null field) are internal errors, as graphql-js raises them", async () => {
  const schema = buildSchema('type Query { a: String! b: Int }');
  const document = parse('{ b a }');
  const interpreted = await execute({ schema, document, rootValue: { a: null, b: 1 } });
  const compiled = compiledFor(schema, document, undefined, 1)!;
  const result = await runCompiled(compiled, { rootValue: { a: null, b: 1 } }, async () => {
    throw new Error('variables coerce here');
  });
  expect(JSON.stringify(result)).toBe(JSON.stringify(interpreted));
  expect(result.errors![0].originalError).toBeInstanceOf(Error);
  expect(interpreted.errors![0].originalError).toBeInstanceOf(Error);
});
