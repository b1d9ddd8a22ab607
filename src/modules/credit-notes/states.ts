/**
 * The credit note state machine (docs/credit-notes.md): create is issue (numbered, no drafts), then
 * `void` only; a voided note keeps its number. A move the table does not list is 409 conflict.
 */
import { defineMachine, type StatusOf } from '../../core/state-machine.ts';

export const creditNoteMachine = defineMachine({
  noun: 'credit note',
  resource: 'credit_note',
  stored: [{ table: 'credit_notes', column: 'status' }],
  statuses: ['issued', 'void'],
  conflict: 'conflict',
  message: (from) => `The credit note is ${from}; it can no longer change`,
  moves: {
    /** POST /v1/credit-notes: numbered from the `credit_note` counter, effects in the same transaction. */
    issue: { from: [null], to: 'issued', events: ['svc.credit_note.issued.v1'] },
    /** POST /v1/credit-notes/:id/void: every effect reversed (the rules: service.ts voidCreditNote). */
    void: { from: ['issued'], to: 'void', events: ['svc.credit_note.voided.v1'] },
  },
});

export type CreditNoteStatus = StatusOf<typeof creditNoteMachine>;
export const creditNoteIssued = creditNoteMachine.moves.issue.to;

export const creditNoteReasons = [
  'duplicate',
  'fraudulent',
  'order_change',
  'product_unsatisfactory',
  'other',
] as const;
