// Bank row keys (docs/reconciliation.md, Row keys): the statement's own line id when it has one, else the
// line's values and their occurrence inside the file, so the same statement imported twice yields the same keys.
import { sha256Hex } from './hash.ts';
import type { BankRowInput } from './types.ts';
import { copyString, rowError } from './values.ts';

export type BankFields = Omit<BankRowInput, 'line' | 'rowKey'>;

/** Keys the bank rows of one file: counts each value tuple and refuses a line id seen twice. */
export class BankRowKeys {
  private readonly occurrences = new Map<string, number>();
  private readonly lineIds = new Set<string>();

  constructor(private readonly lineIdField: string) {}

  row(line: number, fields: BankFields): BankRowInput {
    let rowKey: string;
    if (fields.lineId !== null) {
      if (this.lineIds.has(fields.lineId))
        throw rowError(this.lineIdField, line, `line id "${fields.lineId}" appears twice in the file`);
      this.lineIds.add(copyString(fields.lineId));
      rowKey = `id:${fields.lineId}`;
    } else {
      const text = sha256Hex(`${fields.description}\u0000${fields.reference ?? ''}`);
      const tuple = `h:${fields.valueDate}:${fields.direction}:${fields.amount}:${fields.currency}:${text}`;
      const n = (this.occurrences.get(tuple) ?? 0) + 1;
      this.occurrences.set(tuple, n);
      rowKey = `${tuple}:${n}`;
    }
    return { line, ...fields, rowKey };
  }
}
