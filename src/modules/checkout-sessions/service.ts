import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant, type Mode, type Tx } from '../../core/db/client.ts';
import { insertRows, sql as q, sqlOf, tenantTx, type AnyTx, type Fragment, type Sql } from '../../core/db/sql.ts';
import { earlierRow } from '../../core/operations.ts';
import { errorsFor } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { isCurrency } from '../../core/money.ts';
import { keysetList } from '../../core/pagination.ts';
import { findScoped } from '../../core/resource.ts';
import { checkCurrency, checkLength, checkRedirectUrl, validateMetadata } from '../../core/validation.ts';
import { clock } from '../../core/clock.ts';
import { assertMethodsServed, paymentMethods, type PaymentMethod } from '../adapters/capabilities.ts';
import { enabledAdapters } from '../adapters/service.ts';
import { templateForUse } from '../templates/service.ts';
import { completeSession } from './complete.ts';
import type { SessionRow } from './fields.ts';
import { nextState } from '../../core/state-machine.ts';
import { checkoutAttemptMachine, checkoutSessionMachine as sessions, type SessionStatus } from './states.ts';
import { liveAttempt, voidAttempts, type Superseded } from './attempts.ts';
import type { CheckoutSession } from '../../generated/prisma/client.ts';
import type { CreateSessionInput, LineItemInput, ListSessionsArgs } from './schema.ts';
import { sessionList } from './list.ts';
import { checkSaveChoice } from './save.ts';
import type { RowScope } from '../../core/resource.ts';

const err = errorsFor('checkout_session');

const httpsUrl = (value: string, field: string) => checkRedirectUrl(value, field, 'checkout_session');

function lineItems(items: LineItemInput[] | null | undefined) {
  if (items == null) return [];
  if (!Array.isArray(items) || items.length > 100)
    throw err.validation('lineItems', 'lineItems must be an array of at most 100 items');
  return items.map((i, n) => {
    const f = (name: string) => `lineItems[${n}].${name}`;
    if (typeof i?.name !== 'string') throw err.validation(f('name'), 'name is required');
    checkLength(i.name, f('name'), 1, 255, 'checkout_session');
    if (!Number.isSafeInteger(i.quantity) || i.quantity! < 1)
      throw err.validation(f('quantity'), 'quantity must be a positive integer');
    if (!Number.isSafeInteger(i.unitAmount) || i.unitAmount! < 0)
      throw err.validation(f('unitAmount'), 'unitAmount must be an integer >= 0');
    // The line's amount (the page and the receipt show it) is an amount like any other: at most 2^53 - 1.
    if (BigInt(i.quantity!) * BigInt(i.unitAmount!) > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw err.validation(f('quantity'), 'quantity x unitAmount must be at most 9007199254740991 (2^53 - 1)');
    }
    if (i.description != null) checkLength(i.description, f('description'), 0, 1024, 'checkout_session');
    const metadata = i.metadata == null ? undefined : validateMetadata(i.metadata, f('metadata'), 'checkout_session');
    return {
      name: i.name,
      quantity: i.quantity!,
      unitAmount: i.unitAmount!,
      ...(i.description != null ? { description: i.description } : {}),
      ...(metadata ? { metadata } : {}),
    };
  });
}

function validateCreate(input: CreateSessionInput) {
  if (!Number.isSafeInteger(input.amount) || input.amount <= 0)
    throw err.validation('amount', 'amount must be a positive integer in the smallest currency unit');
  checkCurrency(input.currency, 'currency', 'checkout_session');
  if (!Array.isArray(input.methods) || input.methods.length === 0)
    throw err.validation('methods', 'methods must be a non-empty array');
  for (const m of input.methods) {
    if (!(paymentMethods as readonly string[]).includes(m))
      throw err.validation('methods', `unknown method ${JSON.stringify(m)}; one of ${paymentMethods.join(', ')}`);
  }
  const expiresInSec = input.expiresInSec ?? 86_400;
  if (!Number.isSafeInteger(expiresInSec) || expiresInSec < 300 || expiresInSec > 2_592_000)
    throw err.validation('expiresInSec', 'expiresInSec must be an integer from 300 to 2592000');
  const methods = [...new Set(input.methods)] as PaymentMethod[];
  return {
    methods,
    savePaymentMethod: checkSaveChoice(input.savePaymentMethod, input.customerId, methods),
    successUrl: httpsUrl(input.successUrl, 'successUrl'),
    cancelUrl: httpsUrl(input.cancelUrl, 'cancelUrl'),
    lineItems: lineItems(input.lineItems),
    metadata: input.metadata == null ? null : validateMetadata(input.metadata, 'metadata', 'checkout_session'),
    expiresInSec,
  };
}

