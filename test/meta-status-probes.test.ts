// The probes of test/helpers/status-literals.ts: each kind of hand-written status or event, edited into
// a real source file in memory, is reported at the line it was written; the file as it is reports nothing.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { machines } from '../src/modules/state-machines.ts';
import { literalFindings, ROOT, vocabularyOf } from './helpers/status-literals.ts';

const vocabulary = vocabularyOf(Object.values(machines));

interface Probe {
  name: string;
  file: string;
  /** Text the edit goes after (a unique line start in the file). */
  after: string;
  line: string;
  word: string;
}

const probes: Probe[] = [
  {
    name: 'own status in a comparison',
    file: 'src/modules/invoices/service.ts',
    after: 'export',
    line: "const isPaid = (row: { status: string }) => row.status === 'paid';",
    word: 'paid',
  },
  {
    name: "another module's status in SQL",
    file: 'src/modules/subscriptions/service.ts',
    after: 'export',
    line: "const openInvoices = q`SELECT id FROM invoices i WHERE i.status = 'open'`;",
    word: 'open',
  },
  {
    name: 'an IN list in SQL',
    file: 'src/modules/payments/write.ts',
    after: 'export',
    line: "const settled = `SELECT id FROM payments WHERE status IN ('succeeded','refunded')`;",
    word: 'refunded',
  },
  {
    name: 'a status in a const',
    file: 'src/modules/credit-notes/service.ts',
    after: 'export',
    line: "const PAID = 'paid';",
    word: 'paid',
  },
  {
    name: 'a template literal',
    file: 'src/modules/refunds/service.ts',
    after: 'export',
    line: 'const settledStatus = `succeeded`;',
    word: 'succeeded',
  },
  {
    name: 'a !== comparison',
    file: 'src/modules/members/service.ts',
    after: 'export',
    line: "const gone = (m: { status: string }) => m.status !== 'removed';",
    word: 'removed',
  },
  {
    name: 'a switch case',
    file: 'src/modules/payouts/disbursement.ts',
    after: 'export',
    line: "function label(s: string) { switch (s) { case 'in_transit': return 1; default: return 0; } }",
    word: 'in_transit',
  },
  {
    name: 'an event type given to emit',
    file: 'src/modules/payment-methods/service.ts',
    after: 'export',
    line: "const announce = (tx: never, scope: never, after: never) => emit(tx, scope, 'payment_method.revoked', after, {});",
    word: 'payment_method.revoked',
  },
  {
    name: 'a status in jobs/',
    file: 'jobs/invoice-past-due.ts',
    after: 'export',
    line: "const overdue = 'past_due';",
    word: 'past_due',
  },
  {
    name: 'a status in rest-compat/',
    file: 'rest-compat/routes.ts',
    after: 'export',
    line: "const refundedPayments = { status: 'refunded' };",
    word: 'refunded',
  },
  {
    name: "a Prisma where's status",
    file: 'src/modules/webhooks/outcomes.ts',
    after: 'export',
    line: "const failedDeliveries = (tx: any) => tx.webhookDelivery.findMany({ where: { status: 'failed' } });",
    word: 'failed',
  },
  {
    name: 'an array literal',
    file: 'src/dashboard/app/invoice.tsx',
    after: 'export',
    line: "const closed = (s: string) => ['paid', 'void'].includes(s);",
    word: 'void',
  },
];

/** `file` with `line` inserted before its first line starting with `after`; the line's number. */
function edited(p: Probe): { text: string; at: number } {
  const lines = readFileSync(join(ROOT, p.file), 'utf8').split('\n');
  const i = lines.findIndex((l) => l.startsWith(p.after));
  if (i < 0) throw new Error(`${p.file}: no line starts with ${p.after}`);
  lines.splice(i, 0, p.line);
  return { text: lines.join('\n'), at: i + 1 };
}

describe('the status checker sees each kind of hand-written status', () => {
  it('reports nothing in the probed files as they are', () => {
    for (const p of probes)
      expect(literalFindings(p.file, readFileSync(join(ROOT, p.file), 'utf8'), vocabulary), p.file).toEqual([]);
  });

  it.each(probes)('$name ($file)', (p) => {
    const { text, at } = edited(p);
    const found = literalFindings(p.file, text, vocabulary);
    expect(
      found.some((f) => f.startsWith(`${p.file}:${at} `) && f.endsWith(` '${p.word}'`)),
      found.join('\n'),
    ).toBe(true);
  });

  it('reports all 12 probes', () => {
    const caught = probes.filter((p) => {
      const { text, at } = edited(p);
      return literalFindings(p.file, text, vocabulary).some((f) => f.startsWith(`${p.file}:${at} `));
    });
    expect(caught.length).toBe(12);
  });

  it('leaves a trigger, a key, an emitter event and a declared vocabulary alone', () => {
    const text = [
      "import { nextState } from './x.ts';",
      "const move = nextState(invoiceMachine, from, 'void');",
      "const labels = { paid: 'Paid', 'svc.invoice.paid.v1': 'x' };",
      "pool.on('error', lost);",
      "type Verdict = 'expired' | 'invalid';",
      "if (v === 'expired') throw bad();",
    ].join('\n');
    expect(literalFindings('src/x.ts', text, vocabulary)).toEqual([]);
  });
});
