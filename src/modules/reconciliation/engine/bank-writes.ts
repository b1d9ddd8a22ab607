/**
 * The bank phase's writes (docs/reconciliation.md, Runs): bank matches posted under their match id (D payout, D
 * gateway transfer fee / C settlement; a payout's bank fee D gateway:bank / C payout), matched batches with
 * `settlement_batch.matched`, the credits' rows, their exceptions, and the auto-resolution of the late batches'
 * and the credits' earlier exceptions.
 */
import { clock } from '../../../core/clock.ts';
import { sql, toJson, type Sql } from '../../../core/db/sql.ts';
import { postLedgers, type LedgerPosting } from '../../../core/ledger.ts';
import { eventRow, type EventRow } from '../../../core/outbox.ts';
import { nextState } from '../../../core/state-machine.ts';
import type { ReconBatch } from '../../../generated/prisma/client.ts';
import { batchSnapshot } from '../fields.ts';
import type { BankDecision } from '../rules/bank-match.ts';
import { bankMatchLegs, payoutBankFeeLegs, toLedgerLegs, type PostingLeg } from '../rules/postings.ts';
import { batchMachine, rowMachine, type RowStatus } from '../states.ts';
import type { UnmatchedBatch } from './bank-load.ts';
import type { RunContext } from './context.ts';
import type { StagedRow } from './rows.ts';
import {
  autoResolve,
  insertMatches,
  newExceptionId,
  newMatchId,
  openExceptions,
  updateRows,
  type NewException,
  type NewMatch,
  type RowUpdate,
} from './writes.ts';

interface BatchUpdate {
  id: string;
  matchId: string;
  bankRowIds: string[];
  bankAmount: bigint;
  transferFee: bigint;
}

export class BankWrites {
  private matches: NewMatch[] = [];
  private postings: LedgerPosting[] = [];
  private exceptions: NewException[] = [];
  private updates: RowUpdate[] = [];
  private batches: BatchUpdate[] = [];
  private raised = new Set<string>();
  private resolve: string[] = [];

  constructor(private readonly c: RunContext) {}

  ignore(id: string, status: string) {
    this.updates.push(rowUpdate(id, status, null, null, null));
  }

  record(rows: StagedRow[], d: BankDecision, batches: UnmatchedBatch[]) {
    if (d.decision === 'wait') return;
    if (d.decision === 'raise') return this.raise(rows, d, batches);
    const matchId = newMatchId();
    const ids = rows.map((r) => r.id);
    const currency = rows[0].currency;
    const credited = rows.reduce((s, r) => s + r.amount, 0n);
    if (d.rule === 'payout_reference') {
      this.post(matchId, currency, payoutBankFeeLegs(d.bankFee));
      this.match({ id: matchId, rule: d.rule, rowIds: ids, currency, transferFee: d.bankFee }, [
        { type: 'payout', id: d.payoutId },
      ]);
      for (const r of rows) this.matchRow(r, matchId, 'payout', d.payoutId);
      return;
    }
    const taken = d.allocations.map((a) => batches.find((b) => b.id === a.batchId) as UnmatchedBatch);
    const expected = taken.reduce((s, b) => s + BigInt(b.expectedBankAmount), 0n);
    this.post(matchId, currency, bankMatchLegs(taken[0].adapter, expected, credited));
    this.match(
      { id: matchId, rule: d.rule, rowIds: ids, currency, transferFee: d.transferFee },
      taken.map((b) => ({ type: 'settlement_batch' as const, id: b.id })),
    );
    for (const a of d.allocations)
      this.batches.push({
        id: a.batchId,
        matchId,
        bankRowIds: ids,
        bankAmount: a.bankAmount,
        transferFee: a.transferFee,
      });
    for (const b of taken) if (b.lateExceptionId) this.resolve.push(b.lateExceptionId);
    const single = taken.length === 1 ? taken[0].id : null;
    for (const r of rows) this.matchRow(r, matchId, single ? 'settlement_batch' : null, single);
    this.c.stats.batchesMatched += taken.length;
  }

  private match(
    m: Pick<NewMatch, 'id' | 'rule' | 'rowIds' | 'currency' | 'transferFee'>,
    objects: NewMatch['objects'],
  ) {
    const batchIds = objects.filter((o) => o.type === 'settlement_batch').map((o) => o.id);
    this.matches.push({ ...m, kind: 'bank', objects, batchIds, difference: 0n, ledgerTxId: m.id });
  }