export async function createCheckoutSession(ctx: Context, input: CreateSessionInput): Promise<SessionRow> {
  const auth = authorize(ctx, 'svc:checkout:write');
  const v = validateCreate(input);
  const scope = tenant(auth);
  // The hottest write: a bare `pg` transaction of four statements (the operation's claim, checks, insert), no ORM.
  const id = newId('checkoutSession');
  const row = await tenantTx(scope, async (sql) => {
    // The same request run again (its claim taken over) answers the session it made.
    const earlier = await earlierRow<SessionRow>(
      sql,
      scope,
      ctx.replay,
      'checkout_session.create',
      'checkout_sessions',
      id,
    );
    if (earlier) return earlier;
    // One connection runs one statement at a time: these are sequential on purpose.
    if (
      input.customerId &&
      !(
        await sql.query(
          q`SELECT 1 FROM customers
            WHERE id = ${input.customerId} AND "workspaceId" = ${auth.workspaceId} AND mode = ${auth.mode}`,
        )
      ).length
    ) {
      throw err.of('not_found', 'No such customer', 'customerId');
    }
    const template = input.templateId
      ? await templateForUse(sql, scope, input.templateId, 'receipt', 'checkout_session')
      : null;
    const enabled = await enabledAdapters(sql, scope);
    // A currency nobody serves is the same 422 as methods nobody serves (spec).
    if (!isCurrency(input.currency))
      throw err.of('no_adapter_supports_methods', `No enabled adapter serves ${input.currency}`, 'currency');
    assertMethodsServed(enabled, auth.mode, v.methods, input.currency);
    const now = clock.now();
    const insert = insertRows('checkout_sessions', [
      {
        id,
        workspaceId: auth.workspaceId,
        mode: auth.mode,
        amount: BigInt(input.amount),
        currency: input.currency,
        methods: v.methods,
        lineItems: v.lineItems,
        successUrl: v.successUrl,
        cancelUrl: v.cancelUrl,
        customerId: input.customerId ?? null,
        savePaymentMethod: v.savePaymentMethod,
        templateId: template?.id ?? null,
        metadata: v.metadata,
        expiresAt: new Date(now.getTime() + v.expiresInSec * 1000),
        createdAt: now,
        updatedAt: now,
      },
    ]);
    const [created] = await sql.last<CheckoutSession>(q`${insert} RETURNING *`);
    return created;
  });
  return { ...row, accountId: auth.accountId };
}

export async function getCheckoutSession(ctx: Context, id: string): Promise<SessionRow> {
  const auth = authorize(ctx, 'svc:checkout:read');
  const row = await inTenant(tenant(auth), (tx) =>
    findScoped(tx.checkoutSession, auth, id, () => err.notFound('checkout session')),
  );
  return { ...row, accountId: auth.accountId };
}

export async function listCheckoutSessions(ctx: Context, args: ListSessionsArgs) {
  const auth = authorize(ctx, 'svc:checkout:read');
  sessionList.check(args);
  if (args.mode && args.mode !== 'test' && args.mode !== 'live')
    throw err.validation('mode', 'mode must be live or test');
  // spec: the key's environment is implied; a platform-admin key may ask for the other.
  const mode = (args.mode && auth.isPlatformAdmin ? args.mode : auth.mode) as Mode;
  const filters = { ...sessionList.values(args), mode };
  return keysetList(
    { args, workspaceId: auth.workspaceId, filters, limit: sessionList.limit, column: sessionList.position },
    (ks) =>
      inTenant(tenant(auth, [mode]), (tx) =>
        tx.checkoutSession.findMany({
          where: { workspaceId: auth.workspaceId, mode, AND: [...sessionList.prisma(args), ks.where] },
          orderBy: ks.orderBy,
          take: ks.take,
        }),
      ).then((rows) => rows.map((r) => ({ ...r, accountId: auth.accountId }))),
  );
}

/**
 * The session `s` locked for the rest of the transaction, with `also` read beside it when given.
 * A session that pays an invoice has that invoice locked first, in the same statement (the
 * subquery runs before the session's row lock): every path takes invoice then session, as paying
 * the invoice another way does when it closes the session (invoice-sessions.ts), so they never deadlock.
 */
