/**
 * The hosted invoice page (spec Invoice `hostedInvoiceUrl`: "public payment page, no
 * authentication; treat as a bearer secret"): `GET /i/<inv_id>_<secret>` shows the issued invoice,
 * and its Pay button (`POST /i/<token>/pay`) opens, or reuses, the one live checkout session tied
 * to the invoice (`checkout_sessions.invoiceId`, one live per invoice by a partial unique index)
 * and sends the customer to that session's checkout page: the same methods and adapters as
 * checkout. Completing the session settles the invoice (checkout-sessions/complete.ts). Drafts
 * have no page (404). See docs/decisions.md (Hosted invoice page).
 */
import { chargesInFlight } from '../payments/in-flight.ts';
import { BoundedCache } from '../../core/bounded-cache.ts';
import { type Language, messages, workspaceLanguage } from '../../core/i18n/index.ts';
import { clock } from '../../core/clock.ts';
import { db, inTenant, type Mode, tenantQuery } from '../../core/db/client.ts';
import { insertRows, sql as q, sqlOf, type AnyTx } from '../../core/db/sql.ts';
import { errorsFor } from '../../core/errors.ts';
import { hostedSecretMatches, parseHostedToken } from '../../core/hosted-link.ts';
import { newId } from '../../core/ids.ts';
import type { RowScope } from '../../core/resource.ts';
import { canMove, nextState, sqlIn, statusesWhere } from '../../core/state-machine.ts';
import type { CheckoutSession } from '../../generated/prisma/client.ts';
import { adaptersFor, paymentMethods } from '../adapters/capabilities.ts';
import { enabledAdapters } from '../adapters/service.ts';
import { checkoutSessionMachine as sessions, type SessionStatus } from './states.ts';
import { hostedInvoiceUrlOf } from '../invoices/fields.ts';
import { loadInvoiceView, signedPdfPath } from '../invoices/documents.ts';
import { signedUrl } from '../../core/signed-url.ts';
import { lockInvoice } from '../invoices/issue.ts';
import { invoiceDraft, invoiceMachine, type InvoiceStatus } from '../invoices/states.ts';
import { paymentRequiresAction } from '../payments/states.ts';
import { simulateWaiting, supersedeAction } from '../collection/waiting.ts';

const err = errorsFor('invoice');
/** How long the checkout session the page opens stays payable (a new one is opened after). */
const SESSION_TTL_MS = 24 * 3600 * 1000;
/** Live sessions (the table's `expire` sources): at most one per invoice. */
const live = sqlIn(q`status`, statusesWhere(sessions, 'expire'));

// An invoice's workspace, mode and secret never change: remembered for the page's next requests.
const known = new BoundedCache<string, { scope: RowScope; secret: string }>(10_000);

/** The invoice and tenant of a hosted token; 404 alike for a malformed token, no such invoice, a wrong secret. */
async function invoiceOf(token: string): Promise<{ id: string; scope: RowScope }> {
  const parsed = parseHostedToken('invoice', token);
  if (!parsed) throw err.notFound();
  let entry = known.get(parsed.id);
  if (!entry) {
    const { rows } = await db().system.query<{ workspaceId: string; mode: Mode; hostedSecret: string }>(
      `SELECT "workspaceId", mode, "hostedSecret" FROM invoices WHERE id = $1`,
      [parsed.id],
    );
    const row = rows[0];
    if (!row || !hostedSecretMatches(row.hostedSecret, parsed.secret)) throw err.notFound();
    entry = { scope: { workspaceId: row.workspaceId, mode: row.mode }, secret: row.hostedSecret };
    known.set(parsed.id, entry);
  } else if (!hostedSecretMatches(entry.secret, parsed.secret)) {
    throw err.notFound();
  }
  return { id: parsed.id, scope: entry.scope };
}

/**
 * `GET /i/<token>`: the invoice as an HTML page; open ones carry the Pay button. Drafts: 404. `pick`
 * chooses the language from the request given the workspace's default; `top` is the page's switch.
 */
