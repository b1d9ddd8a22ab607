// The provider-operation shape (src/providers/operation.ts) and its rule that no provider is called
// with a transaction open: against a real database and a real HTTP server on loopback.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDatabase, inTenant, openDatabase } from '../../src/core/db/client.ts';
import { tenantTx } from '../../src/core/db/sql.ts';
import { sql } from '../../src/core/db/sql-template.ts';
import { registry } from '../../src/core/metrics.ts';
import { ProviderError } from '../../src/providers/errors.ts';
import { ProviderHttp } from '../../src/providers/http.ts';
import { providerOperations, runProviderOperation } from '../../src/providers/operation.ts';
import { dropDatabase, freshDatabase } from '../helpers/db.ts';

let server: Server;
let hits = 0;
let http: ProviderHttp;
let dbName: string;
const scope = { workspaceId: `ws_${randomUUID()}`, modes: ['test' as const] };

beforeAll(async () => {
  const { url, name } = await freshDatabase();
  dbName = name;
  openDatabase(url);
  server = createServer((_req, res) => {
    hits++;
    res.setHeader('content-type', 'application/json');
    res.end('{"ok":true}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  http = new ProviderHttp('provider_a', `http://127.0.0.1:${(server.address() as AddressInfo).port}`, {});
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await closeDatabase();
  await dropDatabase(dbName);
});

describe('a provider is never called inside a transaction', () => {
  it('the HTTP transport refuses a call from inside inTenant or tenantTx before sending anything', async () => {
    const before = hits;
    await expect(inTenant(scope, () => http.request({ method: 'POST', path: '/v2/charges' }))).rejects.toThrow(
      /provider_a POST \/v2\/charges: provider called inside a transaction/,
    );
    await expect(
      tenantTx(scope, async (q) => {
        await q.query(sql`SELECT 1`);
        return http.request({ method: 'GET', path: '/v2/charges/x' });
      }),
    ).rejects.toThrow(/inside a transaction/);
    expect(hits).toBe(before);
    // After the transaction, the same call goes out.
    await inTenant(scope, async (tx) => tx.$queryRaw`SELECT 1`);
    expect((await http.request({ method: 'POST', path: '/v2/charges' })).json).toEqual({ ok: true });
    expect(hits).toBe(before + 1);
  });

  it('an operation started inside a transaction is refused before its pending step', async () => {
    let steps = 0;
    const op = {
      name: providerOperations.checkoutAttempt,
      pending: async () => ({ pending: ++steps }),
      call: async () => ++steps,
      refused: async () => 'refused',
      answer: async () => 'answered',
    };
    await expect(inTenant(scope, () => runProviderOperation(op))).rejects.toThrow(/started inside a transaction/);
    expect(steps).toBe(0);
  });
});

describe('runProviderOperation', () => {
  const trace: string[] = [];
  const op = (call: () => Promise<string>, pending: () => Promise<{ pending: string } | { done: string }>) => ({
    name: providerOperations.offSessionCharge,
    pending: async () => {
      trace.push('pending');
      return pending();
    },
    call: async (p: string) => {
      trace.push(`call ${p}`);
      // The pending row is committed and no transaction is open: the real transport goes out.
      await http.request({ method: 'POST', path: '/v2/charges' });
      return call();
    },
    refused: async (p: string, e: ProviderError) => {
      trace.push(`refused ${p} ${e.reason}`);
      return `refused:${e.reason}`;
    },
    answer: async (p: string, a: string) => {
      trace.push(`answer ${p} ${a}`);
      return `answered:${a}`;
    },
  });

  it('runs pending, call and answer in order, or pending and refused on a provider error', async () => {
    trace.length = 0;
    const pending = async () => ({ pending: 'pay_1' });
    expect(await runProviderOperation(op(async () => 'ok', pending))).toBe('answered:ok');
    expect(trace).toEqual(['pending', 'call pay_1', 'answer pay_1 ok']);
    trace.length = 0;
    const declined = async () => {
      throw new ProviderError('provider_a', 'rejected', 'declined');
    };
    expect(await runProviderOperation(op(declined, pending))).toBe('refused:rejected');
    expect(trace).toEqual(['pending', 'call pay_1', 'refused pay_1 rejected']);
  });

  it('a pending step that decides (done) calls nothing; an error that is not the provider’s propagates', async () => {
    trace.length = 0;
    const before = hits;
    expect(
      await runProviderOperation(
        op(
          async () => 'ok',
          async () => ({ done: 'no call needed' }),
        ),
      ),
    ).toBe('no call needed');
    expect(trace).toEqual(['pending']);
    expect(hits).toBe(before);
    const bug = async () => {
      throw new TypeError('a bug, not a refusal');
    };
    await expect(runProviderOperation(op(bug, async () => ({ pending: 'pay_2' })))).rejects.toThrow(TypeError);
  });

  it('times every step by operation and step name', async () => {
    const text = await registry.getSingleMetricAsString('svc_provider_operation_step_seconds');
    for (const s of ['pending', 'call', 'answer', 'refused'])
      expect(text).toMatch(
        new RegExp(`svc_provider_operation_step_seconds_count\\{operation="offsession_charge",step="${s}"\\} [1-9]`),
      );
  });
});
