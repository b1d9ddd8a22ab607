import type { Mode, Tx } from '../../core/db/client.ts';
import { randomHex } from '../../core/crypto.ts';
import { hostedBase } from '../../core/hosted.ts';
import { emit } from '../../core/outbox.ts';
import { clock } from '../../core/clock.ts';
import { toWire } from '../../core/wire.ts';
import type { ManagedAccount } from '../../generated/prisma/client.ts';
import { adapterFields, onboardingFields, type AdapterView, type OnboardingView } from './fields.ts';
import type { RowScope } from '../../core/resource.ts';
import { adapterActive, adapterDisabled } from './states.ts';

/**
 * The managed (platform) provider's account API. Until the provider_a platform client exists,
 * sub-accounts are minted locally with provider_a-style ids (24 hex) and an onboarding URL on the
 * hosted base; the providers phase swaps in the real client with `setManagedPlatform`.
 */
export interface ManagedPlatform {
  createSubAccount(req: RowScope & { email: string }): Promise<{ subAccountId: string; onboardingUrl: string }>;
}

const localPlatform: ManagedPlatform = {
  async createSubAccount() {
    const subAccountId = randomHex(12);
    return { subAccountId, onboardingUrl: `${hostedBase()}/onboarding/${subAccountId}` };
  },
};
let platform: ManagedPlatform = localPlatform;
export const managedPlatform = () => platform;
export function setManagedPlatform(p: ManagedPlatform | null) {
  platform = p ?? localPlatform;
}

export const kybStatuses = ['not_started', 'invited', 'registered', 'live'] as const;
export const capabilitiesStatuses = ['inactive', 'pending', 'active'] as const;
/** Each word by name (several are also statuses of machines, and mean something else). */
export const [kybNotStarted, kybInvited, kybRegistered, kybLive] = kybStatuses;
export const [capabilitiesInactive, capabilitiesPending, capabilitiesActive] = capabilitiesStatuses;

export function onboardingView(row: ManagedAccount | null): OnboardingView {
  return {
    subAccountId: row?.subAccountId ?? null,
    kybStatus: row?.kybStatus ?? 'not_started',
    capabilitiesStatus: row?.capabilitiesStatus ?? 'inactive',
    payoutsReady: row?.payoutsReady ?? false,
    onboardingUrl: row?.onboardingUrl ?? null,
  };
}

/**
 * The virtual `managed` adapter (spec Adapter). Test mode: the sandbox, active from the
 * workspace's creation whatever the onboarding state (spec Payment flow). Live mode: listed once the
 * sub-account is live. null when it is not (yet) an adapter.
 */
export function managedAdapterView(
  row: ManagedAccount | null,
  mode: Mode,
  workspaceCreatedAt: Date,
): AdapterView | null {
  if (mode === 'live' && row?.kybStatus !== 'live') return null;
  return {
    kind: 'managed',
    status: row?.status ?? adapterActive,
    secretKeyLast4: null,
    publicConfig: {
      subAccountId: row?.subAccountId ?? null,
      env: mode === 'test' ? 'sandbox' : 'production',
      kybStatus: row?.kybStatus ?? 'not_started',
      capabilitiesStatus: row?.capabilitiesStatus ?? 'inactive',
      payoutsReady: row?.payoutsReady ?? false,
      lastWebhookAt: row?.lastWebhookAt?.toISOString() ?? null,
    },
    configuredAt: row?.createdAt ?? workspaceCreatedAt,
    lastErrorAt: row?.lastErrorAt ?? null,
    lastErrorCode: row?.lastErrorCode ?? null,
  };
}

/** Live managed payments need a live sub-account with active capabilities; the sandbox always serves. */
export function managedEnabled(row: ManagedAccount | null, mode: Mode): boolean {
  if (row?.status === adapterDisabled) return false;
  return mode === 'test' || (row?.kybStatus === 'live' && row.capabilitiesStatus === capabilitiesActive);
}

export interface ManagedUpdate {
  kybStatus?: (typeof kybStatuses)[number];
  capabilitiesStatus?: (typeof capabilitiesStatuses)[number];
  payoutsReady?: boolean;
  /** When the platform told us (a webhook): recorded as `lastWebhookAt`. */
  webhookAt?: Date;
}

/**
 * Applies a change of the sub-account profile (onboarding start, platform webhooks) and emits
 * `adapter.managed.kyb_changed` / `adapter.managed.capabilities_changed` for what moved, with the
 * onboarding state as `data.object` and `data.id` `managed`.
 */
export async function applyManagedUpdate(
  tx: Tx,
  scope: RowScope,
  before: ManagedAccount,
  update: ManagedUpdate & { email?: string; subAccountId?: string; onboardingUrl?: string },
  requestId?: string,
) {
  const row = await tx.managedAccount.update({
    where: { workspaceId_mode: { workspaceId: scope.workspaceId, mode: scope.mode } },
    data: {
      ...(update.kybStatus ? { kybStatus: update.kybStatus } : {}),
      ...(update.capabilitiesStatus ? { capabilitiesStatus: update.capabilitiesStatus } : {}),
      ...(update.payoutsReady !== undefined ? { payoutsReady: update.payoutsReady } : {}),
      ...(update.email ? { email: update.email } : {}),
      ...(update.subAccountId ? { subAccountId: update.subAccountId } : {}),
      ...(update.onboardingUrl ? { onboardingUrl: update.onboardingUrl } : {}),
      ...(update.webhookAt ? { lastWebhookAt: update.webhookAt } : {}),
      updatedAt: clock.now(),
    },
  });
  const object = toWire(onboardingView(row), onboardingFields);
  const opts = { objectId: 'managed', requestId, source: update.webhookAt ? 'provider' : 'api' };
  if (row.kybStatus !== before.kybStatus) {
    await emit(tx, scope, 'adapter.managed.kyb_changed', object, {
      ...opts,
      previousAttributes: { kybStatus: before.kybStatus },
    });
  }
  if (row.capabilitiesStatus !== before.capabilitiesStatus || row.payoutsReady !== before.payoutsReady) {
    const previous: Record<string, unknown> = {};
    if (row.capabilitiesStatus !== before.capabilitiesStatus) previous.capabilitiesStatus = before.capabilitiesStatus;
    if (row.payoutsReady !== before.payoutsReady) previous.payoutsReady = before.payoutsReady;
    await emit(tx, scope, 'adapter.managed.capabilities_changed', object, { ...opts, previousAttributes: previous });
  }
  return row;
}

export const adapterWire = (v: AdapterView) => toWire(v, adapterFields);
