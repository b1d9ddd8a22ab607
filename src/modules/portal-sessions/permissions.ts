// What a customer may do to a subscription in the portal: the plan's `portalFeatures` AND the workspace's
// toggles (docs/billing.md, Portal), and the plan changes that allows.
import { DomainError } from '../../core/errors.ts';
import { formatMoney } from '../../core/money.ts';
import { canMove } from '../../core/state-machine.ts';
import type { Plan, Price, Subscription } from '../../generated/prisma/client.ts';
import type { PortalFeatures } from '../plans/validate.ts';
import { periodAmount, periodFits } from '../subscriptions/invoice.ts';
import { isPastDue } from '../subscriptions/past-due.ts';
import {
  subscriptionIncomplete,
  subscriptionLive,
  subscriptionMachine,
  type SubscriptionStatus,
} from '../subscriptions/states.ts';
import { type OptionRow, type SubRow, priceOf } from './reads.ts';

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

interface PlanOption {
  priceId: string;
  planName: string;
  amount: string;
  interval: string;
  intervalCount: number;
  direction: 'upgrade' | 'downgrade';
}

/** The options of one subscription: other prices in its currency, each an upgrade or a downgrade it is allowed. */
export function optionsFor(sub: SubRow, actions: PortalActions, all: OptionRow[]): PlanOption[] {
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

export const actionsOf = (s: SubRow, settings: PortalSettings) =>
  portalActions(s, s.price, s.plan.portalFeatures as unknown as PortalFeatures, settings);

export const forbidden = (what: string) =>
  new DomainError('insufficient_scope', `This portal does not allow ${what} for this subscription`, {
    resource: 'portal_session',
  });
