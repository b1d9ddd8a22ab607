/**
 * The invoice state machine (spec States: Invoice, plus the moves it leaves open: docs/decisions.md,
 * Invoices). Every change goes through `nextState` (src/core/state-machine.ts); a move the table
 * does not list is 409 conflict, and the SQL's status lists come from here.
 */
import { defineMachine, statusesWhere, type StatusOf, type TriggerOf } from '../../core/state-machine.ts';
import type { finalActions } from '../dunning-policies/service.ts';

export const invoiceMachine = defineMachine({
  noun: 'invoice',
  resource: 'invoice',
  stored: [{ table: 'invoices', column: 'status' }],
  statuses: ['draft', 'open', 'past_due', 'paid', 'void', 'uncollectible'],
  conflict: 'conflict',
  moves: {
    /** POST /v1/invoices (status draft, the default). */
    create: { from: [null], to: 'draft', events: ['svc.invoice.created.v1'] },
    /** POST /v1/invoices with status open: numbered at once; spec emits only the finalized event. */
    create_open: { from: [null], to: 'open', events: ['svc.invoice.finalized.v1'], label: 'create open' },
    /** POST /v1/invoices/:id/finalize: issuedAt, number and hosted URL (already open: idempotent, service.ts). */
    finalize: { from: ['draft'], to: 'open', events: ['svc.invoice.finalized.v1'] },
    /**
     * Paid: POST /pay (bookkeeping), the hosted page, auto-collection, or a zero total at finalization.
     * past_due and uncollectible are still collectible (spec: pay's 409 names only paid and void).
     */
    pay: { from: ['open', 'past_due', 'uncollectible'], to: 'paid', events: ['svc.invoice.paid.v1'] },
    /** The sweep: an open invoice whose dueAt passed (spec: automatic, cannot be set explicitly; no event). */
    mark_past_due: { from: ['open'], to: 'past_due', label: 'mark past due' },
    /** Dunning gave up (`finalAction: uncollectible`); no spec event. */
    mark_uncollectible: { from: ['open', 'past_due'], to: 'uncollectible', label: 'mark uncollectible' },
    /** POST /v1/invoices/:id/void: paid invoices are refunded instead. */
    void: { from: ['draft', 'open', 'past_due', 'uncollectible'], to: 'void', events: ['svc.invoice.voided.v1'] },
  },
});

export const invoiceStatuses = invoiceMachine.statuses;
export type InvoiceStatus = StatusOf<typeof invoiceMachine>;
export type InvoiceTrigger = TriggerOf<typeof invoiceMachine>;

/** The status lines, discount and tax may still change in (the DB trigger says the same). */
export const invoiceDraft = invoiceMachine.moves.create.to;
/** Where finalize leads (issued, numbered, collectible). */
export const invoiceOpen = invoiceMachine.moves.finalize.to;
export const invoicePaid = invoiceMachine.moves.pay.to;
export const invoicePastDue = invoiceMachine.moves.mark_past_due.to;
export const invoiceVoid = invoiceMachine.moves.void.to;
export const invoiceUncollectible = invoiceMachine.moves.mark_uncollectible.to;
/**
 * What a dunning policy's `finalAction` closes an unpaid invoice as: its words are invoice statuses
 * (test/state-machines-used.test.ts checks them against this table).
 */
export type InvoiceClose = (typeof finalActions)[number];
/** Closing by voiding (a subscription's expiry, a canceled subscription's open invoice). */
export const invoiceCloseVoid = invoiceVoid as InvoiceClose;
/** Issued and unpaid: finalize answers these with the invoice as it is (spec: "Already open: idempotent success"). */
export const invoiceIssuedUnpaid = statusesWhere(invoiceMachine, 'mark_uncollectible');
/** Collectible: what pay and the hosted page accept. */
export const invoicePayable = statusesWhere(invoiceMachine, 'pay');
/** Where the past-due sweep looks. */
export const invoiceSweepable = statusesWhere(invoiceMachine, 'mark_past_due');
