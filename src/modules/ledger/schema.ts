import { builder } from '../../graphql/builder.ts';
import { admission } from '../../graphql/operation.ts';
import type { InputShapeFromFields } from '@pothos/core';
import { exposeFields, type ListArgs } from '../../graphql/fields.ts';
import { ledgerEntryFields, type BalanceRow, type EntryRow } from './fields.ts';
import { ledgerBalances, listLedgerEntries } from './service.ts';
import { cashFlowReport, pnlReport } from './reports.ts';

export const LedgerEntry = builder.objectRef<EntryRow>('LedgerEntry').implement({
  description: 'One leg of a balanced double-entry transaction (read-only).',
  fields: (t) => exposeFields(t, ledgerEntryFields),
});

const LedgerBalance = builder.objectRef<BalanceRow>('LedgerBalance').implement({
  description: 'Totals of one account code in one currency; balance = credits - debits.',
  fields: (t) => ({
    code: t.exposeString('code'),
    currency: t.exposeString('currency'),
    debits: t.field({ type: 'Money', resolve: (r) => r.debits }),
    credits: t.field({ type: 'Money', resolve: (r) => r.credits }),
    balance: t.field({ type: 'Money', resolve: (r) => r.balance }),
  }),
});

type Pnl = Awaited<ReturnType<typeof pnlReport>>;
type CashFlow = Awaited<ReturnType<typeof cashFlowReport>>;

const RevenueLine = builder.objectRef<Pnl['revenue'][number]>('RevenueLine').implement({
  fields: (t) => ({ code: t.exposeString('code'), amount: t.field({ type: 'Money', resolve: (r) => r.amount }) }),
});
const PnlReport = builder.objectRef<Pnl>('PnlReport').implement({
  description: 'DECISIONS §7 P&L of a period and currency (docs/ledger.md).',
  fields: (t) => ({
    from: t.exposeString('from'),
    to: t.exposeString('to'),
    currency: t.exposeString('currency'),
    revenue: t.field({ type: [RevenueLine], resolve: (r) => r.revenue }),
    totalRevenue: t.field({ type: 'Money', resolve: (r) => r.totalRevenue }),
    refunds: t.field({ type: 'Money', resolve: (r) => r.refunds }),
    fees: t.field({ type: 'Money', resolve: (r) => r.fees }),
    tax: t.field({ type: 'Money', resolve: (r) => r.tax }),
    netIncome: t.field({ type: 'Money', resolve: (r) => r.netIncome }),
  }),
});
const CashFlowDay = builder.objectRef<CashFlow['byDay'][number]>('CashFlowDay').implement({
  fields: (t) => ({
    date: t.exposeString('date'),
    inflows: t.field({ type: 'Money', resolve: (r) => r.inflows }),
    outflows: t.field({ type: 'Money', resolve: (r) => r.outflows }),
    balance: t.field({ type: 'Money', resolve: (r) => r.balance }),
  }),
});
const CashFlowReport = builder.objectRef<CashFlow>('CashFlowReport').implement({
  description: 'DECISIONS §7 cash flow of the settlement accounts over a period (docs/ledger.md).',
  fields: (t) => ({
    from: t.exposeString('from'),
    to: t.exposeString('to'),
    currency: t.exposeString('currency'),
    openingBalance: t.field({ type: 'Money', resolve: (r) => r.openingBalance }),
    inflows: t.field({ type: 'Money', resolve: (r) => r.inflows }),
    outflows: t.field({ type: 'Money', resolve: (r) => r.outflows }),
    closingBalance: t.field({ type: 'Money', resolve: (r) => r.closingBalance }),
    byDay: t.field({ type: [CashFlowDay], resolve: (r) => r.byDay }),
  }),
});

const listArgs = builder.args((t) => ({
  txId: t.string(),
  code: t.string(),
  sourceType: t.string(),
  sourceId: t.string(),
  order: t.string(),
}));
export type ListEntriesArgs = ListArgs<typeof listArgs>;
// A report is of a period: `from` and `to` are required here, and the REST routes and OpenAPI follow from it.
const reportArgs = builder.args((t) => ({
  from: t.string({ required: true }),
  to: t.string({ required: true }),
  currency: t.string(),
}));
export type ReportArgs = InputShapeFromFields<typeof reportArgs>;

builder.queryFields((t) => ({
  ledgerEntries: t.connection({
    ...admission({ resource: 'ledger', scope: 'svc:ledger:read' }),
    type: LedgerEntry,
    args: listArgs,
    resolve: (_, args, ctx) => listLedgerEntries(ctx, args),
  }),
  ledgerBalances: t.field({
    ...admission({ resource: 'ledger', scope: 'svc:ledger:read' }),
    type: [LedgerBalance],
    args: { currency: t.arg.string() },
    resolve: (_, { currency }, ctx) => ledgerBalances(ctx, currency),
  }),
  pnlReport: t.field({
    ...admission({ resource: 'ledger', scope: 'svc:report:read' }),
    type: PnlReport,
    args: reportArgs,
    resolve: (_, args, ctx) => pnlReport(ctx, args),
  }),
  cashFlowReport: t.field({
    ...admission({ resource: 'ledger', scope: 'svc:report:read' }),
    type: CashFlowReport,
    args: reportArgs,
    resolve: (_, args, ctx) => cashFlowReport(ctx, args),
  }),
}));
