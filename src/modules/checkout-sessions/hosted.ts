/**
 * What the customer does on the hosted page (spec Payment flow): public, no signature; the hosted
 * token (`<cs_id>_<secret>`, src/core/hosted-link.ts) is the capability, not the session id. Every
 * call resolves the session's workspace and mode first and then runs in that tenant's transaction
 * like any API call.
 */
import { inTenant, type Tx } from '../../core/db/client.ts';
import { sql as q, sqlOf, tenantTx, updateRow, type Sql } from '../../core/db/sql.ts';
import { DomainError, errorsFor } from '../../core/errors.ts';
import { clock } from '../../core/clock.ts';
import { adaptersFor, type PaymentMethod } from '../adapters/capabilities.ts';
import { enabledAdapters } from '../adapters/service.ts';
import { receiptContextSql, type ReceiptContext } from '../receipts/issue.ts';
import type { HostedMethod, HostedPageView } from '../../hosted/page.ts';
import { successRedirect } from './redirect.ts';
import { completeSession } from './complete.ts';
import { cancelSession, lockSession, lockSessionWith } from './service.ts';
import { canMove, nextState } from '../../core/state-machine.ts';
import { checkoutSessionMachine as sessions, isTerminal, sessionCompleted, type SessionStatus } from './states.ts';
import { methodDisplay } from '../adapters/display.ts';
import { type Language, workspaceLanguage } from '../../core/i18n/index.ts';
import { receiptViewIn, sessionReceiptIn } from '../receipts/service.ts';
import { attemptSaves, isSavable, offeredMethods, sandboxSavedMethod, type SaveChoice } from './save.ts';
import { assertLive, effectiveStatus, sessionOf } from './hosted-session.ts';

export { attempt } from './hosted-attempt.ts';

const err = errorsFor('checkout_session');

/**
 * What the checkout page shows; `pick` chooses the language from the request given the workspace's
 * default (src/hosted/language.ts).
 */
export async function hostedPageView(
  token: string,
  pick: (workspace: Language) => Language = (w) => w,
): Promise<HostedPageView> {
  const { id, scope } = await sessionOf(token);
  return inTenant(scope, async (tx) => {
    const s = await tx.checkoutSession.findUniqueOrThrow({ where: { id } });
    const [workspace, template, enabled, receipt] = await Promise.all([
      tx.workspace.findUniqueOrThrow({ where: { id: scope.workspaceId } }),
      s.templateId ? tx.template.findUnique({ where: { id: s.templateId } }) : null,
      enabledAdapters(tx, scope),
      s.status === sessionCompleted ? sessionReceiptIn(tx, scope, id) : null,
    ]);
    const lang = pick(workspaceLanguage(workspace.defaultCurrency));
    const display = methodDisplay(lang);
    const methods: HostedMethod[] = offeredMethods(s.savePaymentMethod, s.methods as PaymentMethod[])
      .filter((m) => adaptersFor(enabled, scope.mode, m, s.currency).length > 0)
      .map((m) => ({ method: m, label: display[m].label, hint: display[m].hint, savable: isSavable(m) }));
    return {
      lang,
      hasReceipt: receipt != null,
      id: s.id,
      token,
      status: effectiveStatus(s),
      amount: Number(s.amount),
      currency: s.currency,
      merchantName: workspace.brandName ?? workspace.name,
      accentColor: template?.accentColor ?? null,
      lineItems: s.lineItems as HostedPageView['lineItems'],
      methods,
      expiresAt: s.expiresAt,
      timezone: workspace.timezone,
      testMode: scope.mode === 'test',
      successUrl: s.successUrl,
      cancelUrl: s.cancelUrl,
      savePaymentMethod: s.savePaymentMethod as SaveChoice,
    };
  });
}

export async function declarePaid(token: string) {
  const { id, scope } = await sessionOf(token);
  return inTenant(scope, async (tx) => {
    const s = assertLive(await lockSession(tx, scope, id));
    if (s.adapter !== 'manual') throw err.conflict('Only a bank-transfer payment can be declared paid');
    const now = clock.now();
    const row = await tx.checkoutSession.update({
      where: { id },
      data: {
        status: nextState(sessions, s.status as SessionStatus, 'declare_paid').to,
        declaredPaidAt: now,
        updatedAt: now,
      },
    });
    return { status: row.status };
  });
}

