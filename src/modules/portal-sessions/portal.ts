/**
 * The hosted customer portal (spec Portal session; docs/billing.md, Portal): `GET /portal/<ps_id>` is a page
 * without data (the token is in the fragment, which never reaches the server); its script calls
 * `/portal/<ps_id>/api/...` with the token in the `X-Portal-Token` header. Every call verifies the
 * signed token first (token.ts: its tenant, customer and expiry, before any query), then works in
 * that tenant's transaction under RLS. A customer sees their subscriptions and invoices and acts on
 * their own subscriptions only; each action calls the same service function as the API
 * (subscriptions/service.ts), so it emits the same events (`metadata.source` says `portal`).
 * What is allowed is `portalActions` (permissions.ts): the plan's `portalFeatures` AND the workspace's
 * toggles (docs/decisions.md, Portal sessions). Here: the page and its state; the actions are in
 * subscription-actions.ts and payment-method-actions.ts.
 */
import { type Language, workspaceLanguage } from '../../core/i18n/index.ts';
import { BoundedCache } from '../../core/bounded-cache.ts';
import { clock } from '../../core/clock.ts';
import { db, tenantQuery } from '../../core/db/client.ts';
import { sql as q } from '../../core/db/sql.ts';
import { errorsFor } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import { formatMoney } from '../../core/money.ts';
import { canMove } from '../../core/state-machine.ts';
import { hostedInvoiceUrlOf } from '../invoices/fields.ts';
import { pdfUrlOf } from '../invoices/documents.ts';
import { invoiceMachine, type InvoiceStatus } from '../invoices/states.ts';
import { testPaymentMethods } from '../collection/charge.ts';
import { periodAmount } from '../subscriptions/invoice.ts';
import { expired, verifyPortalToken } from './token.ts';
import { actionsOf, optionsFor } from './permissions.ts';
import {
  type StateRow,
  checkSession,
  invoicesSql,
  iso,
  methodsSql,
  optionsSql,
  priceOf,
  same,
  scopeOf,
  sessionSql,
  subscriptionsSql,
} from './reads.ts';
import { portalContext } from './caller.ts';

const err = errorsFor('portal_session');

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
