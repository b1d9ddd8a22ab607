/**
 * A verified token callback that a saved method expired or was revoked at its provider (the
 * customer unlinked the e-wallet, PayPal deleted the vaulted token): the method moves `expire` or
 * `revoke` in one transaction with its event, which clears it as a default and from subscriptions
 * (service.ts moveMethod), so no charge of it starts after that commit (docs/guides/payment-methods.md,
 * States). Found without decrypting anything: by `providerTokenHash` where the callback names the
 * token itself (provider_a payment method ids, provider_c payment tokens), else by the setup attempt
 * that saved it (provider_b names the GoPay account of the link). A repeated or late callback finds
 * the method already moved and changes nothing.
 */
import { inTenant } from '../../core/db/client.ts';
import { prismaSql, scopedRow, sql as q } from '../../core/db/sql.ts';
import { clock } from '../../core/clock.ts';
import type { PaymentMethod } from '../../generated/prisma/client.ts';
import type { TokenEvent } from '../../providers/types.ts';
import { canMove } from '../../core/state-machine.ts';
import type { RowScope } from '../../core/resource.ts';
import { moveMethod, providerTokenHash } from './service.ts';
import { paymentMethodMachine, type PaymentMethodStatus, type PaymentMethodTrigger } from './states.ts';

/** The method's move for the provider's word: the move that ends in the status the provider reports. */
const triggerOf = Object.fromEntries(
  (['expire', 'revoke'] as const).map((t) => [paymentMethodMachine.moves[t].to, t]),
) as Partial<Record<TokenEvent['status'], PaymentMethodTrigger>>;

/** The move of the method the callback names in `tenant`, or null when it names none there. */
export async function applyTokenRevocation(
  tenant: RowScope,
  kind: string,
  event: Pick<TokenEvent, 'tokenRef' | 'status'>,
): Promise<{ outcome: 'applied' | 'duplicate' } | null> {
  const trigger = triggerOf[event.status];
  if (!trigger) return null;
  return inTenant({ workspaceId: tenant.workspaceId, modes: [tenant.mode] }, async (tx) => {
    const sql = prismaSql(tx);
    const [found] = await sql.query<{ id: string }>(
      q`SELECT m.id FROM payment_methods m WHERE m."workspaceId" = ${tenant.workspaceId} AND m.mode = ${tenant.mode}
          AND m.adapter = ${kind} AND m."providerTokenHash" = ${providerTokenHash(kind, event.tokenRef)}
        UNION ALL
        SELECT m.id FROM setup_attempts a
          JOIN setup_sessions s ON s."workspaceId" = a."workspaceId" AND s.mode = a.mode AND s.id = a."setupSessionId"
          JOIN payment_methods m ON m."workspaceId" = s."workspaceId" AND m.mode = s.mode AND m.id = s."paymentMethodId"
        WHERE a."workspaceId" = ${tenant.workspaceId} AND a.mode = ${tenant.mode} AND a.adapter = ${kind}
          AND a."providerRef" = ${event.tokenRef}
        LIMIT 1`,
    );
    if (!found) return null;
    const pm = await scopedRow<PaymentMethod>(sql, 'payment_methods', tenant, found.id, { lock: true });
    if (!pm || !canMove(paymentMethodMachine, pm.status as PaymentMethodStatus, trigger))
      return { outcome: 'duplicate' };
    const [ws] = await sql.query<{ accountId: string }>(
      q`SELECT "accountId" FROM workspaces WHERE id = ${tenant.workspaceId}`,
    );
    await moveMethod(sql, tenant, pm.id, trigger, {
      accountId: ws.accountId,
      source: `callback:${kind}`,
      at: clock.now(),
    });
    return { outcome: 'applied' };
  });
}
