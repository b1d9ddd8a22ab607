import { createProvider, type Provider } from '../../providers/index.ts';
import { sha256Hex } from '../../core/crypto.ts';
import { hostedBase } from '../../core/hosted.ts';
import { adapterSecrets } from './service.ts';
import type { Adapter } from '../../generated/prisma/client.ts';
import { sql as q, sqlOf, type AnyTx } from '../../core/db/sql.ts';
import type { RowScope } from '../../core/resource.ts';

export type OnlineKind = 'provider_a' | 'provider_b' | 'provider_c';
export const isOnline = (kind: string): kind is OnlineKind =>
  kind === 'provider_a' || kind === 'provider_b' || kind === 'provider_c';

/**
 * Provider origins come from the environment, read per call (PROVIDER_A_BASE_URL, ...): production
 * leaves them unset (the providers' own origins), development and tests point them at simulators.
 */
const env = (name: string) => process.env[name] || undefined;
/** Each provider call's timeout, connect to last byte (`SVC_PROVIDER_TIMEOUT_MS`; unset, 10 000). */
const timeoutMs = () => Number(env('SVC_PROVIDER_TIMEOUT_MS')) || undefined;

/** Where providers POST their callbacks: SVC_CALLBACK_BASE_URL, else the hosted base. */
export const callbackUrl = (kind: OnlineKind) =>
  `${(env('SVC_CALLBACK_BASE_URL') ?? hostedBase()).replace(/\/+$/, '')}/v1/callbacks/${kind}`;

/** A provider client from a stored adapter: decrypted write-only secrets plus its public configuration. */
export function providerFor(row: Adapter): Provider {
  const secrets = adapterSecrets<Record<string, string | null>>(row) ?? {};
  const pub = row.publicConfig as Record<string, string | null>;
  switch (row.kind) {
    case 'provider_a':
      return createProvider(
        {
          kind: 'provider_a',
          credentials: { secretKey: secrets.secretKey!, callbackToken: secrets.callbackToken ?? null } as never,
        },
        { baseUrl: env('PROVIDER_A_BASE_URL'), timeoutMs: timeoutMs() },
      );
    case 'provider_b':
      return createProvider(
        {
          kind: 'provider_b',
          credentials: {
            serverKey: secrets.serverKey!,
            clientKey: pub.clientKey,
            merchantId: pub.merchantId,
            env: pub.env ?? 'sandbox',
          } as never,
        },
        {
          baseUrl: env('PROVIDER_B_BASE_URL'),
          snapBaseUrl: env('PROVIDER_B_SNAP_BASE_URL') ?? env('PROVIDER_B_BASE_URL'),
          timeoutMs: timeoutMs(),
        },
      );
    case 'provider_c':
      return createProvider(
        {
          kind: 'provider_c',
          credentials: {
            clientId: pub.clientId!,
            secret: secrets.secret!,
            webhookId: env('PROVIDER_C_WEBHOOK_ID') ?? null,
            mode: pub.mode ?? 'live',
          } as never,
        },
        { baseUrl: env('PROVIDER_C_BASE_URL'), timeoutMs: timeoutMs() },
      );
    default:
      throw new Error(`no provider client for adapter kind ${row.kind}`);
  }
}

/**
 * One key per credential set (kind, decrypted secrets, public configuration): workspaces connected with the
 * same provider account share it, so a callback verified for one of them is verified for all (one
 * verification call to the provider per credential set, not per workspace).
 */
export const credentialSetOf = (row: Adapter): string =>
  sha256Hex(JSON.stringify([row.kind, adapterSecrets(row), row.publicConfig ?? null]));

/**
 * A tenant's adapter rows of some kinds, in one statement on either SQL path: the hot callers
 * (callbacks, batches of off-session charges) build clients from them per use and never keep them,
 * so a rotated credential applies to the next call.
 */
export async function adapterRows(tx: AnyTx, scope: RowScope, kinds: readonly string[]): Promise<Adapter[]> {
  if (!kinds.length) return [];
  return sqlOf(tx).query<Adapter>(
    q`SELECT * FROM adapters WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
      AND kind = ANY (${[...new Set(kinds)]}::text[])`,
  );
}
