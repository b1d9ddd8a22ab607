/**
 * A verified token callback that a saved method expired or was revoked at its provider (the
 * customer unlinked the e-wallet, PayPal deleted the vaulted token). The callback only says when to
 * ask: the provider's token status (`fetchTokenStatus`, no transaction open) decides, and the method
 * moves `expire` or `revoke` by that answer in one transaction with its event, which clears it as a
 * default and from subscriptions (service.ts moveMethod), so no charge of it starts after that commit
 * (docs/guides/payment-methods.md, States). A callback the provider does not confirm (the token still
 * active, an adapter without a status lookup, the provider unreachable) changes nothing. Found without
 * decrypting anything: by `providerTokenHash` where the callback names the token itself (provider_a
 * payment method ids, provider_c payment tokens), else by the setup attempt that saved it (provider_b
 * names the GoPay account of the link; a completed attempt keeps only that hash). A repeated or late
 * callback finds the method already moved and changes nothing.
 */
import { inTenant } from '../../core/db/client.ts';
import { prismaSql, scopedRow, sql as q } from '../../core/db/sql.ts';
import { clock } from '../../core/clock.ts';
import { logger } from '../../core/logger.ts';
import type { PaymentMethod } from '../../generated/prisma/client.ts';
import type { Provider, TokenEvent, TokenStatus } from '../../providers/index.ts';
import { canMove } from '../../core/state-machine.ts';
import type { RowScope } from '../../core/resource.ts';
import { moveMethod, providerTokenHash } from './service.ts';
import { paymentMethodMachine, type PaymentMethodStatus, type PaymentMethodTrigger } from './states.ts';

/** The method's move for the provider's word: the move that ends in the status the provider reports. */
const triggerOf = Object.fromEntries(
  (['expire', 'revoke'] as const).map((t) => [paymentMethodMachine.moves[t].to, t]),
) as Partial<Record<TokenEvent['status'] | TokenStatus, PaymentMethodTrigger>>;

type Outcome = { outcome: 'applied' | 'duplicate' | 'not_confirmed' };

/** The method the callback names in `tenant` (by token hash, or by the setup attempt that saved it). */
async function methodNamed(tenant: RowScope, kind: string, tokenRef: string): Promise<PaymentMethod | null> {
  return inTenant({ workspaceId: tenant.workspaceId, modes: [tenant.mode] }, async (tx) => {
    const sql = prismaSql(tx);
    const hash = providerTokenHash(kind, tokenRef);
    const [found] = await sql.query<{ id: string }>(
      q`SELECT m.id FROM payment_methods m WHERE m."workspaceId" = ${tenant.workspaceId} AND m.mode = ${tenant.mode}
          AND m.adapter = ${kind} AND m."providerTokenHash" = ${hash}
        UNION ALL
        SELECT m.id FROM setup_attempts a
          JOIN setup_sessions s ON s."workspaceId" = a."workspaceId" AND s.mode = a.mode AND s.id = a."setupSessionId"
          JOIN payment_methods m ON m."workspaceId" = s."workspaceId" AND m.mode = s.mode AND m.id = s."paymentMethodId"
        WHERE a."workspaceId" = ${tenant.workspaceId} AND a.mode = ${tenant.mode} AND a.adapter = ${kind}
          AND a."providerRef" IN (${tokenRef}, ${hash})
        LIMIT 1`,
    );
    return found ? scopedRow<PaymentMethod>(sql, 'payment_methods', tenant, found.id) : null;
  });
}

/** The move of the method the callback names in `tenant`, or null when it names none there. */
export async function applyTokenRevocation(
  tenant: RowScope,
  kind: string,
  provider: Provider,
  event: Pick<TokenEvent, 'tokenRef' | 'status'>,
): Promise<Outcome | null> {
  if (!triggerOf[event.status]) return null;
  const named = await methodNamed(tenant, kind, event.tokenRef);
  if (!named) return null;
  const movable = (pm: PaymentMethod) =>
    (['expire', 'revoke'] as const).some((t) => canMove(paymentMethodMachine, pm.status as PaymentMethodStatus, t));
  if (!movable(named)) return { outcome: 'duplicate' };
  // The provider's word, not the callback's (no transaction open): a forged or replayed callback changes
  // nothing. A provider error is a 5xx: the provider retries the callback.
  const status: TokenStatus = provider.fetchTokenStatus ? await provider.fetchTokenStatus(event.tokenRef) : 'unknown';
  const trigger = triggerOf[status];
  if (!trigger) {
    logger.warn({ provider: kind, method: named.id, said: event.status, status }, 'token callback not confirmed');
    return { outcome: 'not_confirmed' };
  }
  return inTenant({ workspaceId: tenant.workspaceId, modes: [tenant.mode] }, async (tx) => {
    const sql = prismaSql(tx);
    const pm = await scopedRow<PaymentMethod>(sql, 'payment_methods', tenant, named.id, { lock: true });
    if (!pm || !canMove(paymentMethodMachine, pm.status as PaymentMethodStatus, trigger))
      return { outcome: 'duplicate' as const };
    const [ws] = await sql.query<{ accountId: string }>(
      q`SELECT "accountId" FROM workspaces WHERE id = ${tenant.workspaceId}`,
    );
    await moveMethod(sql, tenant, pm.id, trigger, {
      accountId: ws.accountId,
      source: `callback:${kind}`,
      at: clock.now(),
    });
    return { outcome: 'applied' as const };
  });
}