export async function hostedInvoicePage(
  token: string,
  pick: (workspace: Language) => Language,
  top: (lang: Language) => string,
): Promise<string> {
  const { id, scope } = await invoiceOf(token);
  const { inv, view, language } = await loadInvoiceView(scope, id, pick);
  if (hostedInvoiceUrlOf(inv) === null) throw err.notFound();
  const payable = canMove(invoiceMachine, inv.status as InvoiceStatus, 'pay');
  const waiting = payable ? await waitingCharge(scope, id) : null;
  view.invoice = {
    ...view.invoice!,
    payUrl: null,
    payAction: payable ? `/i/${token}/pay` : null,
    pdfLink: `/i/${token}/pdf`,
    waiting: !waiting
      ? null
      : waiting.status === paymentRequiresAction
        ? { kind: 'action', confirmUrl: waiting.nextAction?.url ? `/i/${token}/confirm` : null }
        : { kind: 'provider' },
  };
  return (await import('../documents/render/html.ts')).renderHtml(view, { top: top(language) });
}

/**
 * `GET /i/<token>/pdf` (the page's `doc.downloadPdf` link): the path of a freshly signed PDF URL (`/f/<inv_id>.pdf`,
 * about 5 minutes, as the portal's and GET /v1/invoices/:id/pdf), so the page's link never goes stale. The
 * token is the capability, checked as the page's; drafts have no page, so no PDF here either (404).
 */
export async function hostedInvoicePdfUrl(token: string): Promise<string> {
  const { id, scope } = await invoiceOf(token);
  const [inv] = await tenantQuery<{ status: string }>(
    { workspaceId: scope.workspaceId, modes: [scope.mode] },
    q`SELECT status FROM invoices WHERE id = ${id} AND "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}`,
  );
  if (!inv || inv.status === invoiceDraft) throw err.notFound();
  const url = new URL(signedUrl(signedPdfPath(id), scope));
  // Same origin as the page the customer is on, whatever the configured hosted base.
  return url.pathname + url.search;
}

/** The invoice's off-session charge in flight (`pending` or `requires_action`), if any: one at most (payments_in_flight_key). */
async function waitingCharge(scope: RowScope, invoiceId: string, tx?: AnyTx) {
  const read = (t: AnyTx) => chargesInFlight(t, scope, [invoiceId]);
  const rows = tx ? await read(tx) : await inTenant({ workspaceId: scope.workspaceId, modes: [scope.mode] }, read);
  return rows[0] ?? null;
}

const accountOf = async (scope: RowScope) => {
  const { rows } = await db().system.query<{ accountId: string }>('SELECT "accountId" FROM workspaces WHERE id = $1', [
    scope.workspaceId,
  ]);
  return { ...scope, accountId: rows[0].accountId };
};

/**
 * `GET /i/<token>/confirm` (`doc.confirmPayment`): where the waiting charge's action is done (the
 * provider's page, or the sandbox's `/i/<token>/authenticate`); the invoice page when none waits.
 */
export async function confirmHostedInvoice(token: string): Promise<string> {
  const { id, scope } = await invoiceOf(token);
  const waiting = await waitingCharge(scope, id);
  return waiting?.status === paymentRequiresAction && waiting.nextAction?.url ? waiting.nextAction.url : `/i/${token}`;
}

/**
 * The test sandbox's authentication step (`/i/<token>/authenticate`, test mode only, else 404): the
 * invoice's `requires_action` charge, if one waits (`null` otherwise: the page says nothing waits).
 */
export async function authenticationOf(token: string): Promise<{ paymentId: string | null; scope: RowScope }> {
  const { id, scope } = await invoiceOf(token);
  if (scope.mode !== 'test') throw err.notFound();
  const waiting = await waitingCharge(scope, id);
  return { paymentId: waiting?.status === paymentRequiresAction ? waiting.id : null, scope };
}

/**
 * `POST /i/<token>/authenticate` `outcome=success|failure`: the same effect as
 * `POST /v1/payments/:id/simulate` on the invoice's waiting charge; back to the invoice page.
 */
export async function authenticateHostedInvoice(token: string, outcome: string): Promise<string> {
  const { paymentId, scope } = await authenticationOf(token);
  if (!paymentId) throw err.conflict('No payment of this invoice waits for authentication');
  await simulateWaiting(await accountOf(scope), paymentId, outcome, { source: 'hosted_invoice' });
  return `/i/${token}`;
}

/**
 * `POST /i/<token>/pay`: the path of the checkout page that pays the invoice's amount due. Under
 * the invoice's row lock: a live session is reused; one past its expiry is expired first; else a
 * new one is opened with every method the workspace's enabled adapters serve in the invoice's
 * currency. An invoice no longer payable: back to its page (it shows why).
 */