/**
 * spec Payment flow: the sandbox settles like a provider callback would; test mode only. A session
 * that saves methods also takes `savePaymentMethod` (the consent box, when the attempt did not say)
 * and `scenario` (the saved sandbox method's, docs/guides/payment-methods.md): a paid attempt that
 * asked to save leaves a sandbox token, kept by the completion (save.ts).
 */
export async function simulate(
  token: string,
  outcome: string,
  save: { savePaymentMethod?: unknown; scenario?: unknown } = {},
) {
  const { id, scope, savePaymentMethod: choice } = await sessionOf(token);
  if (scope.mode !== 'test')
    throw new DomainError('forbidden_in_live_mode', 'simulate is available in test mode only', {
      resource: 'checkout_session',
    });
  if (outcome !== 'success' && outcome !== 'failure')
    throw err.validation('outcome', 'outcome must be success or failure');
  // The session's choice (it never changes, so sessionOf remembers it): a session that saves completes
  // in a Prisma transaction (save.ts), any other on the bare `pg` path.
  const run = <T>(fn: (sql: Sql, tx?: Tx) => Promise<T>) =>
    choice === 'none' ? tenantTx(scope, (sql) => fn(sql)) : inTenant(scope, (tx) => fn(sqlOf(tx), tx));
  return run(async (sql, tx) => {
    // The receipt context rides with the lock: completion is then one more statement, with COMMIT.
    const locked = await lockSessionWith<ReceiptContext>(
      sql,
      scope,
      id,
      receiptContextSql(scope.workspaceId, scope.mode, q`s."templateId"`, q`s."customerId"`),
    );
    if (!locked) throw err.notFound('checkout session');
    const s = locked.session;
    if (s.status === sessionCompleted) return { status: s.status, redirectUrl: successRedirect(s.successUrl, s.id) };
    if (effectiveStatus(s) !== s.status) throw err.conflict('The checkout session has expired');
    // Closed with its invoice (paid another way, voided): invoice-sessions.ts.
    if (isTerminal(s.status)) throw err.conflict(`The checkout session is ${s.status}`);
    if (s.adapter !== 'provider_a_platform' || !canMove(sessions, s.status as SessionStatus, 'provider_failed'))
      throw err.conflict('Nothing to simulate: pick a method first');
    if (outcome === 'failure') {
      const now = clock.now();
      const { to } = nextState(sessions, s.status as SessionStatus, 'provider_failed');
      await updateRow(
        sql,
        'checkout_sessions',
        { id, ...scope },
        {
          status: to,
          failureCode: 'card_declined',
          failureMessage: 'The sandbox declined the payment',
          updatedAt: now,
        },
        true,
      );
      return { status: to };
    }
    // The consent box sent now (else the attempt's), and the sandbox method it saves.
    const consented =
      save.savePaymentMethod == null
        ? undefined
        : attemptSaves(s.savePaymentMethod, s.attemptMethod ?? '', save.savePaymentMethod);
    const saved =
      s.savePaymentMethod !== 'none' && isSavable(s.attemptMethod ?? '')
        ? sandboxSavedMethod(s.attemptMethod!, save.scenario, clock.now())
        : null;
    const done = await completeSession(
      tx ?? sql,
      scope,
      s,
      {
        trigger: 'provider_paid',
        adapter: s.adapter,
        method: s.attemptMethod,
        providerReference: s.providerReference,
        source: 'sandbox',
        saved: saved ? { method: saved, consented } : null,
      },
      locked.also,
    );
    return { status: done.status, redirectUrl: successRedirect(s.successUrl, s.id) };
  });
}

export async function customerCancel(token: string) {
  const { id, scope } = await sessionOf(token);
  const row = await cancelSession(scope, id);
  return { status: row.status, redirectUrl: row.cancelUrl };
}

export async function publicStatus(token: string) {
  const { id, scope } = await sessionOf(token);
  const s = await inTenant(scope, (tx) => tx.checkoutSession.findUniqueOrThrow({ where: { id } }));
  const status = effectiveStatus(s);
  return { status, ...(status === sessionCompleted ? { redirectUrl: successRedirect(s.successUrl, s.id) } : {}) };
}

/**
 * `GET /c/<token>/receipt`: the receipt of a completed session as its HTML document, for the customer
 * who paid (the session's token is the capability). 404 before the session completes.
 */
export async function hostedReceipt(token: string, pick: (workspace: Language) => Language) {
  const { id, scope } = await sessionOf(token);
  const receipt = await inTenant(scope, (tx) => sessionReceiptIn(tx, scope, id));
  if (!receipt) throw err.notFound('receipt');
  return receiptViewIn(scope, receipt.id, pick);
}