  private matchRow(r: StagedRow, matchId: string, objectType: string | null, objectId: string | null) {
    const to = nextState(rowMachine, r.status as RowStatus, 'match').to;
    this.updates.push({ ...rowUpdate(r.id, to, matchId, objectType, objectId), matchedBy: 'auto' });
    if (r.openExceptionId) this.resolve.push(r.openExceptionId);
    this.c.stats.rowsMatched++;
    this.c.stats.rowsAutoMatched++;
  }

  private raise(rows: StagedRow[], d: Extract<BankDecision, { decision: 'raise' }>, batches: UnmatchedBatch[]) {
    const fresh = rows.filter((r) => !r.openExceptionId);
    if (!fresh.length) return; // still unexplained: the open exception stays
    const e = d.exception;
    const lastId = e.object ? e.object.ids[e.object.ids.length - 1] : null;
    const batch = e.object?.type === 'settlement_batch' ? batches.find((b) => b.id === lastId) : undefined;
    const id = newExceptionId();
    this.exceptions.push({
      id,
      category: e.category,
      adapter: batch?.adapter ?? null,
      currency: fresh[0].currency,
      rowIds: fresh.map((r) => r.id),
      objectType: e.object?.type ?? null,
      objectId: lastId,
      batchId: batch?.id ?? null,
      expectedAmount: e.expectedAmount,
      actualAmount: e.actualAmount,
      difference: e.difference,
      details: e.details,
    });
    if (batch && batch.status === batchMachine.moves.open.to) this.raised.add(batch.id);
    for (const r of fresh)
      this.updates.push({
        ...rowUpdate(r.id, nextState(rowMachine, r.status as RowStatus, 'raise').to, null, null, null),
        exceptionId: id,
      });
    this.c.stats.rowsException += fresh.length;
  }

  private post(txId: string, currency: string, legs: PostingLeg[]) {
    if (!legs.length) return;
    const posting = { txId, currency, sourceType: 'reconciliation' as const, sourceId: txId, postedAt: clock.now() };
    this.postings.push({ ...posting, legs: toLedgerLegs(legs) });
  }

  async write(tx: Sql, events: EventRow[]) {
    const c = this.c;
    for (const m of this.matches) if (!this.postings.some((p) => p.txId === m.id)) m.ledgerTxId = null;
    await insertMatches(tx, c, this.matches);
    await postLedgers(tx, c.scope, this.postings);
    const opened = await openExceptions(tx, c, this.exceptions, events);
    for (const u of this.updates) if (u.exceptionId && !opened.has(u.exceptionId)) u.exceptionId = null;
    await updateRows(tx, c, this.updates);
    await this.writeBatches(tx, events);
    await autoResolve(tx, c, this.resolve, events);
  }

  private async writeBatches(tx: Sql, events: EventRow[]) {
    const c = this.c;
    const now = clock.now();
    const match = nextState(batchMachine, batchMachine.moves.open.to, 'match');
    if (this.batches.length) {
      const matched = await tx.query<ReconBatch>(
        sql`UPDATE recon_batches b SET status = ${match.to}, "matchId" = u."matchId", "bankRowIds" = u."bankRowIds",
            "bankAmount" = u."bankAmount", "transferFee" = u."transferFee", "matchedAt" = ${now}, "updatedAt" = ${now}
          FROM jsonb_to_recordset(${toJson(this.batches)}::jsonb)
            AS u(id text, "matchId" text, "bankRowIds" text[], "bankAmount" bigint, "transferFee" bigint)
          WHERE b."workspaceId" = ${c.scope.workspaceId} AND b.mode = ${c.scope.mode} AND b.id = u.id
          RETURNING b.*`,
      );
      for (const b of matched)
        for (const type of match.events)
          events.push(
            eventRow(c.scope, type, batchSnapshot({ ...b, accountId: c.accountId }), { source: 'reconciliation' }),
          );
    }
    if (this.raised.size)
      await tx.query(
        sql`UPDATE recon_batches SET status = ${nextState(batchMachine, batchMachine.moves.open.to, 'raise').to},
            "updatedAt" = ${now}
          WHERE "workspaceId" = ${c.scope.workspaceId} AND mode = ${c.scope.mode} AND id = ANY(${[...this.raised]}::text[])`,
      );
  }
}

const rowUpdate = (
  id: string,
  status: string,
  matchId: string | null,
  objectType: string | null,
  objectId: string | null,
): RowUpdate => ({ id, status, matchId, objectType, objectId, matchedBy: null, ledgerTxId: null, exceptionId: null });
