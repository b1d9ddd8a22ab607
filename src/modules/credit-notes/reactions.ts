// The credit notes' reactions to the modules below them (src/core/reactions.ts), registered when this
// file loads: src/modules/reactions.ts imports it for every process.
import { voidHeld } from '../invoices/hooks.ts';
import { hasIssuedNote } from './service.ts';

// docs/credit-notes.md: an invoice with an issued credit note cannot be voided.
voidHeld.register('credit-notes: issued note', hasIssuedNote);
