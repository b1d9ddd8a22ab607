/**
 * The hosted customer portal (spec Portal session; docs/billing.md, Portal): `GET /portal/<ps_id>` is a page
 * without data (the token is in the fragment, which never reaches the server); its script calls
 * `/portal/<ps_id>/api/...` with the token in the `X-Portal-Token` header. Every call verifies the
 * signed token first (token.ts: its tenant, customer and expiry, before any query), then works in
 * that tenant's transaction under RLS. A customer sees their subscriptions and invoices and acts on
 * their own subscriptions only; each action calls the same service function as the API
 * (subscriptions/service.ts), so it emits the same events (`metadata.source` says `portal`).
 * What is allowed is `portalActions`: the plan's `portalFeatures` AND the workspace's toggles
 * (docs/decisions.md, Portal sessions).
 */
import { type Language, workspaceLanguage } from '../../core/i18n/index.ts';
import type { Auth } from '../../core/auth/authenticate.ts';
import { BoundedCache } from '../../core/bounded-cache.ts';
import { clock } from '../../core/clock.ts';
import type { Context } from '../../core/context.ts';
import { db, tenantQuery, type Mode } from '../../core/db/client.ts';
import { sql as q, tenantTx } from '../../core/db/sql.ts';
import { DomainError, errorsFor } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import { formatMoney } from '../../core/money.ts';
import { canMove, sqlStatus } from '../../core/state-machine.ts';
import type { Plan, Price, Subscription } from '../../generated/prisma/client.ts';
import { hostedInvoiceUrlOf } from '../invoices/fields.ts';
import { pdfUrlOf } from '../invoices/documents.ts';
import { invoiceDraft, invoiceMachine, type InvoiceStatus } from '../invoices/states.ts';
import { creditNoteIssued } from '../credit-notes/states.ts';
import type { PortalFeatures } from '../plans/validate.ts';
import { testPaymentMethods } from '../collection/charge.ts';
import { periodAmount, periodFits } from '../subscriptions/invoice.ts';
import { isPastDue, refusePastDueChange } from '../subscriptions/past-due.ts';
import {
  cancelSubscription,
  pauseSubscription,
  resumeSubscription,
  updateSubscription,
} from '../subscriptions/service.ts';
import {
  subscriptionIncomplete,
  subscriptionLive,
  subscriptionMachine,
  type SubscriptionStatus,
} from '../subscriptions/states.ts';
import { expired, portalUrl, verifyPortalToken, type PortalGrant } from './token.ts';
import { updateCustomer } from '../customers/service.ts';
import { detachPaymentMethod } from '../payment-methods/service.ts';
import { chargeable, paymentMethodMachine } from '../payment-methods/states.ts';
import { createSetupSessionIn } from '../setup-sessions/service.ts';
import { setupHostedUrlOf } from '../setup-sessions/fields.ts';

const err = errorsFor('portal_session');
/** Bounds of what one page shows (hostile input is the token's customer: a page stays one small answer). */
const MAX_SUBSCRIPTIONS = 20;
const MAX_INVOICES = 24;
const MAX_PLAN_OPTIONS = 50;
const MAX_METHODS = 20;

/** spec Portal sessions: the workspace's toggles, all on by default (workspaces.portalSettings). */
export interface PortalSettings {
  cancel: boolean;
  updatePaymentMethod: boolean;
  viewInvoices: boolean;
  changePlan: boolean;
}

export interface PortalActions {
  cancel: boolean;
  /** Undo a cancel at the period end (the cancel permission). */
  keep: boolean;
  pause: boolean;
  resume: boolean;
  updatePaymentMethod: boolean;
  upgrade: boolean;
  downgrade: boolean;
}

const isLive = (status: string) => (subscriptionLive as readonly string[]).includes(status);

/**
 * The one rule for what a customer may do to a subscription in the portal (docs/billing.md, Portal: effective
 * permission = workspace toggle AND plan flag). Pause and resume have no workspace toggle in the
 * spec: the plan's `selfServePause` alone. Updating the payment method works in both modes (live methods are
 * saved through a setup session: docs/guides/setup-sessions.md). A usage price has no plan change
 * here (its amount is not known in advance, so neither is the direction).
 */
