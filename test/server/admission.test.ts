import { afterAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { Client as WsClient } from 'graphql-ws';
import { useServer, db, createClient, type Workspace } from '../helpers/server.ts';
import { unthrottled } from '../helpers/payments.ts';
import { signedSocket } from '../helpers/sockets.ts';
import { routes } from '../../rest-compat/routes.ts';
import { routeOperations } from '../../rest-compat/plugin.ts';
import { schema } from '../../schema/index.ts';
import type { Admission } from '../../src/graphql/operation.ts';
import { allows } from '../../src/core/auth/scopes.ts';

const server = useServer();
const operations = routeOperations(schema);

const declared = (f: { extensions?: Record<string, unknown> | null }) =>
  (f.extensions?.admission ?? undefined) as Admission | undefined;

async function readOnlyKey(ws: Workspace) {
  const made = await ws.client.post('/v1/api-keys', { name: 'reader', role: 'read_only' });
  expect(made.status, made.text).toBe(201);
  const key = { keyId: made.json.data.keyId as string, secret: made.json.data.key as string };
  return { ...key, client: createClient({ baseUrl: server.url, ...key }) };
}

const claims = async (workspaceId: string) =>
  Number(
    (await db().system.query(`SELECT count(*)::int AS n FROM idempotency_keys WHERE "workspaceId" = $1`, [workspaceId]))
      .rows[0].n,
  );

describe('what an operation needs is declared on its root field', () => {
  it('every mutation and subscription declares its scope; every route its error spelling', () => {
    const undeclared: string[] = [];
    for (const type of [schema.getMutationType()!, schema.getSubscriptionType()!])
      for (const f of Object.values(type.getFields()))
        if (!declared(f)?.scope) undeclared.push(`${type.name}.${f.name}`);
    expect(undeclared).toEqual([]);
    const generic = routes.filter((r) => operations.get(r.id)!.fields[0].resource === 'generic').map((r) => r.id);
    expect(generic).toEqual([]);
  });
});

describe('authorization comes before the idempotency lookup', () => {
  it('a read_only key sending any write route under an Idempotency-Key gets 403 and claims nothing', async () => {
    const ws = await server.workspace();
    const reader = await readOnlyKey(ws);
    const writes = routes.filter((r) => {
      const op = operations.get(r.id)!;
      return (
        op.operation === 'mutation' && !allows({ role: 'read_only', scopes: [], memberRole: null }, op.fields[0].scope!)
      );
    });
    expect(writes.length).toBeGreaterThan(50);
    const before = await claims(ws.workspaceId);
    await unthrottled(async () => {
      for (const route of writes) {
        const path = route.path.replace(/:(\w+)/g, 'x_1');
        const res = await reader.client.request(route.method, path, route.method === 'DELETE' ? undefined : {}, {
          'idempotency-key': randomUUID(),
        });
        expect([route.id, res.status, res.json?.error?.code]).toEqual([route.id, 403, 'insufficient_scope']);
      }
    });
    expect(await claims(ws.workspaceId)).toBe(before);
  });
});

describe('the socket is admitted by the same steps', () => {
  const sockets: WsClient[] = [];
  afterAll(async () => {
    for (const s of sockets) await s.dispose();
  });

  it('a subscription is refused for a key without its declared scope, and runs for one with it', async () => {
    const ws = await server.workspace();
    const made = await ws.client.post('/v1/api-keys', {
      name: 'no events',
      role: 'restricted',
      scopes: ['svc:api_key:read'],
    });
    expect(made.status, made.text).toBe(201);
    const socket = signedSocket(server.url, { keyId: made.json.data.keyId, secret: made.json.data.key });
    sockets.push(socket.client);
    const first = await new Promise<unknown>((resolve) => {
      socket.client.subscribe(
        { query: 'subscription { events { id } }' },
        { next: resolve, error: resolve, complete: () => resolve('complete') },
      );
    });
    expect(first).toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'insufficient_scope' }) }),
    ]);
  });
});
