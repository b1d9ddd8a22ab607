/**
 * The bank phase (docs/reconciliation.md, Runs), one transaction: debits are ignored; credits are decided by
 * `decideBankCredit` in line order (a payout named, the batches named, N:1 and 1:N, then the amount pass), each
 * match posted under its match id with `settlement_batch.matched` per batch; then lateness
 * (`late_settlement`, once per batch). Batches a credit took are not offered to the next one.
 */
import { clock } from '../../../core/clock.ts';
import { sql, type Sql } from '../../../core/db/sql.ts';
import type { EventRow } from '../../../core/outbox.ts';
import { nextState } from '../../../core/state-machine.ts';
import {
  decideBankCredit,
  decideNamedBatches,
  isLate,
  lateSince,
  lineTokens,
  namesToken,
  type BankDecision,
  type PayoutCandidate,
} from '../rules/bank-match.ts';
import { exceptionAmounts } from '../rules/exceptions.ts';
import { defaultTransferFeeTolerance, toleranceFor } from '../rules/tolerances.ts';
import { batchMachine, rowMachine, type RowStatus } from '../states.ts';
import { inRunTx, type RunContext } from './context.ts';
import { BankWrites } from './bank-writes.ts';
import { bankRows, LATE, namedPayouts, UNKNOWN_CREDIT, unmatchedBatches, type UnmatchedBatch } from './bank-load.ts';
import { recordProgress } from './progress.ts';
import type { StagedRow } from './rows.ts';
import { newExceptionId, openExceptions, writeEvents } from './writes.ts';

const CREDIT = 'credit';
const batchOpen = batchMachine.moves.open.to;

export async function runBankPhase(c: RunContext) {
  await inRunTx(c, async (tx) => {
    const rows = await bankRows(tx, c);
    const batches = await unmatchedBatches(tx, c);
    const credits = rows.filter((r) => r.type === CREDIT);
    const payouts = await namedPayouts(tx, c, credits);
    const w = new BankWrites(c);
    ignoreDebits(c, rows, w);
    const available = new Map(batches.map((b) => [b.id, b]));
    for (const group of groupByNamedBatches(credits, batches, payouts)) {
      const decision = decideGroup(c, group, payouts, [...available.values()]);
      if (decision.decision === 'match' && decision.rule !== 'payout_reference')
        for (const a of decision.allocations) available.delete(a.batchId);
      if (decision.decision === 'match' && decision.rule === 'payout_reference')
        payouts.splice(
          payouts.findIndex((p) => p.id === decision.payoutId),
          1,
        );
      w.record(group.rows, decision, batches);
    }
    const events: EventRow[] = [];
    await w.write(tx, events);
    await raiseLate(tx, c, [...available.values()], events);
    await writeEvents(tx, events);
    await recordProgress(tx, c, 'bank', rows.length);
  });
}

function ignoreDebits(c: RunContext, rows: StagedRow[], w: BankWrites) {
  for (const r of rows)
    if (r.type !== CREDIT) {
      w.ignore(r.id, nextState(rowMachine, r.status as RowStatus, 'ignore').to);
      c.stats.rowsIgnored++;
    }
}

interface CreditGroup {
  rows: StagedRow[];
  /** Batches the credits name by settlement id (1:N: every credit naming the same set is summed). */
  named: UnmatchedBatch[];
}

/** Credits naming the same batches (and no payout) are decided together, on their sum; the rest one by one. */
function groupByNamedBatches(credits: StagedRow[], batches: UnmatchedBatch[], payouts: PayoutCandidate[]) {
  const groups = new Map<string, CreditGroup>();
  const out: CreditGroup[] = [];
  for (const r of credits) {
    const tokens = lineTokens({ reference: r.reference, description: r.description ?? '' });
    const namesPayout = payouts.some(
      (p) => namesToken(tokens, p.id) || (p.reference !== null && namesToken(tokens, p.reference)),
    );
    const named = batches.filter((b) => b.currency === r.currency && namesToken(tokens, b.settlementId));
    if (namesPayout || !named.length) {
      out.push({ rows: [r], named: [] });
      continue;
    }
    const key = named.map((b) => b.id).join(',');
    const g = groups.get(key);
    if (g) g.rows.push(r);
    else {
      const fresh = { rows: [r], named };
      groups.set(key, fresh);
      out.push(fresh);
    }
  }
  return out;
}

function decideGroup(
  c: RunContext,
  g: CreditGroup,
  payouts: PayoutCandidate[],
  available: UnmatchedBatch[],
): BankDecision {
  const first = g.rows[0];
  const band = toleranceFor(c.settings.transferFeeTolerance, first.currency, defaultTransferFeeTolerance);
  const sum = g.rows.reduce((s, r) => s + r.amount, 0n);
  if (g.named.length) {
    // A batch it names was taken by an earlier credit of this run: which credit pays what is a person's call.
    if (g.named.some((b) => !available.some((a) => a.id === b.id))) {
      const amounts = exceptionAmounts({ category: UNKNOWN_CREDIT, credit: sum });
      return { decision: 'raise', exception: { category: UNKNOWN_CREDIT, object: null, ...amounts, details: {} } };
    }
    return decideNamedBatches(sum, g.named, band);
  }
  return decideBankCredit(
    {
      currency: first.currency,
      amount: Number(first.amount),
      valueDate: (first.valueDate ?? new Date(0)).toISOString().slice(0, 10),
      reference: first.reference,
      description: first.description ?? '',
    },
    payouts,
    available,
    { dateToleranceDays: c.settings.dateToleranceDays, band, timeZone: c.settings.timeZone },
  );
}

/** Unmatched open batches `lateSettlementDays` past their expectedAt: late_settlement, once per batch. */
async function raiseLate(tx: Sql, c: RunContext, batches: UnmatchedBatch[], events: EventRow[]) {
  const now = clock.now();
  const { lateSettlementDays: days, timeZone } = c.settings;
  const late = batches.filter((b) => !b.lateExceptionId && isLate(b.expectedAt, now, days, timeZone));
  if (!late.length) return;
  const opened = await openExceptions(
    tx,
    c,
    late.map((b) => ({
      id: newExceptionId(),
      category: LATE,
      adapter: b.adapter,
      currency: b.currency,
      rowIds: [],
      objectType: 'settlement_batch',
      objectId: b.id,
      batchId: b.id,
      ...exceptionAmounts({ category: LATE, expected: b.expectedBankAmount }),
      details: { expectedAt: b.expectedAt.toISOString(), lateSince: lateSince(b.expectedAt, days, timeZone) },
    })),
    events,
  );
  if (!opened.size) return;
  await tx.query(
    sql`UPDATE recon_batches SET status = ${nextState(batchMachine, batchOpen, 'raise').to}, "updatedAt" = ${now}
      WHERE "workspaceId" = ${c.scope.workspaceId} AND mode = ${c.scope.mode}
        AND id = ANY(${late.map((b) => b.id)}::text[]) AND status = ${batchOpen}`,
  );
}