export function portalActions(
  sub: Pick<Subscription, 'status' | 'cancelAtPeriodEnd'> & { mode: string },
  price: Pick<Price, 'model'>,
  features: PortalFeatures,
  settings: PortalSettings,
): PortalActions {
  const status = sub.status as SubscriptionStatus;
  const live = isLive(status);
  const cancel = live && settings.cancel && features.selfServeCancel;
  // Past due: the open invoice is paid first (subscriptions/past-due.ts); the change action answers 409.
  const change =
    live && status !== subscriptionIncomplete && !isPastDue(status) && price.model !== 'usage' && settings.changePlan;
  return {
    cancel: cancel && !sub.cancelAtPeriodEnd,
    keep: cancel && sub.cancelAtPeriodEnd,
    pause: features.selfServePause && canMove(subscriptionMachine, status, 'pause'),
    resume: features.selfServePause && canMove(subscriptionMachine, status, 'resume'),
    updatePaymentMethod: live && settings.updatePaymentMethod && features.updatePaymentMethod,
    upgrade: change && features.selfServeUpgrade,
    downgrade: change && features.selfServeDowngrade,
  };
}

const DAYS: Record<string, number> = { day: 1, week: 7, month: 30, year: 365 };
/** Amount per day of a period: prices of different intervals compare as upgrade or downgrade by it. */
const dailyRate = (price: Price, plan: Pick<Plan, 'interval' | 'intervalCount'>, quantity: number) =>
  periodAmount(price, quantity) / ((DAYS[plan.interval] ?? 30) * plan.intervalCount);

// ---------------------------------------------------------------------------------------------
// The page: 404 for an unknown session, 410 once expired (spec), before any token is seen.

// A session's expiry never changes: remembered for the page's next loads (bounded: ids are the caller's),
// with its workspace's default language and zone as they were at the first load (a session lives minutes).
const expiries = new BoundedCache<string, { at: number; language: Language; timezone: string }>(10_000);

/**
 * `GET /portal/<ps_id>`: whether the page may load (the data comes from the API with the token), and
 * the workspace's default language and time zone the page is rendered with.
 */
export async function assertPortalPage(id: string): Promise<{ language: Language; timezone: string }> {
  if (!isId('portalSession', id)) throw err.notFound('portal session');
  let known = expiries.get(id);
  if (known === undefined) {
    const { rows } = await db().system.query<{ expiresAt: Date; defaultCurrency: string; timezone: string }>(
      `SELECT p."expiresAt", w."defaultCurrency", w.timezone
        FROM portal_sessions p JOIN workspaces w ON w.id = p."workspaceId" WHERE p.id = $1`,
      [id],
    );
    if (!rows[0]) throw err.notFound('portal session');
    known = {
      at: rows[0].expiresAt.getTime(),
      language: workspaceLanguage(rows[0].defaultCurrency),
      timezone: rows[0].timezone,
    };
    expiries.set(id, known);
  }
  if (known.at <= clock.now().getTime()) throw expired();
  return { language: known.language, timezone: known.timezone };
}

// ---------------------------------------------------------------------------------------------
// The API the page calls.

