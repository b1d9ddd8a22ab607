import { builder } from '../../graphql/builder.ts';
import { exposeFields, statusesOf, type ListArgs } from '../../graphql/fields.ts';
import { admission } from '../../graphql/operation.ts';
import { invoiceFields, invoiceLineFields, type InvoiceRow } from './fields.ts';
import {
  createInvoice,
  finalizeInvoice,
  getInvoice,
  listInvoices,
  payInvoice,
  updateInvoice,
  voidInvoice,
} from './service.ts';
import { invoiceMachine } from './states.ts';

export const InvoiceLine = builder.prismaObject('InvoiceLine', {
  description: 'One line of an invoice: amount = quantity x unitAmount.',
  fields: (t) => exposeFields(t, invoiceLineFields),
});

export const Invoice = builder.objectRef<InvoiceRow>('Invoice').implement({
  description: 'An invoice: draft, then issued (numbered, locked), then paid or void.',
  fields: (t) => ({
    ...exposeFields(t, invoiceFields),
    // Loaded with the invoice (one query per list page), never per row.
    lines: t.field({ type: [InvoiceLine], resolve: (r) => r.lines }),
  }),
});

const InvoiceLineInput = builder.inputType('InvoiceLineInput', {
  fields: (t) => ({
    // Checked by the service, so a missing one is 400 VALIDATION_ERROR naming the field.
    description: t.string(),
    quantity: t.int(),
    unitAmount: t.field({ type: 'Money' }),
    priceId: t.string(),
    metadata: t.field({ type: 'Metadata' }),
  }),
});

const CreateInvoiceInput = builder.inputType('CreateInvoiceInput', {
  description: 'spec Invoices create. subtotal and total are computed by the server: sending them is refused.',
  fields: (t) => ({
    customerId: t.string(),
    currency: t.string(),
    lines: t.field({ type: [InvoiceLineInput] }),
    discount: t.field({ type: 'Money' }),
    tax: t.field({ type: 'Money' }),
    dueAt: t.field({ type: 'DateTime' }),
    status: t.string({ description: 'draft (default) or open.' }),
    memo: t.string({ description: 'At most 500 characters; stored in metadata.memo.' }),
    subscriptionId: t.string(),
    templateId: t.string({ description: 'A template of kind invoice.' }),
    couponId: t.string({
      description: 'A cpn_ coupon discounting the invoice before tax (at most one; docs/coupons.md).',
    }),
    applyCustomerBalance: t.boolean({
      description: "Finalization applies the customer's credit in the invoice currency (default true).",
    }),
    metadata: t.field({ type: 'Metadata', description: 'Custom keys; memo is reserved.' }),
    subtotal: t.field({ type: 'Money', deprecationReason: 'Computed by the server; refused when sent.' }),
    total: t.field({ type: 'Money', deprecationReason: 'Computed by the server; refused when sent.' }),
  }),
});
export type CreateInvoiceInput = typeof CreateInvoiceInput.$inferInput;

const UpdateInvoiceInput = builder.inputType('UpdateInvoiceInput', {
  description: 'Edits a draft (an extension): sent fields replace; lines as a whole; null clears.',
  fields: (t) => ({
    lines: t.field({ type: [InvoiceLineInput] }),
    discount: t.field({ type: 'Money' }),
    tax: t.field({ type: 'Money' }),
    dueAt: t.field({ type: 'DateTime' }),
    memo: t.string(),
    templateId: t.string(),
    couponId: t.string({ description: "A cpn_ coupon replacing the draft's; null removes it." }),
    metadata: t.field({ type: 'Metadata', description: 'Custom keys (memo is kept unless memo is sent).' }),
  }),
});
export type UpdateInvoiceInput = typeof UpdateInvoiceInput.$inferInput;

const listArgs = builder.args((t) => ({
  status: t.string(statusesOf(invoiceMachine)),
  customerId: t.string(),
  subscriptionId: t.string(),
  order: t.string(),
}));
export type ListInvoicesArgs = ListArgs<typeof listArgs>;

builder.queryFields((t) => ({
  invoice: t.field({
    ...admission({ resource: 'invoice', scope: 'svc:invoice:read' }),
    type: Invoice,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getInvoice(ctx, String(id)),
  }),
  invoices: t.connection({
    ...admission({ resource: 'invoice', scope: 'svc:invoice:read' }),
    type: Invoice,
    args: listArgs,
    resolve: (_, args, ctx) => listInvoices(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createInvoice: t.field({
    ...admission({ resource: 'invoice', scope: 'svc:invoice:write' }),
    type: Invoice,
    args: { input: t.arg({ type: CreateInvoiceInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => createInvoice(ctx, input),
  }),
  updateInvoice: t.field({
    ...admission({ resource: 'invoice', scope: 'svc:invoice:write' }),
    type: Invoice,
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateInvoiceInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_, { id, input }, ctx) => updateInvoice(ctx, String(id), input),
  }),
  finalizeInvoice: t.field({
    ...admission({ resource: 'invoice', scope: 'svc:invoice:write' }),
    type: Invoice,
    args: { id: t.arg.id({ required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { id }, ctx) => finalizeInvoice(ctx, String(id)),
  }),
  voidInvoice: t.field({
    ...admission({ resource: 'invoice', scope: 'svc:invoice:write', idempotencyKey: 'required' }),
    type: Invoice,
    args: { id: t.arg.id({ required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { id }, ctx) => voidInvoice(ctx, String(id)),
  }),
  payInvoice: t.field({
    ...admission({ resource: 'invoice', scope: 'svc:invoice:write', idempotencyKey: 'required' }),
    type: Invoice,
    args: { id: t.arg.id({ required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { id }, ctx) => payInvoice(ctx, String(id)),
  }),
}));
