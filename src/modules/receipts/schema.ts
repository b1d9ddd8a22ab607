import { builder } from '../../graphql/builder.ts';
import { exposeFields } from '../../graphql/fields.ts';
import type { Receipt as Row } from '../../generated/prisma/client.ts';
import { receiptFields, receiptSummaryFields } from './fields.ts';
import { getReceipt, getSessionReceipt, listReceipts } from './service.ts';

export const Receipt = builder.objectRef<Row>('Receipt').implement({
  description: 'A receipt as issued: frozen, never rewritten.',
  fields: (t) => exposeFields(t, receiptFields) as never,
});
export const ReceiptSummary = builder.objectRef<Row>('ReceiptSummary').implement({
  description: 'A receipt in lists.',
  fields: (t) => exposeFields(t, receiptSummaryFields) as never,
});

builder.queryFields((t) => ({
  receipt: t.field({ type: Receipt, args: { id: t.arg.id({ required: true }) }, resolve: (_, { id }, ctx) => getReceipt(ctx, String(id)) }),
  checkoutSessionReceipt: t.field({ type: Receipt, args: { id: t.arg.id({ required: true }) }, resolve: (_, { id }, ctx) => getSessionReceipt(ctx, String(id)) }),
  receipts: t.connection({
    type: ReceiptSummary,
    args: { sourceType: t.arg.string(), customerId: t.arg.string(), issuedAfter: t.arg({ type: 'DateTime' }), issuedBefore: t.arg({ type: 'DateTime' }) },
    resolve: (_, args, ctx) => listReceipts(ctx, args),
  }),
}));
