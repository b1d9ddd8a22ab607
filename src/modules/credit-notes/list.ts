import { defineList, eq, oneOfValues } from '../../core/list-spec.ts';
import { listPageSize } from '../../core/pagination.ts';
import type { ListCreditNotesArgs } from './schema.ts';
import { creditNoteMachine } from './states.ts';

/** GET /v1/credit-notes, GraphQL `creditNotes` and `Invoice.creditNotes`: newest first. */
export const creditNoteList = defineList<ListCreditNotesArgs, 'createdAt'>({
  resource: 'credit_note',
  position: 'createdAt',
  limit: listPageSize.creditNotes,
  order: 'desc',
  filters: { invoiceId: eq(), customerId: eq(), status: oneOfValues(creditNoteMachine.statuses) },
});
