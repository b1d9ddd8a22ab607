/**
 * A chunk's fee postings (docs/reconciliation.md, Postings): the fees, PPN and withholding its rows report,
 * summed per run and batch (txId `<rrun>:<rbat>`, or `<rrun>:<adapter>:<currency>` for rows without a batch)
 * through `rowFeeLegs`, and the tolerance differences of matches under their match id. A fee posted at capture
 * (`payment.fee`) is left out. Posted through the ledger's one writer.
 */
import { clock } from '../../../core/clock.ts';
import type { Sql } from '../../../core/db/sql.ts';
import { postLedgers, type LedgerPosting } from '../../../core/ledger.ts';
import { rowFeeLegs, toLedgerLegs, writeOffLegs, type FeeParts } from '../rules/postings.ts';
import type { LedgerObject } from '../rules/provider-match.ts';
import type { RunContext } from './context.ts';
import type { StagedRow } from './rows.ts';

interface Group {
  txId: string;
  sourceId: string;
  adapter: string;
  currency: string;
  parts: FeeParts[];
  rowIds: string[];
}

export const TOLERANCE_ACCOUNT = 'write_off:tolerance';

export class FeePostings {
  private groups = new Map<string, Group>();
  private extra: LedgerPosting[] = [];

  constructor(private readonly c: RunContext) {}

  /** A row's fees to post; returns the txId they go under, or null when it has nothing to post. */
  add(row: StagedRow, object: LedgerObject | null): string | null {
    const fee = object?.capturedFee ? 0n : row.fee;
    if (fee === 0n && row.feeVat === 0n && row.withholdingTax === 0n) return null;
    const adapter = row.adapter ?? '';
    const txId = row.batchId ? `${this.c.run.id}:${row.batchId}` : `${this.c.run.id}:${adapter}:${row.currency}`;
    let g = this.groups.get(txId);
    if (!g) {
      g = { txId, sourceId: row.batchId ?? this.c.run.id, adapter, currency: row.currency, parts: [], rowIds: [] };
      this.groups.set(txId, g);
    }
    g.parts.push({ fee, feeVat: row.feeVat, withholdingTax: row.withholdingTax });
    g.rowIds.push(row.id);
    return txId;
  }

  /** A difference inside amountTolerance, posted to `write_off:tolerance` under the match. */
  tolerance(matchId: string, row: StagedRow, difference: bigint) {
    if (difference === 0n) return;
    const legs = writeOffLegs({
      category: 'amount_mismatch',
      difference,
      account: TOLERANCE_ACCOUNT,
      adapter: row.adapter ?? '',
    });
    this.extra.push(this.posting(matchId, matchId, row.currency, legs));
  }

  /** Writes the postings; returns each posted row's txId. */
  async post(tx: Sql): Promise<Map<string, string>> {
    const postings = [...this.extra];
    const byRow = new Map<string, string>();
    for (const g of this.groups.values()) {
      const legs = rowFeeLegs(g.adapter, g.parts);
      if (!legs.length) continue;
      postings.push(this.posting(g.txId, g.sourceId, g.currency, legs));
      for (const id of g.rowIds) byRow.set(id, g.txId);
    }
    await postLedgers(tx, this.c.scope, postings);
    return byRow;
  }

  private posting(txId: string, sourceId: string, currency: string, legs: Parameters<typeof toLedgerLegs>[0]) {
    return {
      txId,
      currency,
      sourceType: 'reconciliation' as const,
      sourceId,
      postedAt: clock.now(),
      legs: toLedgerLegs(legs),
    };
  }
}
