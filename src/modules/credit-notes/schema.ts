import { builder } from '../../graphql/builder.ts';
import { exposeFields, statusesOf, type ListArgs } from '../../graphql/fields.ts';
import { admission } from '../../graphql/operation.ts';
import { creditNoteFields, creditNoteLineFields, type CreditNotePreview } from './fields.ts';
import { createCreditNote, getCreditNote, listCreditNotes, previewCreditNote, voidCreditNote } from './service.ts';
import { creditNoteMachine } from './states.ts';
import { linesOfCreditNote } from './loaders.ts';
import { documentType } from '../documents/schema.ts';
import { creditNoteDocument, creditNotePdfUrlOf, sendCreditNoteEmail } from './documents.ts';
import { emailResultType } from '../documents/schema.ts';
import type { CreditNoteLine as CreditNoteLineRow } from '../../generated/prisma/client.ts';

export const CreditNoteLine = builder.objectRef<CreditNoteLineRow>('CreditNoteLine').implement({
  description: 'One line of a credit note: amount = quantity x unitAmount (frozen at issue).',
  fields: (t) => exposeFields(t, creditNoteLineFields),
});

export const CreditNote = builder.objectRef<CreditNotePreview>('CreditNote').implement({
  description: 'A numbered correction of an issued invoice: issued, then possibly void.',
  fields: (t) => ({
    ...exposeFields(t, creditNoteFields),
    // Loaded with the note by the service; an edge's notes (Invoice.creditNotes) read theirs batched.
    lines: t.field({
      type: [CreditNoteLine],
      resolve: (r, _, ctx, info) => (r.lines ? r.lines : linesOfCreditNote(ctx, r.id, info)),
    }),
  }),
});

const CreditNoteLineInput = builder.inputType('CreditNoteLineInput', {
  description: 'An invoice line by quantity or by amount, or a custom line (description, quantity, unitAmount).',
  fields: (t) => ({
    invoiceLineId: t.string(),
    quantity: t.int(),
    amount: t.field({ type: 'Money' }),
    description: t.string(),
    unitAmount: t.field({ type: 'Money' }),
  }),
});

const CreateCreditNoteInput = builder.inputType('CreateCreditNoteInput', {
  description: 'Exactly one of lines or amount. The post-payment part goes to credit unless the parts are sent.',
  fields: (t) => ({
    invoiceId: t.string(),
    lines: t.field({ type: [CreditNoteLineInput] }),
    amount: t.field({ type: 'Money' }),
    reason: t.string(),
    memo: t.string(),
    metadata: t.field({ type: 'Metadata' }),
    refundAmount: t.field({ type: 'Money' }),
    creditAmount: t.field({ type: 'Money' }),
    outOfBandAmount: t.field({ type: 'Money' }),
  }),
});
export type CreateCreditNoteInput = typeof CreateCreditNoteInput.$inferInput;

export const listArgs = builder.args((t) => ({
  invoiceId: t.string(),
  customerId: t.string(),
  status: t.string(statusesOf(creditNoteMachine)),
}));
export type ListCreditNotesArgs = ListArgs<typeof listArgs>;

builder.queryFields((t) => ({
  creditNote: t.field({
    ...admission({ resource: 'credit_note', scope: 'svc:credit_note:read' }),
    type: CreditNote,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getCreditNote(ctx, String(id)),
  }),
  creditNotes: t.connection({
    ...admission({ resource: 'credit_note', scope: 'svc:credit_note:read' }),
    type: CreditNote,
    args: listArgs,
    resolve: (_, args, ctx) => listCreditNotes(ctx, args),
  }),
  previewCreditNote: t.field({
    ...admission({ resource: 'credit_note', scope: 'svc:credit_note:read' }),
    type: CreditNote,
    args: { input: t.arg({ type: CreateCreditNoteInput, required: true }) },
    resolve: (_, { input }, ctx) => previewCreditNote(ctx, input),
  }),
}));

builder.mutationFields((t) => ({
  createCreditNote: t.field({
    ...admission({
      resource: 'credit_note',
      scope: 'svc:credit_note:write',
      rateClass: 'mutating_heavy',
      idempotencyKey: 'required',
    }),
    type: CreditNote,
    args: { input: t.arg({ type: CreateCreditNoteInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => createCreditNote(ctx, input),
  }),
  voidCreditNote: t.field({
    ...admission({ resource: 'credit_note', scope: 'svc:credit_note:write', idempotencyKey: 'required' }),
    type: CreditNote,
    args: { id: t.arg.id({ required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { id }, ctx) => voidCreditNote(ctx, String(id)),
  }),
}));

const CreditNoteDocument = documentType('CreditNoteDocument');
const CreditNoteEmailResult = emailResultType('CreditNoteEmailResult');

builder.objectField(CreditNote, 'pdfUrl', (t) =>
  t.string({
    nullable: true,
    description: 'A signed link to the PDF, valid about 5 minutes (what GET /v1/credit-notes/:id/pdf redirects to).',
    resolve: (n, _, ctx) => creditNotePdfUrlOf(ctx, n),
  }),
);

builder.mutationFields((t) => ({
  sendCreditNoteEmail: t.field({
    ...admission({ resource: 'credit_note', scope: 'svc:credit_note:write' }),
    type: CreditNoteEmailResult,
    description: 'Emails the credit note PDF to `to` or the customer; sent false: kept in the development outbox.',
    args: { id: t.arg.id({ required: true }), to: t.arg.string(), idempotencyKey: t.arg.string() },
    resolve: (_, { id, to }, ctx) => sendCreditNoteEmail(ctx, String(id), to),
  }),
}));

builder.queryFields((t) => ({
  creditNoteDocument: t.field({
    ...admission({ resource: 'credit_note', scope: 'svc:credit_note:read' }),
    type: CreditNoteDocument,
    description: 'format: pdf, html or escpos; width (escpos): 58 or 80 (default).',
    args: { id: t.arg.id({ required: true }), format: t.arg.string({ required: true }), width: t.arg.int() },
    resolve: (_, { id, format, width }, ctx) => creditNoteDocument(ctx, String(id), format, width),
  }),
}));
