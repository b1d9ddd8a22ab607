// The dashboard's GraphQL operations, one file per screen in operations/; `npm run codegen` types them
// (generated/operations.ts, codegen.yml).
export * from './operations/screens.ts';
export * from './operations/feed.ts';
export * from './operations/team.ts';
export * from './operations/invoices.ts';
export * from './operations/payouts.ts';
export * from './operations/billing.ts';
export * from './operations/webhooks.ts';
export * from './operations/reports.ts';
export * from './operations/settings.ts';
