import { builder } from '../../graphql/builder.ts';
import { admission } from '../../graphql/operation.ts';
import { exposeFields, type ListArgs } from '../../graphql/fields.ts';
import { documentType, emailResultType } from '../documents/schema.ts';
import { receiptFields, receiptSummaryFields } from './fields.ts';
import { emailReceipt, getReceipt, getSessionReceipt, listReceipts, receiptDocument } from './service.ts';

export const Receipt = builder.prismaObject('Receipt', {
  description: 'A receipt as issued: frozen, never rewritten.',
  fields: (t) => exposeFields(t, receiptFields),
});
export const ReceiptSummary = builder.prismaObject('Receipt', {
  variant: 'ReceiptSummary',
  description: 'A receipt in lists.',
  fields: (t) => exposeFields(t, receiptSummaryFields),
});

export const listArgs = builder.args((t) => ({
  sourceType: t.string(),
  customerId: t.string(),
  issuedAfter: t.field({ type: 'DateTime' }),
  issuedBefore: t.field({ type: 'DateTime' }),
}));
export type ListReceiptsArgs = ListArgs<typeof listArgs>;

builder.queryFields((t) => ({
  receipt: t.field({
    ...admission({ resource: 'receipt', scope: 'svc:checkout:read' }),
    type: Receipt,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getReceipt(ctx, String(id)),
  }),
  checkoutSessionReceipt: t.field({
    ...admission({ resource: 'receipt', scope: 'svc:checkout:read' }),
    type: Receipt,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getSessionReceipt(ctx, String(id)),
  }),
  receipts: t.connection({
    ...admission({ resource: 'receipt', scope: 'svc:checkout:read' }),
    type: ReceiptSummary,
    args: listArgs,
    resolve: (_, args, ctx) => listReceipts(ctx, args),
  }),
}));

const ReceiptDocument = documentType('ReceiptDocument');
const ReceiptEmailResult = emailResultType('ReceiptEmailResult');

builder.queryFields((t) => ({
  receiptDocument: t.field({
    ...admission({ resource: 'receipt', scope: 'svc:checkout:read' }),
    type: ReceiptDocument,
    description: 'format: pdf, html or escpos; width (escpos): 58 or 80 (default).',
    args: { id: t.arg.id({ required: true }), format: t.arg.string({ required: true }), width: t.arg.int() },
    resolve: (_, { id, format, width }, ctx) => receiptDocument(ctx, String(id), format, width),
  }),
}));

builder.mutationFields((t) => ({
  emailReceipt: t.field({
    ...admission({ resource: 'receipt', scope: 'svc:checkout:write' }),
    type: ReceiptEmailResult,
    args: { id: t.arg.id({ required: true }), to: t.arg.string(), idempotencyKey: t.arg.string() },
    resolve: (_, { id, to }, ctx) => emailReceipt(ctx, String(id), to),
  }),
}));
