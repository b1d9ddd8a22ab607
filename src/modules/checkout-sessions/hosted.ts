/**
 * What the customer does on the hosted page (spec Payment flow): public, no signature; the hosted
 * token (`<cs_id>_<secret>`, src/core/hosted-link.ts) is the capability, not the session id. Every
 * call resolves the session's workspace and mode first and then runs in that tenant's transaction
 * like any API call.
 */
import { db, inTenant, type Mode, type Tx } from '../../core/db/client.ts';
import { sql as q, sqlOf, tenantTx, updateRow, type Sql } from '../../core/db/sql.ts';
import { DomainError, errorsFor } from '../../core/errors.ts';
import { clock } from '../../core/clock.ts';
import { randomHex } from '../../core/crypto.ts';
import { BoundedCache } from '../../core/bounded-cache.ts';
import { hostedSecretMatches, parseHostedToken } from '../../core/hosted-link.ts';
import { adaptersFor, sessionAdapterName, type AdapterKind, type PaymentMethod } from '../adapters/capabilities.ts';
import {
  adapterSourcesSql,
  enabledAdapters,
  enabledFrom,
  recordGatewayFailure,
  recordGatewaySuccess,
  type AdapterSources,
} from '../adapters/service.ts';
import { receiptContextSql, type ReceiptContext } from '../receipts/issue.ts';
import type { HostedMethod, HostedPageView } from '../../hosted/page.ts';
import { successRedirect } from './redirect.ts';
import { completeSession } from './complete.ts';
import { assertInvoicePayable } from './invoice-page.ts';
import { cancelSession, lockSession, lockSessionWith } from './service.ts';
import { canMove, nextState, statusesWhere } from '../../core/state-machine.ts';
import {
  checkoutAttemptMachine as attempts,
  checkoutSessionMachine as sessions,
  isTerminal,
  sessionCompleted,
  type SessionStatus,
} from './states.ts';
import { callbackUrl, isOnline, providerFor, type OnlineKind } from '../adapters/providers.ts';
import { adapterMachine, type AdapterStatus } from '../adapters/states.ts';
import { isProviderError, type CreateChargeInput, type Instructions } from '../../providers/index.ts';
import type { Adapter, CheckoutAttempt, CheckoutSession } from '../../generated/prisma/client.ts';
import { failAttempt, newAttempt, recordCharge, voidAttempts, writeAttempt, type Superseded } from './attempts.ts';
import { newId } from '../../core/ids.ts';
import { methodDisplay } from '../adapters/display.ts';
import { type Language, messages, workspaceLanguage } from '../../core/i18n/index.ts';
import { receiptViewIn, sessionReceiptIn } from '../receipts/service.ts';
import type { RowScope } from '../../core/resource.ts';
import { attemptSaves, isSavable, offeredMethods, sandboxSavedMethod, type SaveChoice } from './save.ts';

const err = errorsFor('checkout_session');
type Scope = RowScope & { modes: readonly Mode[] };

// A session's workspace, mode and secret never change: remembered for the page's next calls. Only
// tokens that matched are kept, so the cache holds real sessions, at most 10,000 of them.
const scopes = new BoundedCache<string, { scope: Scope; secret: string }>(10_000);

/**
 * The session id and tenant of a hosted token (`<cs_id>_<secret>`, src/core/hosted-link.ts); 404
 * alike for a malformed token, an unknown session and a wrong secret.
 */
