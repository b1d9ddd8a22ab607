import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { bound, custom, defineList, eq, oneOfValues } from '../../src/core/list-spec.ts';
import { checkCurrency } from '../../src/core/validation.ts';
import { refundList } from '../../src/modules/refunds/list.ts';
import { refundMachine } from '../../src/modules/refunds/states.ts';

const ROOT = join(import.meta.dirname, '../..');

const thrown = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    const d = e as { status: number; message: string; extensions: { code: string; field?: string } };
    return { status: d.status, code: d.extensions.code, field: d.extensions.field, message: d.message };
  }
  return null;
};

describe('one list spec per module', () => {
  it('no module checks a list filter by hand: "status must be one of" is written by the spec only', () => {
    const handWritten: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (p.endsWith('.ts') && /status must be one of/.test(readFileSync(p, 'utf8')))
          handWritten.push(p.slice(ROOT.length + 1));
      }
    };
    walk(join(ROOT, 'src/modules'));
    expect(handWritten).toEqual([]);
  });

  it("a spec's allowed statuses are its machine's, with the list's spelling and field", () => {
    expect(refundList.filters.status).toEqual({ kind: 'oneOf', values: refundMachine.statuses });
    expect(thrown(() => refundList.check({ status: 'nope' }))).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
      field: 'status',
      message: `status must be one of ${refundMachine.statuses.join(', ')}`,
    });
    expect(thrown(() => refundList.check({ status: 'succeeded', order: 'sideways' }))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'order',
    });
    expect(thrown(() => refundList.check({ status: 'succeeded', order: 'asc' }))).toBeNull();
  });

  it('one declaration gives the cursor binding, the SQL and the Prisma conditions', () => {
    const list = defineList<
      { status?: string | null; currency?: string | null; from?: Date | null; since?: Date | null; order?: string },
      'createdAt'
    >({
      resource: 'payout',
      position: 'createdAt',
      limit: 20,
      order: 'desc',
      filters: {
        status: oneOfValues(['paid', 'failed']),
        currency: eq('cur', checkCurrency),
        from: bound('createdAt', '>='),
        since: custom(),
      },
    });
    const at = new Date('2026-01-02T03:04:05.000Z');
    const args = { status: 'paid', from: at, since: at };
    expect(list.values(args)).toEqual({
      status: 'paid',
      currency: null,
      from: at.toISOString(),
      since: at.toISOString(),
    });
    const where = list.where(args, 'p');
    expect(where.text).toBe(' AND "p"."status" = $1 AND "p"."createdAt" >= $2');
    expect(where.values).toEqual(['paid', at]);
    expect(list.prisma(args)).toEqual([{ status: 'paid' }, { createdAt: { gte: at } }]);
    expect(list.paged({ order: 'asc' })).toEqual({ order: 'desc' });
    // A forced order takes no `order` argument to check; a filter's own check runs once, here.
    expect(thrown(() => list.check({ order: 'sideways' }))).toBeNull();
    expect(thrown(() => list.check({ currency: 'usd' }))).toMatchObject({
      code: 'validation_error',
      field: 'currency',
    });
  });
});
