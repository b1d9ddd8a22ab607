// One walk over every state machine (src/core/state-machine.ts, src/modules/state-machines.ts):
// every allowed move gives its target and events, every other move the machine's conflict code,
// and every machine's statuses are exactly what the database's CHECK constraint (or enum) allows.
import { sql } from '../../src/core/db/sql-template.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { canMove, nextState, statusesWhere, sqlIn, type Machine, type Move } from '../../src/core/state-machine.ts';
import { isDomainError } from '../../src/core/errors.ts';
import { eventTypes } from '../../src/core/event-types.ts';
import { machines } from '../../src/modules/state-machines.ts';
import { dropDatabase, freshDatabase } from '../helpers/db.ts';

const all = Object.entries(machines) as [string, Machine][];

/** What nextState does, as a value: the move, or the canonical code it refused with. */
function attempt(m: Machine, from: string | null, trigger: string, held: string[] = []) {
  try {
    return nextState(m, from, trigger, held);
  } catch (e) {
    if (!isDomainError(e)) throw e;
    return { refused: e.canonical, message: e.message };
  }
}

describe.each(all)('state machine %s', (_, m) => {
  const moves = Object.entries(m.moves) as [string, Move<string>][];

  it('every allowed move gives its target and events; every other (from, trigger) the conflict code', () => {
    let allowed = 0;
    let refused = 0;
    for (const [trigger, move] of moves) {
      for (const from of [null, ...m.statuses]) {
        const got = attempt(m, from, trigger);
        if (move.from.includes(from)) {
          expect(got, `${from ?? '(creation)'} --${trigger}-->`).toEqual({ to: move.to, events: move.events ?? [] });
          allowed++;
        } else {
          expect(got, `${from ?? '(creation)'} --${trigger}--> must be refused`).toMatchObject({ refused: m.conflict });
          refused++;
        }
      }
    }
    expect(allowed).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });

  it('names only its own statuses and catalogued events; every status is reachable or a start', () => {
    for (const [trigger, move] of moves) {
      expect(m.statuses, trigger).toContain(move.to);
      for (const from of move.from) if (from !== null) expect(m.statuses, trigger).toContain(from);
      for (const type of move.events ?? []) expect(Object.keys(eventTypes), `${trigger} emits ${type}`).toContain(type);
    }
    const created = moves.filter(([, mv]) => mv.from.includes(null));
    expect(created.length, 'a creation move (from null)').toBeGreaterThan(0);
    for (const [operation, outcomes] of Object.entries(m.outcomes ?? {})) {
      for (const [outcome, trigger] of Object.entries(outcomes))
        expect(Object.keys(m.moves), `${operation} ${outcome}`).toContain(trigger);
    }
  });

  it('a hold refuses exactly its triggers, with the machine code', () => {
    for (const [name, hold] of Object.entries(m.holds ?? {})) {
      for (const [trigger, move] of moves) {
        for (const from of move.from) {
          const got = attempt(m, from, trigger, [name]);
          if (hold.refuses.includes(trigger) && from !== null && hold.in.includes(from))
            expect(got, `${name}: ${trigger}`).toMatchObject({ refused: m.conflict });
          else expect(got, `${name}: ${trigger}`).toEqual({ to: move.to, events: move.events ?? [] });
        }
      }
    }
  });
});

