// What the portal reads for a grant (token.ts): the session with its workspace and customer, the customer's
// subscriptions, plan options, invoices and saved methods; each a statement under RLS in the token's tenant.
import type { Mode } from '../../core/db/client.ts';
import { sql as q } from '../../core/db/sql.ts';
import { errorsFor } from '../../core/errors.ts';
import { sqlStatus } from '../../core/state-machine.ts';
import type { Plan, Price } from '../../generated/prisma/client.ts';
import { invoiceDraft } from '../invoices/states.ts';
import { creditNoteIssued } from '../credit-notes/states.ts';
import { expired, type PortalGrant } from './token.ts';
import { paymentMethodMachine } from '../payment-methods/states.ts';
import type { PortalSettings } from './permissions.ts';

const err = errorsFor('portal_session');
/** Bounds of what one page shows (hostile input is the token's customer: a page stays one small answer). */
const MAX_SUBSCRIPTIONS = 20;
const MAX_INVOICES = 24;
const MAX_PLAN_OPTIONS = 50;
const MAX_METHODS = 20;

export interface WorkspaceRow {
  accountId: string;
  tier: string;
  merchantName: string;
  defaultCurrency: string;
  portalSettings: PortalSettings;
  archivedAt: Date | string | null;
}
export type SessionRow = WorkspaceRow & {
  returnUrl: string | null;
  customer: { name: string | null; email: string | null };
};
/** A subscription as the portal reads it; amounts are text, dates are Dates or (inside JSON) ISO text. */
export interface SubRow {
  id: string;
  status: string;
  mode: string;
  priceId: string;
  currency: string;
  quantity: number;
  currentPeriodEnd: Date | string;
  trialEnd: Date | string | null;
  cancelAtPeriodEnd: boolean;
  paymentMethod: string | null;
  pendingPriceId: string | null;
  /** The active discount's wire object (docs/coupons.md, Discounts), null: none. */
  discount: { coupon: { name: string }; end: string | null } | null;
  plan: Plan;
  price: Price;
}
export type OptionRow = Price & { plan: Plan };
interface InvoiceRow {
  id: string;
  number: string | null;
  status: string;
  currency: string;
  total: string;
  amountDue: string;
  balanceApplied: string;
  issuedAt: string | null;
  dueAt: string | null;
  hostedSecret: string;
  workspaceId: string;
  mode: string;
  /** Its issued credit notes (docs/credit-notes.md, Documents), oldest first. */
  creditNotes: { number: string; total: string }[];
  /** `invoice.discounts[]` (docs/coupons.md, Invoice discounts). */
  discounts: { couponId: string | null; name: string; amount: number }[];
}
/** A saved method as the portal shows it: display fields only (never the token). */
interface MethodRow {
  id: string;
  type: string;
  status: string;
  card: unknown;
  ewallet: unknown;
  directDebit: unknown;
  paypal: unknown;
  isDefault: boolean;
  expiresAt: string | null;
}
export type StateRow = SessionRow & {
  subscriptions: SubRow[];
  options: OptionRow[];
  invoices: InvoiceRow[] | null;
  paymentMethods: MethodRow[];
  defaultPaymentMethodId: string | null;
};

export const same = (alias: string, g: PortalGrant) =>
  q`${q.id(alias)}."workspaceId" = ${g.workspaceId} AND ${q.id(alias)}.mode = ${g.mode}`;

/** The workspace, session and customer of a grant (one row; no workspace: none). */
export const sessionSql = (g: PortalGrant) =>
  q`SELECT w."accountId", w.tier, coalesce(w."brandName", w.name) AS "merchantName", w."defaultCurrency",
      w."portalSettings", w."archivedAt",
      (SELECT s."returnUrl" FROM portal_sessions s WHERE ${same('s', g)} AND s.id = ${g.sessionId}) AS "returnUrl",
      (SELECT jsonb_build_object('name', c.name, 'email', c.email) FROM customers c
        WHERE ${same('c', g)} AND c.id = ${g.customerId}) AS customer
    FROM workspaces w WHERE w.id = ${g.workspaceId}`;