async function sessionOf(token: string): Promise<{ id: string; scope: Scope }> {
  const parsed = parseHostedToken('checkoutSession', token);
  if (!parsed) throw err.notFound('checkout session');
  const { id, secret } = parsed;
  let known = scopes.get(id);
  if (!known) {
    const { rows } = await db().system.query<{ workspaceId: string; mode: Mode; hostedSecret: string }>(
      `SELECT "workspaceId", mode, "hostedSecret" FROM checkout_sessions WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    if (!row || !hostedSecretMatches(row.hostedSecret, secret)) throw err.notFound('checkout session');
    known = { scope: { workspaceId: row.workspaceId, mode: row.mode, modes: [row.mode] }, secret: row.hostedSecret };
    scopes.set(id, known);
  } else if (!hostedSecretMatches(known.secret, secret)) {
    throw err.notFound('checkout session');
  }
  return { id, scope: known.scope };
}

/** A session past its expiry is expired to the customer even before the sweep records it. */
const effectiveStatus = (s: CheckoutSession): SessionStatus =>
  !isTerminal(s.status) && s.expiresAt <= clock.now()
    ? nextState(sessions, s.status as SessionStatus, 'expire').to
    : (s.status as SessionStatus);

/** A session that can still be paid, locked. */
function assertLive(s: CheckoutSession | null | undefined): CheckoutSession {
  if (!s) throw err.notFound('checkout session');
  const status = effectiveStatus(s);
  if (status !== s.status) throw err.conflict(`The checkout session is ${status}`);
  return s;
}

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

/** What the page shows after an attempt (src/hosted/page.ts renders it). */
export interface AttemptView {
  title: string;
  label: string;
  qrSvg?: string;
  code?: string;
  lines: string[];
  redirectUrl?: string;
  canDeclarePaid: boolean;
  canSimulate: boolean;
  waiting: boolean;
}

// A fixed mask pattern: every mask scans, and scoring all eight was most of the attempt's CPU.
const qrSvg = async (text: string) =>
  (await import('qrcode')).default.toString(text, {
    type: 'svg',
    margin: 1,
    errorCorrectionLevel: 'M',
    maskPattern: 2,
  });

/** The test-mode sandbox (spec Payment flow): instructions that look real, settled by `simulate`. */
async function sandboxAttempt(s: CheckoutSession, method: PaymentMethod, lang: Language) {
  const ref = `sandbox_${randomHex(8)}`;
  const label = methodDisplay(lang)[method].label;
  const M = messages(lang).checkout;
  switch (method) {
    case 'qris': {
      const amountLength = String(s.amount).length.toString().padStart(2, '0');
      const qr =
        `00020101021226570011ID.SVC.WWW0118${ref}5204599953033605802ID5907SANDBOX6007JAKARTA54` +
        `${amountLength}${s.amount}6304ABCD`;
      return {
        ref,
        data: { kind: 'qr', qrString: qr },
        view: { title: M.scanTitle, label, qrSvg: await qrSvg(qr), lines: [M.scanLine] },
      };
    }
    case 'va': {
      const va = `8808${String(BigInt(`0x${randomHex(6)}`) % 10n ** 12n).padStart(12, '0')}`;
      return {
        ref,
        data: { kind: 'va', bankCode: 'BCA', vaNumber: va },
        view: { title: M.vaTitle, label, code: va, lines: [M.bank('BCA (sandbox)'), M.amountExact] },
      };
    }
    case 'retail': {
      const code = `SVC${randomHex(4).toUpperCase()}`;
      return {
        ref,
        data: { kind: 'retail', outlet: 'ALFAMART', paymentCode: code },
        view: { title: M.retailTitle, label, code, lines: [M.retailAnywhere] },
      };
    }
    default:
      return {
        ref,
        data: { kind: 'redirect' },
        view: { title: M.sandboxTitle(label), label, lines: [M.sandboxLine] },
      };
  }
}

/** A provider's instructions as the page shows them. */
async function instructionsView(i: Instructions, label: string, lang: Language) {
  const M = messages(lang).checkout;
  switch (i.kind) {
    case 'qr':
      return { title: M.scanTitle, label, qrSvg: await qrSvg(i.qrString), lines: [M.scanLine] };
    case 'va':
      return { title: M.vaTitle, label, code: i.vaNumber, lines: [M.bank(i.bankCode), M.amountExact] };
    case 'retail':
      return { title: M.retailTitle, label, code: i.paymentCode, lines: [M.retailAt(i.outlet)] };
    case 'redirect':
      return { title: M.continueTo(label), label, redirectUrl: i.redirectUrl, lines: [] };
    default:
      return { title: label, label, lines: [] };
  }
}

function manualAttempt(publicConfig: Record<string, unknown>, lang: Language) {
  const accounts = (publicConfig.bankAccounts ?? []) as {
    bankName: string;
    accountNumber: string;
    accountHolder: string;
  }[];
  const lines = accounts.map((a) => `${a.bankName} ${a.accountNumber} (${a.accountHolder})`);
  if (typeof publicConfig.instructions === 'string') lines.push(publicConfig.instructions);
  if (typeof publicConfig.staticQrImageUrl === 'string') lines.push(`QR: ${publicConfig.staticQrImageUrl}`);
  const M = messages(lang);
  return { title: M.checkout.manualTitle, label: M.methods.bank_transfer.label, lines, canDeclarePaid: true };
}

/** `lang`: the page's language (its script sends it). */
export async function attempt(
  token: string,
  method: string,
  lang: Language = 'en',
  savePaymentMethod?: unknown,
): Promise<AttemptView> {
  const { id, scope } = await sessionOf(token);
  const first = await beginAttempt(scope, id, method, lang, savePaymentMethod);
  // Whatever this attempt replaced is withdrawn at its provider, outside any transaction.
  if (first.superseded.length) await voidAttempts(scope, first.superseded);
  if ('view' in first) return first.view;
  const { kind, adapter, attempt: a, input } = first;
  if (!adapter) {
    // Removed between the two statements of phase 1 (rare): nothing was called.
    await failAttempt(scope, a);
    throw err.of('gateway_error', `The ${kind} adapter is no longer connected`, 'method');
  }
  let charge;
  try {
    // Phase 2: no transaction open, no pool connection held, no session lock.
    charge = await providerFor(adapter).createCharge(input);
  } catch (e) {
    if (!isProviderError(e)) throw e;
    // spec Adapter: the failed call sets status error and emits adapter.error (its own transaction).
    await failAttempt(scope, a);
    await inTenant(scope, (tx) =>
      recordGatewayFailure(
        tx,
        scope,
        kind,
        e.reason === 'invalid_credentials' ? 'invalid_credentials' : 'gateway_error',
      ),
    );
    throw err.of('gateway_error', `The payment provider refused the attempt: ${e.message}`, 'method');
  }
  // Phase 3: compare-and-set; a charge that lost its place meanwhile is voided, never shown.
  const current = await tenantTx(scope, (sql) => recordCharge(sql, scope, a, charge.providerRef, charge.instructions));
  if (!current) {
    // Keep the reference whatever happened meanwhile: if the void fails, a payment on it is still matched.
    await inTenant(
      scope,
      (tx) =>
        tx.$executeRaw`UPDATE checkout_attempts
        SET "providerReference" = coalesce("providerReference", ${charge.providerRef}),
        status = CASE WHEN status = ANY(${statusesWhere(attempts, 'supersede')}) THEN ${attempts.moves.supersede.to}
          ELSE status END, "updatedAt" = ${clock.now()}
        WHERE id = ${a.id} AND "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}`,
    );
    await voidAttempts(scope, [{ id: a.id, adapter: kind, providerReference: charge.providerRef }]);
    throw err.conflict('The checkout session changed while the payment was being prepared; pick a method again');
  }
  // spec Adapter: a successful call clears `error` (its own transaction, after the attempt commits).
  if (canMove(adapterMachine, adapter.status as AdapterStatus, 'gateway_succeeded'))
    await inTenant(scope, (tx) => recordGatewaySuccess(tx, scope, kind));
  return {
    ...(await instructionsView(charge.instructions, methodDisplay(lang)[method as PaymentMethod].label, lang)),
    canDeclarePaid: false,
    canSimulate: false,
    waiting: true,
  };
}

