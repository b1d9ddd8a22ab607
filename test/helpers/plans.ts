import { randomUUID } from 'node:crypto';
import type { Workspace } from './server.ts';

/** spec Plan portalFeatures: the five required booleans, all on. */
export const allPortalFeatures = {
  selfServeCancel: true,
  selfServePause: true,
  selfServeUpgrade: true,
  selfServeDowngrade: true,
  updatePaymentMethod: true,
};

/** A valid create-plan body: a monthly plan with one flat IDR price, overridable field by field. */
export const planBody = (extra: Record<string, unknown> = {}) => ({
  name: 'Pro',
  interval: 'month',
  portalFeatures: allPortalFeatures,
  prices: [{ currency: 'IDR', model: 'flat', unitAmount: 150000 }],
  ...extra,
});

/** POST /v1/plans with a fresh Idempotency-Key (or the headers given). */
export const postPlan = (
  ws: Workspace,
  body: Record<string, unknown> = planBody(),
  headers: Record<string, string> = { 'idempotency-key': randomUUID() },
) => ws.client.post('/v1/plans', body, headers);
