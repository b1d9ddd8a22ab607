/**
 * Reports (shapes: spec Response shapes), computed from ledger codes alone (docs/ledger.md):
 * - P&L: revenue = credits - debits of `payments` and `revenue:*` (tax already taken out of
 *   `payments` at capture); refunds = debits - credits of `refunds`; fees of `gateway:*`; tax =
 *   credits - debits of `tax:*`; netIncome = totalRevenue - refunds - fees.
 * - Cash flow: cash is the merchant's money held in `settlement:*`; inflows are its debits
 *   (captured payments), outflows its credits (fees, refunds, paid payouts).
 */
import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant } from '../../core/db/client.ts';
import { checkCurrency } from '../../core/validation.ts';
import { daySums, isoDay, parsePeriod, startOfDay, type Period } from './period.ts';
import type { ReportArgs } from './schema.ts';

const DAY = 86_400_000;

async function currencyFor(ctx: Context, auth: ReturnType<typeof authorize>, currency?: string | null) {
  if (currency != null) return checkCurrency(currency, 'currency', 'ledger');
  return (
    await inTenant(tenant(auth), (tx) =>
      tx.workspace.findUniqueOrThrow({ where: { id: auth.workspaceId }, select: { defaultCurrency: true } }),
    )
  ).defaultCurrency;
}

const wireDate = (d: Date) => d.toISOString();
const inclusiveTo = (p: Period) => new Date(p.until.getTime() - 1);

export async function pnlReport(ctx: Context, args: ReportArgs) {
  const auth = authorize(ctx, 'svc:report:read');
  const p = parsePeriod(args.from, args.to, 'ledger');
  const currency = await currencyFor(ctx, auth, args.currency);
  const byCode = new Map<string, bigint>(); // credits - debits
  for (const s of await daySums(auth, currency, p))
    byCode.set(s.code, (byCode.get(s.code) ?? 0n) + s.credits - s.debits);
  const revenue = [...byCode]
    .filter(([code]) => code === 'payments' || code.startsWith('revenue:'))
    .map(([code, amount]) => ({ code, amount }));
  const sum = (pred: (code: string) => boolean) => [...byCode].filter(([c]) => pred(c)).reduce((s, [, v]) => s + v, 0n);
  const totalRevenue = revenue.reduce((s, r) => s + r.amount, 0n);
  const refunds = -sum((c) => c === 'refunds');
  const fees = -sum((c) => c.startsWith('gateway:'));
  const tax = sum((c) => c.startsWith('tax:'));
  return {
    from: wireDate(p.from),
    to: wireDate(inclusiveTo(p)),
    currency,
    revenue,
    totalRevenue,
    refunds,
    fees,
    tax,
    netIncome: totalRevenue - refunds - fees,
  };
}

export async function cashFlowReport(ctx: Context, args: ReportArgs) {
  const auth = authorize(ctx, 'svc:report:read');
  const p = parsePeriod(args.from, args.to, 'ledger');
  const currency = await currencyFor(ctx, auth, args.currency);
  const cash = 'settlement:%';
  const before = await daySums(auth, currency, { from: new Date(0), until: p.from }, cash);
  const openingBalance = before.reduce((s, r) => s + r.debits - r.credits, 0n);
  const days = new Map<string, { inflows: bigint; outflows: bigint }>();
  for (const s of await daySums(auth, currency, p, cash)) {
    const d = days.get(s.day) ?? { inflows: 0n, outflows: 0n };
    d.inflows += s.debits;
    d.outflows += s.credits;
    days.set(s.day, d);
  }
  // Every day of the period, movement or not, with the running balance at its end.
  const byDay = [];
  let balance = openingBalance;
  let inflows = 0n;
  let outflows = 0n;
  for (let t = startOfDay(p.from).getTime(); t < p.until.getTime(); t += DAY) {
    const date = isoDay(new Date(t));
    const d = days.get(date) ?? { inflows: 0n, outflows: 0n };
    balance += d.inflows - d.outflows;
    inflows += d.inflows;
    outflows += d.outflows;
    byDay.push({ date, inflows: d.inflows, outflows: d.outflows, balance });
  }
  return {
    from: wireDate(p.from),
    to: wireDate(inclusiveTo(p)),
    currency,
    openingBalance,
    inflows,
    outflows,
    closingBalance: balance,
    byDay,
  };
}