type Begun =
  | { superseded: Superseded[]; view: AttemptView }
  | {
      superseded: Superseded[];
      kind: OnlineKind;
      adapter: Adapter | null;
      attempt: CheckoutAttempt;
      input: CreateChargeInput;
    };

/**
 * Phase 1, on a bare `pg` transaction of two statements (the session locked with the enabled
 * adapters read beside it; then one write with COMMIT that supersedes the live attempts, inserts
 * the new one, updates the session and reads the adapter row). Manual and sandbox attempts are
 * complete here; an online one is `creating` until its provider answers (phase 3).
 */
function beginAttempt(scope: Scope, id: string, method: string, lang: Language, box: unknown): Promise<Begun> {
  return tenantTx(scope, async (sql) => {
    const locked = await lockSessionWith<AdapterSources>(
      sql,
      scope,
      id,
      adapterSourcesSql(scope.workspaceId, scope.mode),
    );
    const s = assertLive(locked?.session);
    if (s.invoiceId) await assertInvoicePayable(sql, scope, s.invoiceId);
    const offered = offeredMethods(s.savePaymentMethod, s.methods);
    if (!offered.includes(method)) throw err.validation('method', `method must be one of ${offered.join(', ')}`);
    // The consent box (implied by `required`); recorded on the attempt, read again at completion.
    const saves = attemptSaves(s.savePaymentMethod, method, box);
    const enabled = enabledFrom(locked!.also, scope.mode);
    const [kind] = adaptersFor(enabled, scope.mode, method, s.currency) as AdapterKind[];
    if (!kind)
      throw err.of('no_adapter_supports_methods', `No enabled adapter serves ${method} in ${s.currency}`, 'method');
    if (kind !== 'manual' && !(kind === 'managed' && scope.mode === 'test') && !isOnline(kind)) {
      throw err.of('gateway_error', `The ${kind} adapter cannot take hosted payments in live mode yet`, 'method');
    }
    const now = clock.now();
    const adapterName = sessionAdapterName(kind);
    const base = {
      adapter: adapterName,
      attemptMethod: method,
      attemptCount: s.attemptCount + 1,
      attemptedAt: now,
      updatedAt: now,
      failureCode: null,
      failureMessage: null,
    };
    const write = (
      status: SessionStatus,
      providerReference: string | null,
      attemptData: unknown,
      online: OnlineKind | null,
    ) =>
      writeAttempt(
        sql,
        scope,
        id,
        newAttempt(scope, s, {
          id: newId('checkoutAttempt'),
          adapter: adapterName,
          method,
          created: online ? 'create' : 'create_open',
          providerReference,
          attemptData,
          savePaymentMethod: saves,
        }),
        { ...base, status, providerReference, attemptData },
        online,
      );
    if (kind === 'manual') {
      const publicConfig = enabled.find((a) => a.kind === 'manual')!.publicConfig;
      const { superseded } = await write(
        nextState(sessions, s.status as SessionStatus, 'attempt_manual').to,
        null,
        { kind: 'manual' },
        null,
      );
      return {
        superseded,
        view: { ...manualAttempt(publicConfig, lang), canDeclarePaid: true, canSimulate: false, waiting: false },
      };
    }
    if (kind === 'managed') {
      const a = await sandboxAttempt(s, method as PaymentMethod, lang);
      const { superseded } = await write(
        nextState(sessions, s.status as SessionStatus, 'attempt_online').to,
        a.ref,
        a.data,
        null,
      );
      return { superseded, view: { ...a.view, canDeclarePaid: false, canSimulate: true, waiting: true } };
    }
    const online = kind as OnlineKind;
    const attemptRow = newAttempt(scope, s, {
      id: newId('checkoutAttempt'),
      adapter: adapterName,
      method,
      created: 'create',
      providerReference: null,
      attemptData: null,
      savePaymentMethod: saves,
    });
    // The session is pending on an attempt whose charge does not exist yet: no reference, no instructions.
    const { superseded, adapter } = await writeAttempt(
      sql,
      scope,
      id,
      attemptRow,
      {
        ...base,
        status: nextState(sessions, s.status as SessionStatus, 'attempt_online').to,
        providerReference: null,
        attemptData: null,
      },
      online,
    );
    const input: CreateChargeInput = {
      reference: s.id,
      amount: Number(s.amount),
      currency: s.currency,
      method: method as PaymentMethod,
      expiresAt: s.expiresAt,
      successUrl: successRedirect(s.successUrl, s.id),
      cancelUrl: s.cancelUrl,
      callbackUrl: callbackUrl(online),
      idempotencyKey: attemptRow.idempotencyKey,
      description: `Checkout ${s.id}`,
      ...(saves ? { saveForFutureUse: true, customerId: s.customerId } : {}),
    };
    return { superseded, kind: online, adapter, attempt: attemptRow, input };
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
  const { id, scope } = await sessionOf(token);
  if (scope.mode !== 'test')
    throw new DomainError('forbidden_in_live_mode', 'simulate is available in test mode only', {
      resource: 'checkout_session',
    });
  if (outcome !== 'success' && outcome !== 'failure')
    throw err.validation('outcome', 'outcome must be success or failure');
  // The session's choice never changes: a session that saves completes in a Prisma transaction (save.ts).
  const [{ savePaymentMethod: choice }] = await inTenant(scope, (tx) =>
    tx.checkoutSession.findMany({ where: { id }, select: { savePaymentMethod: true } }),
  ).then((r) => (r.length ? r : [{ savePaymentMethod: 'none' }]));
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
