// The checkout sessions' reactions to the modules below them (src/core/reactions.ts), registered when
// this file loads: src/modules/reactions.ts imports it for every process.
import { invoicesClosed } from '../invoices/hooks.ts';
import { closeInvoiceSessions } from './invoice-sessions.ts';

// An invoice no longer payable expires its live session (invoice-sessions.ts).
invoicesClosed.register('checkout-sessions: expire invoice sessions', closeInvoiceSessions);