describe('the spec tables (interface spec, States and transitions)', () => {
  const cases: [keyof typeof machines, string | null, string, string][] = [
    ['checkout_session', 'open', 'cancel', 'canceled'],
    ['checkout_session', 'pending_review', 'cancel', 'canceled'],
    ['checkout_session', 'pending_review', 'confirm', 'completed'],
    ['checkout_session', 'pending', 'confirm', 'completed'],
    ['checkout_session', 'open', 'provider_paid', 'completed'],
    ['checkout_session', 'pending_review', 'expire', 'expired'],
    ['payout', null, 'create', 'pending'],
    ['payout', 'pending', 'initiate', 'in_transit'],
    ['payout', 'in_transit', 'mark_paid', 'paid'],
    ['payout', 'in_transit', 'mark_failed', 'failed'],
    ['payout', 'pending', 'cancel', 'cancelled'],
    ['refund', null, 'create', 'pending'],
    ['refund', null, 'create_succeeded', 'succeeded'],
    ['refund', 'pending', 'provider_succeeded', 'succeeded'],
    ['refund', 'pending', 'provider_failed', 'failed'],
    ['refund', 'pending', 'provider_canceled', 'canceled'],
    ['webhook_endpoint', 'active', 'trip', 'errored'],
    ['webhook_endpoint', 'errored', 'enable', 'active'],
    ['webhook_endpoint', 'errored', 'disable', 'disabled'],
    ['webhook_delivery', 'pending', 'succeeded', 'succeeded'],
    ['webhook_delivery', 'pending', 'failed_will_retry', 'pending'],
    ['adapter', 'active', 'gateway_failed', 'error'],
  ];
  it.each(cases)('%s: %s --%s--> %s', (name, from, trigger, to) => {
    expect(nextState(machines[name] as Machine, from, trigger).to).toBe(to);
  });

  it('terminal states refuse with the spec codes and messages', () => {
    expect(attempt(machines.checkout_session, 'completed', 'confirm')).toEqual({
      refused: 'conflict',
      message: 'The checkout session is completed; confirm is not possible',
    });
    expect(attempt(machines.payout, 'paid', 'cancel')).toEqual({
      refused: 'invalid_transition',
      message: 'The payout is paid; cancel is not possible',
    });
    expect(attempt(machines.payout, 'pending', 'cancel', ['claimed'])).toEqual({
      refused: 'invalid_transition',
      message: 'The payout is being disbursed; cancel is not possible',
    });
    // A claim lasts while the payout is pending: an in-transit rail payout (still claimedAt) may be marked failed by an admin.
    expect(attempt(machines.payout, 'in_transit', 'mark_failed', ['claimed'])).toMatchObject({ to: 'failed' });
    expect(attempt(machines.refund, 'failed', 'provider_succeeded')).toEqual({
      refused: 'conflict',
      message: 'The refund is failed; it can no longer change',
    });
  });

  it('derived SQL lists are the table rows, quoted', () => {
    const expirable = sqlIn(sql`s.status`, statusesWhere(machines.checkout_session, 'expire'));
    expect([expirable.text, expirable.values]).toEqual([`s.status IN ('open', 'pending', 'pending_review')`, []]);
    expect(sqlIn(sql`status`, statusesWhere(machines.refund, 'provider_succeeded')).text).toBe(`status = 'pending'`);
    expect(() => sqlIn(sql`status`, ["x'; DROP TABLE payouts; --"])).toThrow();
    // a fragment dropped into a plain string throws instead of becoming text
    expect(() => `${expirable}`).toThrow(TypeError);
    expect(canMove(machines.webhook_endpoint, 'active', 'enable')).toBe(false);
  });
});

describe('every machine is registered', () => {
  it('each machine exported by a module states.ts is in src/modules/state-machines.ts', async () => {
    const modules = join(import.meta.dirname, '../../src/modules');
    const registered = new Set<unknown>(Object.values(machines));
    for (const dir of readdirSync(modules, { withFileTypes: true }).filter((d) => d.isDirectory())) {
      let exported: Record<string, unknown>;
      try {
        exported = await import(join(modules, dir.name, 'states.ts'));
      } catch {
        continue; // no states.ts
      }
      for (const [name, value] of Object.entries(exported)) {
        if (value && typeof value === 'object' && 'moves' in value && 'statuses' in value)
          expect(registered.has(value), `${dir.name}/states.ts ${name}`).toBe(true);
      }
    }
  });
});

describe('machines match the database', () => {
  let database: { url: string; name: string };
  let client: pg.Client;
  beforeAll(async () => {
    database = await freshDatabase();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await dropDatabase(database.name);
  });

  /** The values a column may hold: its enum's labels, or the list of its CHECK (col IN (...)) constraint. */
  async function allowed(table: string, column: string): Promise<string[]> {
    const { rows: enums } = await client.query<{ label: string }>(
      `SELECT e.enumlabel AS label FROM pg_attribute a JOIN pg_enum e ON e.enumtypid = a.atttypid
       WHERE a.attrelid = $1::regclass AND a.attname = $2 ORDER BY e.enumsortorder`,
      [table, column],
    );
    if (enums.length) return enums.map((e) => e.label);
    const { rows } = await client.query<{ def: string }>(
      `SELECT pg_get_constraintdef(c.oid) AS def FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
       WHERE c.conrelid = $1::regclass AND c.contype = 'c' AND a.attname = $2 AND array_length(c.conkey, 1) = 1`,
      [table, column],
    );
    const quoted = column === column.toLowerCase() ? column : `"${column}"`;
    const lists = rows.filter((r) => r.def.startsWith(`CHECK ((${quoted} = ANY (ARRAY[`));
    expect(lists, `${table}.${column}: one CHECK (${column} IN (...)) constraint`).toHaveLength(1);
    return [...lists[0].def.matchAll(/'([^']*)'::text/g)].map((m) => m[1]);
  }

  it.each(all.flatMap(([name, m]) => m.stored.map((c) => [name, c.table, c.column, m] as const)))(
    '%s: %s.%s',
    async (_, table, column, m) => {
      expect((await allowed(table, column)).toSorted()).toEqual([...m.statuses].toSorted());
    },
  );
});
