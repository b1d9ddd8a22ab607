// The reactions registry (src/core/reactions.ts; docs/architecture.md, Layers): every reaction a lower
// module declares is registered by src/modules/reactions.ts, which every process's composition imports.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reaction, reactionPoints } from '../../src/core/reactions.ts';
import '../../src/modules/reactions.ts';

const root = resolve(import.meta.dirname, '../..');

describe('reactions', () => {
  it('every declared reaction is registered, in its declared order', () => {
    const table = reactionPoints()
      .filter((p) => !p.point.startsWith('test '))
      .map((p) => ({ point: p.point, names: [...p.names], registered: p.registered() }));
    expect(table).toEqual(
      expect.arrayContaining([
        { point: 'invoices paid', names: ['subscriptions: activate'], registered: ['subscriptions: activate'] },
        {
          point: 'invoices closed',
          names: ['checkout-sessions: expire invoice sessions'],
          registered: ['checkout-sessions: expire invoice sessions'],
        },
        {
          point: 'invoice void held',
          names: ['credit-notes: issued note'],
          registered: ['credit-notes: issued note'],
        },
        {
          point: 'payment simulated',
          names: ['collection: settle waiting charge'],
          registered: ['collection: settle waiting charge'],
        },
        {
          point: 'invoices charging',
          names: ['subscriptions: lock what the invoices bill'],
          registered: ['subscriptions: lock what the invoices bill'],
        },
        {
          point: 'invoice charge failed',
          names: ['subscriptions: past due'],
          registered: ['subscriptions: past due'],
        },
        {
          point: 'failed charge dunned',
          names: ['subscriptions: dunned unless incomplete'],
          registered: ['subscriptions: dunned unless incomplete'],
        },
        {
          point: 'dunning exhausted',
          names: ['subscriptions: cancel'],
          registered: ['subscriptions: cancel'],
        },
        {
          point: 'payment method moving',
          names: ['subscriptions: clear the method'],
          registered: ['subscriptions: clear the method'],
        },
        {
          point: 'customer default method set',
          names: ['payment-methods: check and flag the default'],
          registered: ['payment-methods: check and flag the default'],
        },
      ]),
    );
    expect(table).toHaveLength(10);
    for (const p of table) expect(p.registered).toEqual(p.names);
  });

  it('every process entry that runs services loads every registration before it runs anything', () => {
    // The HTTP server (through the schema), the worker, and the benches' own processes.
    for (const entry of ['schema/index.ts', 'jobs/worker.ts', 'bench/lib.ts', 'bench/billing-drain.ts'])
      expect(readFileSync(join(root, entry), 'utf8')).toContain("\nimport '../src/modules/reactions.ts';\n");
  });

  it('runs in the declared order, and refuses an unknown, a doubled or a missing registration', async () => {
    const seen: string[] = [];
    const r = reaction<(x: number) => Promise<number>>('test point', ['b: first', 'a: second']);
    r.register('a: second', async (x) => {
      seen.push('a');
      return x * 2;
    });
    await expect(r.run(1)).rejects.toThrow("reaction 'b: first' of 'test point' is not registered");
    expect(seen).toEqual([]);
    r.register('b: first', async (x) => {
      seen.push('b');
      return x + 1;
    });
    expect(await r.run(5)).toEqual([6, 10]);
    expect(seen).toEqual(['b', 'a']);
    expect(() => r.register('a: second', async (x) => x)).toThrow('registered twice');
    expect(() => r.register('c: other', async (x) => x)).toThrow("has no reaction 'c: other'");
  });
});