const lockSql = (scope: RowScope, id: string, also?: Fragment) =>
  q`SELECT s.*${also ? q`, ${also} AS also` : q.empty} FROM checkout_sessions s
    WHERE s.id = ${id} AND s."workspaceId" = ${scope.workspaceId} AND s.mode = ${scope.mode}
      AND (SELECT count(*) FROM (SELECT 1 FROM invoices i WHERE i."workspaceId" = ${scope.workspaceId}
        AND i.mode = ${scope.mode} AND i.id = (SELECT c."invoiceId" FROM checkout_sessions c
          WHERE c.id = ${id} AND c."workspaceId" = ${scope.workspaceId} AND c.mode = ${scope.mode})
        FOR UPDATE OF i) l) >= 0
    FOR UPDATE OF s`;

/** The session row, locked for the rest of the transaction: every state change starts here. */
export async function lockSession(tx: AnyTx, scope: RowScope, id: string): Promise<CheckoutSession | null> {
  const [row] = await sqlOf(tx).query<CheckoutSession>(lockSql(scope, id));
  return row ?? null;
}

/**
 * lockSession and one more read in the same statement (a round trip less on the hot paths):
 * `also` is a select-list expression over the session `s`.
 */
export async function lockSessionWith<T>(
  sql: Sql,
  scope: RowScope,
  id: string,
  also: Fragment,
): Promise<{ session: CheckoutSession; also: T } | null> {
  const [row] = await sql.query<CheckoutSession & { also: T }>(lockSql(scope, id, also));
  if (!row) return null;
  const { also: read, ...session } = row;
  return { session, also: read };
}

/**
 * Merchant or customer cancel (no event, spec). Refused while a provider_c capture is claimed
 * (the money may be moving); the live attempts are superseded, and the caller voids them at their
 * providers after the commit (cancelSession).
 */
export async function cancelSessionIn(
  tx: Tx,
  scope: RowScope,
  id: string,
): Promise<CheckoutSession & { superseded: Superseded[] }> {
  const s = await lockSession(tx, scope, id);
  if (!s) throw err.notFound('checkout session');
  const status = nextState(sessions, s.status as SessionStatus, 'cancel').to;
  const now = clock.now();
  const where = { workspaceId: scope.workspaceId, mode: scope.mode, checkoutSessionId: id };
  if (await tx.checkoutAttempt.count({ where: { ...where, status: checkoutAttemptMachine.moves.claim_capture.to } }))
    throw err.conflict('A payment for this checkout session is being captured; it can no longer be canceled');
  const live = await tx.checkoutAttempt.findMany({
    where: { ...where, status: { in: liveAttempt } },
    select: { id: true, adapter: true, providerReference: true },
  });
  if (live.length)
    await tx.checkoutAttempt.updateMany({
      where: { id: { in: live.map((a) => a.id) } },
      data: { status: checkoutAttemptMachine.moves.supersede.to, updatedAt: now },
    });
  const row = await tx.checkoutSession.update({ where: { id }, data: { status, canceledAt: now, updatedAt: now } });
  return Object.assign(row, { superseded: live });
}

/** Cancels and then withdraws the session's live attempts at their providers (outside the transaction). */
export async function cancelSession(scope: RowScope, id: string): Promise<CheckoutSession> {
  const { superseded, ...row } = await inTenant({ ...scope, modes: [scope.mode] }, (tx) =>
    cancelSessionIn(tx, scope, id),
  );
  if (superseded.length) await voidAttempts(scope, superseded);
  return row;
}

export async function cancelCheckoutSession(ctx: Context, id: string): Promise<SessionRow> {
  const auth = authorize(ctx, 'svc:checkout:write');
  const row = await cancelSession(tenant(auth), id);
  return { ...row, accountId: auth.accountId };
}

/** spec confirm: a manual session the merchant saw paid. */
export async function confirmCheckoutSession(ctx: Context, id: string): Promise<SessionRow> {
  const auth = authorize(ctx, 'svc:checkout:write');
  const scope = tenant(auth);
  const row = await inTenant(scope, async (tx) => {
    const s = await lockSession(tx, scope, id);
    if (!s) throw err.notFound('checkout session');
    if (s.adapter !== 'manual') throw err.conflict('Only a manual-adapter session can be confirmed');
    // spec: a completed session refuses confirm (409), unlike a repeated callback
    nextState(sessions, s.status as SessionStatus, 'confirm');
    return completeSession(tx, scope, s, {
      trigger: 'confirm',
      adapter: 'manual',
      method: s.attemptMethod,
      providerReference: null,
      requestId: ctx.requestId,
    });
  });
  return { ...row, accountId: auth.accountId };
}