/** The customer's subscriptions with plan and price (amounts as text: exact), newest first; or the one `id`. */
export const subscriptionsSql = (g: PortalGrant, id?: string) =>
  q`SELECT s.id, s.status, s.mode, s."priceId", s.currency, s.quantity, s."currentPeriodEnd", s."trialEnd",
      s."cancelAtPeriodEnd", s."paymentMethod", s."pendingPriceId", s.discount, s."createdAt", to_jsonb(p) AS plan,
      to_jsonb(pr) || jsonb_build_object('unitAmount', pr."unitAmount"::text) AS price
    FROM subscriptions s
      JOIN plans p ON p."workspaceId" = s."workspaceId" AND p.mode = s.mode AND p.id = s."planId"
      JOIN prices pr ON pr."workspaceId" = s."workspaceId" AND pr.mode = s.mode AND pr.id = s."priceId"
    WHERE ${same('s', g)} AND s."customerId" = ${g.customerId} ${id ? q`AND s.id = ${id}` : q``}
    ORDER BY s."createdAt" DESC, s.id DESC LIMIT ${MAX_SUBSCRIPTIONS}`;

/** Prices a customer may move to: active, of an active plan, licensed; newest plans first. */
export const optionsSql = (g: PortalGrant) =>
  q`SELECT pr.id, pr.currency, pr.model, pr."unitAmount"::text AS "unitAmount", pr.tiers, pr.position,
      p."createdAt" AS "planCreatedAt", to_jsonb(p) AS plan
    FROM prices pr JOIN plans p ON p."workspaceId" = pr."workspaceId" AND p.mode = pr.mode AND p.id = pr."planId"
    WHERE ${same('pr', g)} AND pr.active AND p.active AND p."archivedAt" IS NULL AND pr.model <> 'usage'
    ORDER BY p."createdAt" DESC, pr.position LIMIT ${MAX_PLAN_OPTIONS}`;

/** The customer's issued invoices, newest first. */
export const invoicesSql = (g: PortalGrant) =>
  q`SELECT i.id, i.number, i.status, i.currency, i.total::text AS total, i."amountDue"::text AS "amountDue",
      i."balanceApplied"::text AS "balanceApplied", i."issuedAt", i."dueAt", i."hostedSecret", i."workspaceId",
      i.mode, i."createdAt", i.discounts,
      (SELECT coalesce(jsonb_agg(jsonb_build_object('number', n.number, 'total', n.total::text)
          ORDER BY n."issuedAt", n.id), '[]'::jsonb)
        FROM credit_notes n WHERE ${same('n', g)} AND n."invoiceId" = i.id AND n.status = ${sqlStatus(creditNoteIssued)}) AS "creditNotes"
    FROM invoices i WHERE ${same('i', g)} AND i."customerId" = ${g.customerId} AND i.status <> ${sqlStatus(invoiceDraft)}
    ORDER BY i."createdAt" DESC, i.id DESC LIMIT ${MAX_INVOICES}`;

/** The statuses a customer still sees a method in (a detached one is gone for them). */
const shownMethods = paymentMethodMachine.statuses.filter((x) => x !== paymentMethodMachine.moves.detach.to);

/** The customer's saved methods (display fields only), newest first, and its default. */
export const methodsSql = (g: PortalGrant) =>
  q`SELECT pm.id, pm.type, pm.status, pm.card, pm.ewallet, pm."directDebit", pm.paypal, pm."isDefault",
      pm."expiresAt", pm."createdAt"
    FROM payment_methods pm WHERE ${same('pm', g)} AND pm."customerId" = ${g.customerId}
      AND pm.status = ANY (${shownMethods}::text[])
    ORDER BY pm."createdAt" DESC, pm.id DESC LIMIT ${MAX_METHODS}`;

/** A session or customer gone (purged) is 404; an archived workspace's portal is gone (410). */
export function checkSession<R extends SessionRow>(row: R | undefined): R {
  if (!row?.returnUrl || !row.customer) throw err.notFound('portal session');
  if (row.archivedAt) throw expired();
  return row;
}

export const scopeOf = (g: PortalGrant) => ({ workspaceId: g.workspaceId, modes: [g.mode] as Mode[] });

/** Amounts arrive as text (exact at any size): back to the Price shape periodAmount reads. */
export const priceOf = (p: Price): Price => ({
  ...p,
  unitAmount: p.unitAmount === null ? null : BigInt(p.unitAmount as unknown as string),
});
export const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());