interface WorkspaceRow {
  accountId: string;
  tier: string;
  merchantName: string;
  defaultCurrency: string;
  portalSettings: PortalSettings;
  archivedAt: Date | string | null;
}
type SessionRow = WorkspaceRow & { returnUrl: string | null; customer: { name: string | null; email: string | null } };
/** A subscription as the portal reads it; amounts are text, dates are Dates or (inside JSON) ISO text. */
interface SubRow {
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
type OptionRow = Price & { plan: Plan };
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
type StateRow = SessionRow & {
  subscriptions: SubRow[];
  options: OptionRow[];
  invoices: InvoiceRow[] | null;
  paymentMethods: MethodRow[];
  defaultPaymentMethodId: string | null;
};

const same = (alias: string, g: PortalGrant) =>
  q`${q.id(alias)}."workspaceId" = ${g.workspaceId} AND ${q.id(alias)}.mode = ${g.mode}`;

/** The workspace, session and customer of a grant (one row; no workspace: none). */
const sessionSql = (g: PortalGrant) =>
  q`SELECT w."accountId", w.tier, coalesce(w."brandName", w.name) AS "merchantName", w."defaultCurrency",
      w."portalSettings", w."archivedAt",
      (SELECT s."returnUrl" FROM portal_sessions s WHERE ${same('s', g)} AND s.id = ${g.sessionId}) AS "returnUrl",
      (SELECT jsonb_build_object('name', c.name, 'email', c.email) FROM customers c
        WHERE ${same('c', g)} AND c.id = ${g.customerId}) AS customer
    FROM workspaces w WHERE w.id = ${g.workspaceId}`;

/** The customer's subscriptions with plan and price (amounts as text: exact), newest first; or the one `id`. */
const subscriptionsSql = (g: PortalGrant, id?: string) =>
  q`SELECT s.id, s.status, s.mode, s."priceId", s.currency, s.quantity, s."currentPeriodEnd", s."trialEnd",
      s."cancelAtPeriodEnd", s."paymentMethod", s."pendingPriceId", s.discount, s."createdAt", to_jsonb(p) AS plan,
      to_jsonb(pr) || jsonb_build_object('unitAmount', pr."unitAmount"::text) AS price
    FROM subscriptions s
      JOIN plans p ON p."workspaceId" = s."workspaceId" AND p.mode = s.mode AND p.id = s."planId"
      JOIN prices pr ON pr."workspaceId" = s."workspaceId" AND pr.mode = s.mode AND pr.id = s."priceId"
    WHERE ${same('s', g)} AND s."customerId" = ${g.customerId} ${id ? q`AND s.id = ${id}` : q``}
    ORDER BY s."createdAt" DESC, s.id DESC LIMIT ${MAX_SUBSCRIPTIONS}`;

/** Prices a customer may move to: active, of an active plan, licensed; newest plans first. */
const optionsSql = (g: PortalGrant) =>
  q`SELECT pr.id, pr.currency, pr.model, pr."unitAmount"::text AS "unitAmount", pr.tiers, pr.position,
      p."createdAt" AS "planCreatedAt", to_jsonb(p) AS plan
    FROM prices pr JOIN plans p ON p."workspaceId" = pr."workspaceId" AND p.mode = pr.mode AND p.id = pr."planId"
    WHERE ${same('pr', g)} AND pr.active AND p.active AND p."archivedAt" IS NULL AND pr.model <> 'usage'
    ORDER BY p."createdAt" DESC, pr.position LIMIT ${MAX_PLAN_OPTIONS}`;

/** The customer's issued invoices, newest first. */
const invoicesSql = (g: PortalGrant) =>
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
const methodsSql = (g: PortalGrant) =>
  q`SELECT pm.id, pm.type, pm.status, pm.card, pm.ewallet, pm."directDebit", pm.paypal, pm."isDefault",
      pm."expiresAt", pm."createdAt"
    FROM payment_methods pm WHERE ${same('pm', g)} AND pm."customerId" = ${g.customerId}
      AND pm.status = ANY (${shownMethods}::text[])
    ORDER BY pm."createdAt" DESC, pm.id DESC LIMIT ${MAX_METHODS}`;

/** A session or customer gone (purged) is 404; an archived workspace's portal is gone (410). */
function checkSession<R extends SessionRow>(row: R | undefined): R {
  if (!row?.returnUrl || !row.customer) throw err.notFound('portal session');
  if (row.archivedAt) throw expired();
  return row;
}

const scopeOf = (g: PortalGrant) => ({ workspaceId: g.workspaceId, modes: [g.mode] as Mode[] });

/** Amounts arrive as text (exact at any size): back to the Price shape periodAmount reads. */
const priceOf = (p: Price): Price => ({
  ...p,
  unitAmount: p.unitAmount === null ? null : BigInt(p.unitAmount as unknown as string),
});
const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

interface PlanOption {
  priceId: string;
  planName: string;
  amount: string;
  interval: string;
  intervalCount: number;
  direction: 'upgrade' | 'downgrade';
}

/** The options of one subscription: other prices in its currency, each an upgrade or a downgrade it is allowed. */
function optionsFor(sub: SubRow, actions: PortalActions, all: OptionRow[]): PlanOption[] {
  if (!actions.upgrade && !actions.downgrade) return [];
  const current = dailyRate(priceOf(sub.price), sub.plan, sub.quantity);
  // A price whose period at this quantity is no amount (docs/billing.md, Plans and prices) is not offered: the
  // change would be refused. Checked without tax (options carry none); the change itself checks it with tax.
  return all
    .filter((p) => p.id !== sub.priceId && p.currency === sub.currency && periodFits(priceOf(p), sub.quantity, '0'))
    .map((p) => {
      const price = priceOf(p);
      const direction = dailyRate(price, p.plan, sub.quantity) > current ? 'upgrade' : 'downgrade';
      return {
        priceId: p.id,
        planName: p.plan.name,
        amount: formatMoney(periodAmount(price, sub.quantity), p.currency),
        interval: p.plan.interval,
        intervalCount: p.plan.intervalCount,
        direction,
      } as const;
    })
    .filter((o) => actions[o.direction]);
}

const actionsOf = (s: SubRow, settings: PortalSettings) =>
  portalActions(s, s.price, s.plan.portalFeatures as unknown as PortalFeatures, settings);

/**
 * `GET /portal/<ps_id>/api/state`: everything the page shows, read in one statement (one round trip:
 * the page's hot path, bench:portal), under RLS in the token's tenant.
 */
export async function portalState(sessionId: string, token: unknown) {
  const g = verifyPortalToken(sessionId, token);
  const [row] = await tenantQuery<StateRow>(
    scopeOf(g),
    q`SELECT h.*,
        (SELECT coalesce(jsonb_agg(to_jsonb(x) ORDER BY x."createdAt" DESC, x.id DESC), '[]')
          FROM (${subscriptionsSql(g)}) x) AS subscriptions,
        CASE WHEN (h."portalSettings" ->> 'changePlan')::boolean THEN
          (SELECT coalesce(jsonb_agg(to_jsonb(o) ORDER BY o."planCreatedAt" DESC, o.position), '[]')
            FROM (${optionsSql(g)}) o) ELSE '[]' END AS options,
        CASE WHEN (h."portalSettings" ->> 'viewInvoices')::boolean THEN
          (SELECT coalesce(jsonb_agg(to_jsonb(i) ORDER BY i."createdAt" DESC, i.id DESC), '[]')
            FROM (${invoicesSql(g)}) i) END AS invoices,
        (SELECT coalesce(jsonb_agg(to_jsonb(m) ORDER BY m."createdAt" DESC, m.id DESC), '[]')
          FROM (${methodsSql(g)}) m) AS "paymentMethods",
        (SELECT c."defaultPaymentMethodId" FROM customers c WHERE ${same('c', g)} AND c.id = ${g.customerId})
          AS "defaultPaymentMethodId"
      FROM (${sessionSql(g)}) h`,
  );
  const ws = checkSession(row);
  const ctx = portalContext(g, ws, '');
  const options = ws.options;
  return {
    merchantName: ws.merchantName,
    testMode: g.mode === 'test',
    // The workspace's default language (the page itself is rendered in the customer's: src/hosted/language.ts).
    language: workspaceLanguage(ws.defaultCurrency),
    returnUrl: ws.returnUrl,
    expiresAt: g.expiresAt.toISOString(),
    customer: ws.customer,
    settings: ws.portalSettings,
    // The customer's saved methods, display fields only (docs/guides/setup-sessions.md, Portal).
    paymentMethods: ws.paymentMethods.map((m) => ({
      id: m.id,
      type: m.type,
      status: m.status,
      card: m.card ?? null,
      ewallet: m.ewallet ?? null,
      directDebit: m.directDebit ?? null,
      paypal: m.paypal ?? null,
      isDefault: m.isDefault,
      expiresAt: iso(m.expiresAt),
    })),
    defaultPaymentMethodId: ws.defaultPaymentMethodId,
    // The fixed test tokens a test-mode subscription may also take.
    testPaymentMethods: g.mode === 'test' ? testPaymentMethods : [],
    subscriptions: ws.subscriptions.map((s) => {
      const actions = actionsOf(s, ws.portalSettings);
      return {
        id: s.id,
        status: s.status,
        planName: s.plan.name,
        priceId: s.priceId,
        amount: formatMoney(periodAmount(priceOf(s.price), s.quantity), s.currency),
        usage: s.price.model === 'usage',
        interval: s.plan.interval,
        intervalCount: s.plan.intervalCount,
        quantity: s.quantity,
        currentPeriodEnd: iso(s.currentPeriodEnd),
        trialEnd: iso(s.trialEnd),
        cancelAtPeriodEnd: s.cancelAtPeriodEnd,
        paymentMethod: s.paymentMethod,
        pendingPlanName: s.pendingPriceId ? (options.find((o) => o.id === s.pendingPriceId)?.plan.name ?? null) : null,
        pendingPriceId: s.pendingPriceId,
        // docs/coupons.md, Discounts: the coupon's name and when the discount ends (null: with its duration).
        discount: s.discount ? { name: s.discount.coupon.name, end: s.discount.end } : null,
        actions,
        options: optionsFor(s, actions, options),
      };
    }),
    invoices:
      ws.invoices?.map((i) => ({
        id: i.id,
        number: i.number,
        status: i.status,
        total: formatMoney(BigInt(i.total), i.currency),
        amountDue: formatMoney(BigInt(i.amountDue), i.currency),
        // Paid from the customer balance (docs/billing.md, Invoice totals); null: none.
        balanceApplied: BigInt(i.balanceApplied) > 0n ? formatMoney(BigInt(i.balanceApplied), i.currency) : null,
        creditNotes: (i.creditNotes ?? []).map((c) => ({
          number: c.number,
          total: formatMoney(BigInt(c.total), i.currency),
        })),
        discounts: (i.discounts ?? []).map((d) => ({
          name: d.name,
          amount: formatMoney(BigInt(d.amount), i.currency),
        })),
        issuedAt: iso(i.issuedAt),
        dueAt: iso(i.dueAt),
        // Signed for about 5 minutes (the page asks for a fresh state before an older link is used).
        pdfUrl: pdfUrlOf(ctx, i),
        // Open ones are paid on their hosted invoice page (docs/billing.md, Portal), which opens the checkout.
        payUrl: canMove(invoiceMachine, i.status as InvoiceStatus, 'pay') ? hostedInvoiceUrlOf(i) : null,
      })) ?? null,
  };
}

/**
 * The caller the portal's actions run as: the session's customer acting in its workspace and mode,
 * with exactly the scopes the portal needs (no API key, no member). Services authorize it like a key.
 */
function portalContext(g: PortalGrant, ws: WorkspaceRow, requestId: string): Context {
  const auth: Auth = {
    apiKeyId: g.sessionId,
    keyId: g.sessionId,
    mode: g.mode,
    role: 'restricted',
    scopes: [
      'svc:subscription:read',
      'svc:subscription:write',
      'svc:invoice:read',
      'svc:customer:write',
      'svc:payment_method:read',
      'svc:payment_method:write',
    ],
    memberId: null,
    memberRole: null,
    keyWorkspaceId: g.workspaceId,
    isPlatformAdmin: false,
    workspaceId: g.workspaceId,
    accountId: ws.accountId,
    tier: ws.tier,
    onBehalfOf: false,
  };
  return { requestId, auth, source: 'portal' };
}

export const portalActionNames = ['cancel', 'keep', 'pause', 'resume', 'payment-method', 'change'] as const;
export type PortalActionName = (typeof portalActionNames)[number];

/** The one body field each action takes (any other field is a 400). */
const bodyFields: Partial<Record<PortalActionName, readonly string[]>> = {
  'payment-method': ['paymentMethod', 'paymentMethodId'],
  change: ['priceId'],
};

const forbidden = (what: string) =>
  new DomainError('insufficient_scope', `This portal does not allow ${what} for this subscription`, {
    resource: 'portal_session',
  });

/**
 * `POST /portal/<ps_id>/api/subscriptions/<sub_id>/<action>`: checks that the subscription is the
 * customer's and that the action is allowed now, then calls the API's service function; answers the
 * page's new state.
 */
export async function portalAction(
  sessionId: string,
  token: unknown,
  subscriptionId: string,
  action: string,
  body: Record<string, unknown>,
  requestId: string,
) {
  const g = verifyPortalToken(sessionId, token);
  if (!(portalActionNames as readonly string[]).includes(action)) throw err.notFound('portal action');
  const name = action as PortalActionName;
  for (const k of Object.keys(body))
    if (!bodyFields[name]?.includes(k)) throw err.validation(k, `${k} is not a field of ${action}`);
  // Another customer's subscription, or another tenant's, reads as unknown.
  if (!isId('subscription', subscriptionId)) throw err.notFound('subscription');
  const { ws, sub, target } = await tenantTx(scopeOf(g), async (sql) => {
    const ws = checkSession((await sql.query<SessionRow>(sessionSql(g)))[0]);
    const [sub] = await sql.query<SubRow>(subscriptionsSql(g, subscriptionId));
    if (!sub) throw err.notFound('subscription');
    const target =
      name === 'change' ? (await sql.query<OptionRow>(optionsSql(g))).find((p) => p.id === body.priceId) : undefined;
    return { ws, sub, target };
  });
  const actions = actionsOf(sub, ws.portalSettings);
  const ctx = portalContext(g, ws, requestId);
  switch (name) {
    case 'cancel':
      if (!actions.cancel) throw forbidden('canceling');
      await cancelSubscription(ctx, sub.id, { atPeriodEnd: true });
      break;
    case 'keep':
      if (!actions.keep) throw forbidden('keeping a canceled subscription');
      await updateSubscription(ctx, sub.id, { cancelAtPeriodEnd: false });
      break;
    case 'pause':
      if (!actions.pause) throw forbidden('pausing');
      await pauseSubscription(ctx, sub.id);
      break;
    case 'resume':
      if (!actions.resume) throw forbidden('resuming');
      await resumeSubscription(ctx, sub.id);
      break;
    case 'payment-method': {
      if (!actions.updatePaymentMethod) throw forbidden('updating the payment method');
      // A saved method of this customer (`paymentMethodId`), or in test mode a fixed test token (`paymentMethod`).
      const pm = body.paymentMethodId ?? body.paymentMethod;
      const saved = typeof pm === 'string' && isId('paymentMethod', pm);
      if (saved) await assertOwnMethod(g, pm);
      else if (g.mode !== 'test' || typeof pm !== 'string' || !(testPaymentMethods as readonly string[]).includes(pm))
        throw err.validation(
          'paymentMethodId',
          g.mode === 'test'
            ? `paymentMethodId must be a saved method of yours or one of ${testPaymentMethods.join(', ')}`
            : 'paymentMethodId must be a saved payment method of yours',
        );
      await updateSubscription(ctx, sub.id, { paymentMethod: pm as string });
      break;
    }
    case 'change': {
      if (typeof body.priceId !== 'string') throw err.validation('priceId', 'priceId is required');
      refusePastDueChange(sub, { priceId: body.priceId });
      const option = target && optionsFor(sub, actions, [target])[0];
      if (!option) {
        if (!target) throw err.notFound('price');
        throw forbidden('this plan change');
      }
      await updateSubscription(ctx, sub.id, { priceId: option.priceId });
      break;
    }
  }
  return portalState(sessionId, token);
}

/** The method `id` is the token's customer's (and not detached), else 404 as an unknown one. */
async function assertOwnMethod(g: PortalGrant, id: string) {
  const [row] = await tenantQuery<{ id: string }>(
    scopeOf(g),
    q`SELECT id FROM (${methodsSql(g)}) m WHERE m.id = ${id}`,
  );
  if (!row) throw err.notFound('payment method');
}

/** The workspace's toggle for the customer-level payment-method actions (docs/billing.md, Portal). */
async function paymentMethodGrant(sessionId: string, token: unknown, requestId: string) {
  const g = verifyPortalToken(sessionId, token);
  const [row] = await tenantQuery<SessionRow>(scopeOf(g), sessionSql(g));
  const ws = checkSession(row);
  if (!ws.portalSettings.updatePaymentMethod)
    throw new DomainError('insufficient_scope', 'This portal does not allow managing payment methods', {
      resource: 'portal_session',
    });
  return { g, ws, ctx: portalContext(g, ws, requestId) };
}

/**
 * `POST /portal/<ps_id>/api/payment-methods/setup` `{subscriptionId?}`: a setup session for the token's
 * customer whose success and cancel URLs are this portal page (`consent.source: portal`); answers `{url}`.
 * With a subscription, that subscription must allow updating its method (plan flag AND toggle).
 */
export async function portalSetup(sessionId: string, token: unknown, body: Record<string, unknown>, requestId: string) {
  const { g, ws } = await paymentMethodGrant(sessionId, token, requestId);
  for (const k of Object.keys(body))
    if (k !== 'subscriptionId') throw err.validation(k, `${k} is not a field of payment-methods/setup`);
  const subscriptionId = body.subscriptionId ?? null;
  if (subscriptionId !== null) {
    if (typeof subscriptionId !== 'string' || !isId('subscription', subscriptionId)) throw err.notFound('subscription');
    const [sub] = await tenantQuery<SubRow>(scopeOf(g), subscriptionsSql(g, subscriptionId));
    if (!sub) throw err.notFound('subscription');
    if (!actionsOf(sub, ws.portalSettings).updatePaymentMethod) throw forbidden('updating the payment method');
  }
  const here = portalUrl(g);
  const created = await createSetupSessionIn(
    { workspaceId: g.workspaceId, mode: g.mode },
    { customerId: g.customerId, subscriptionId, successUrl: here, cancelUrl: here },
    { consentSource: 'portal', trustedUrls: true },
  );
  return { id: created.id, url: setupHostedUrlOf(created) };
}

export const portalMethodActions = ['default', 'detach'] as const;

/**
 * `POST /portal/<ps_id>/api/payment-methods/<pm_id>/default|detach`: the customer's default (updateCustomer) or a
 * detach (detachPaymentMethod). Detach is 409 `conflict` when it is the customer's last active method and a live
 * subscription collects automatically from it (the API's detach has no such guard).
 */
export async function portalMethodAction(
  sessionId: string,
  token: unknown,
  methodId: string,
  action: string,
  requestId: string,
) {
  const { g, ctx } = await paymentMethodGrant(sessionId, token, requestId);
  if (!(portalMethodActions as readonly string[]).includes(action)) throw err.notFound('portal action');
  if (!isId('paymentMethod', methodId)) throw err.notFound('payment method');
  await assertOwnMethod(g, methodId);
  if (action === 'default') {
    await updateCustomer(ctx, g.customerId, { defaultPaymentMethodId: methodId });
  } else {
    const [guard] = await tenantQuery<{ mine: number; others: number; collecting: number }>(
      scopeOf(g),
      q`SELECT
          (SELECT count(*)::int FROM payment_methods pm WHERE ${same('pm', g)} AND pm.id = ${methodId}
            AND pm.status = ${chargeable}) AS mine,
          (SELECT count(*)::int FROM payment_methods pm WHERE ${same('pm', g)} AND pm."customerId" = ${g.customerId}
            AND pm.status = ${chargeable} AND pm.id <> ${methodId}) AS others,
          (SELECT count(*)::int FROM subscriptions s WHERE ${same('s', g)} AND s."customerId" = ${g.customerId}
            AND s.status = ANY (${[...subscriptionLive]}::text[])
            AND (s."paymentMethod" = ${methodId} OR s."paymentMethod" IS NULL)) AS collecting`,
    );
    if (guard.mine === 1 && guard.others === 0 && guard.collecting > 0)
      throw err.conflict(
        'This is your only payment method and a subscription is charged from it; add another one first',
      );
    await detachPaymentMethod(ctx, methodId);
  }
  return portalState(sessionId, token);
}