export async function payHostedInvoice(
  token: string,
  pick: (workspace: Language) => Language = (w) => w,
): Promise<string> {
  const { id, scope } = await invoiceOf(token);
  // `doc.payAnotherWay`: a charge waiting for the customer's authentication fails first (superseded),
  // a failed attempt as any other (docs/guides/payment-methods.md, Requires action).
  if ((await waitingCharge(scope, id))?.status === paymentRequiresAction)
    await supersedeAction(await accountOf(scope), id);
  return inTenant({ workspaceId: scope.workspaceId, modes: [scope.mode] }, async (tx) => {
    const sql = sqlOf(tx);
    const [ws] = await sql.query<{ accountId: string; defaultCurrency: string }>(
      q`SELECT "accountId", "defaultCurrency" FROM workspaces WHERE id = ${scope.workspaceId}`,
    );
    const inv = await lockInvoice(tx, { ...scope, accountId: ws.accountId }, id);
    if (!inv || hostedInvoiceUrlOf(inv) === null) throw err.notFound();
    if (!canMove(invoiceMachine, inv.status as InvoiceStatus, 'pay')) return `/i/${token}`;
    // An off-session charge in flight (its provider has not answered): 409 until it is reconciled.
    if (await waitingCharge(scope, id, tx))
      throw err.conflict('A payment of this invoice is in progress; try again once it completes');
    const now = clock.now();
    const [current] = await sql.query<CheckoutSession>(
      q`SELECT * FROM checkout_sessions WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
        AND "invoiceId" = ${id} AND ${live} FOR UPDATE`,
    );
    if (current && current.expiresAt > now) return `/c/${current.id}_${current.hostedSecret}`;
    if (current) {
      // Past its expiry but not yet swept: expired here (no event: the sweep's would be a duplicate
      // of nothing the merchant acted on), so the new session can take its place.
      const to = nextState(sessions, current.status as SessionStatus, 'expire').to;
      await sql.query(
        q`UPDATE checkout_sessions SET status = ${to}, "expiredAt" = ${now}::timestamptz, "updatedAt" = ${now}::timestamptz
          WHERE id = ${current.id} AND "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}`,
      );
    }
    const enabled = await enabledAdapters(sql, scope);
    const methods = paymentMethods.filter((m) => adaptersFor(enabled, scope.mode, m, inv.currency).length > 0);
    if (!methods.length)
      throw err.of('no_adapter_supports_methods', `No enabled adapter serves ${inv.currency}`, 'currency');
    const page = hostedInvoiceUrlOf(inv)!;
    const [created] = await sql.query<CheckoutSession>(
      q`${insertRows('checkout_sessions', [
        {
          id: newId('checkoutSession'),
          workspaceId: scope.workspaceId,
          mode: scope.mode,
          status: nextState(sessions, null, 'create').to,
          amount: inv.amountDue,
          currency: inv.currency,
          methods,
          // In the language of the page the customer paid from (the checkout page shows it as stored).
          lineItems: [
            {
              name: messages(pick(workspaceLanguage(ws.defaultCurrency))).checkout.invoiceLine(inv.number ?? inv.id),
              quantity: 1,
              unitAmount: Number(inv.amountDue),
            },
          ],
          // Back to the invoice's page either way: it shows paid, or the Pay button again.
          successUrl: page,
          cancelUrl: page,
          customerId: inv.customerId,
          templateId: null,
          invoiceId: inv.id,
          subscriptionId: inv.subscriptionId,
          // A subscription's invoice offers to save the method (the consent box): saved, it pays the
          // subscription's next invoices when it has none (docs/guides/checkout-sessions.md).
          savePaymentMethod: inv.subscriptionId ? 'optional' : 'none',
          metadata: { invoiceId: inv.id },
          expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
          createdAt: now,
          updatedAt: now,
        },
      ])} RETURNING *`,
    );
    return `/c/${created.id}_${created.hostedSecret}`;
  });
}

/**
 * Before a checkout attempt of an invoice's session calls a provider: the invoice must still be
 * payable (paid through POST /pay or voided since the page opened the session: 409, and no
 * money is asked for). Completion checks again under the invoice's lock (complete.ts).
 */
export async function assertInvoicePayable(tx: AnyTx, scope: RowScope, invoiceId: string) {
  const [inv] = await sqlOf(tx).query<{ status: string }>(
    q`SELECT status FROM invoices WHERE id = ${invoiceId} AND "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}`,
  );
  if (!inv || !canMove(invoiceMachine, inv.status as InvoiceStatus, 'pay'))
    throw err.conflict(`The invoice is ${inv?.status ?? 'gone'}; it cannot be paid again`);
}
