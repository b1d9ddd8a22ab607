/**
 * The webhook state machines (spec States: Webhook endpoint and delivery), one table each.
 * Endpoint moves outside the table are no-ops, not errors: `enabled: true` on an active endpoint
 * changes nothing.
 */
export const endpointStatuses = ['active', 'disabled', 'errored'] as const;
export type EndpointStatus = (typeof endpointStatuses)[number];

export const endpointTransitions = {
  /** update `enabled: true`; the failure count starts again. */
  enable: { from: ['disabled', 'errored'], to: 'active', event: null },
  /** create or update with `enabled: false`; config and secret are kept. */
  disable: { from: ['active', 'errored'], to: 'disabled', event: null },
  /** 20 consecutive failed attempts (the circuit breaker). */
  trip: { from: ['active'], to: 'errored', event: 'webhook_endpoint.disabled' },
} as const satisfies Record<string, { from: readonly EndpointStatus[]; to: EndpointStatus; event: string | null }>;

export type EndpointTrigger = keyof typeof endpointTransitions;

/** The status after a trigger, or null when the trigger does not apply from `current`. */
export function nextEndpointStatus(current: EndpointStatus, trigger: EndpointTrigger): EndpointStatus | null {
  const t = endpointTransitions[trigger];
  return (t.from as readonly EndpointStatus[]).includes(current) ? t.to : null;
}

export const deliveryStatuses = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

/** An attempt's outcome moves a pending delivery; nothing moves a finished one. */
export const deliveryTransitions = {
  succeeded: { from: ['pending'], to: 'succeeded' },
  failed_will_retry: { from: ['pending'], to: 'pending' },
  failed_final: { from: ['pending'], to: 'failed' },
} as const satisfies Record<string, { from: readonly DeliveryStatus[]; to: DeliveryStatus }>;

/** spec Webhook delivery: the waits after each failed attempt (ms); after the last the delivery stays failed. */
export const retryScheduleMs = [60e3, 5 * 60e3, 30 * 60e3, 2 * 3600e3, 5 * 3600e3, 10 * 3600e3, 24 * 3600e3, 24 * 3600e3] as const;

/** 20 consecutive failed attempts trip an endpoint's breaker (spec). */
export const BREAKER_THRESHOLD = 20;

/** The delivery status after attempt `n` (0 = first) ended `ok` or not; manual retries get one attempt. */
export function afterAttempt(n: number, ok: boolean, manual: boolean): { trigger: keyof typeof deliveryTransitions; retryInMs: number | null } {
  if (ok) return { trigger: 'succeeded', retryInMs: null };
  if (manual || n >= retryScheduleMs.length) return { trigger: 'failed_final', retryInMs: null };
  return { trigger: 'failed_will_retry', retryInMs: retryScheduleMs[n] };
}
