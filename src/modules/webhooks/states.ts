/**
 * The webhook state machines (spec States: Webhook endpoint and delivery), one table each
 * (src/core/state-machine.ts). Endpoint moves outside the table are no-ops, not errors:
 * `enabled: true` on an active endpoint changes nothing (callers check `canMove`).
 */
import {
  defineMachine,
  outcomeTrigger,
  statusesWhere,
  type StatusOf,
  type TriggerOf,
} from '../../core/state-machine.ts';

export const webhookEndpointMachine = defineMachine({
  noun: 'webhook endpoint',
  resource: 'webhook_endpoint',
  stored: [{ table: 'webhook_endpoints', column: 'status' }],
  statuses: ['active', 'disabled', 'errored'],
  conflict: 'conflict',
  moves: {
    create: { from: [null], to: 'active' },
    /** create with `enabled: false`. */
    create_disabled: { from: [null], to: 'disabled' },
    /** update `enabled: true`; the failure count starts again. */
    enable: { from: ['disabled', 'errored'], to: 'active' },
    /** update with `enabled: false`; config and secret are kept. */
    disable: { from: ['active', 'errored'], to: 'disabled' },
    /** 20 consecutive failed attempts (the circuit breaker). */
    trip: { from: ['active'], to: 'errored', events: ['webhook_endpoint.disabled'] },
  },
});

export const endpointStatuses = webhookEndpointMachine.statuses;
export type EndpointStatus = StatusOf<typeof webhookEndpointMachine>;
export type EndpointTrigger = TriggerOf<typeof webhookEndpointMachine>;
/** The one status that receives deliveries (where `enable` leads). */
export const endpointActive = webhookEndpointMachine.moves.enable.to;

/** An attempt's outcome moves a pending delivery; nothing moves a finished one. */
export const webhookDeliveryMachine = defineMachine({
  noun: 'webhook delivery',
  resource: 'webhook_endpoint',
  stored: [{ table: 'webhook_deliveries', column: 'status' }],
  statuses: ['pending', 'succeeded', 'failed'],
  conflict: 'conflict',
  moves: {
    /** The relay's fan-out, or a manual retry (a new row). */
    create: { from: [null], to: 'pending' },
    succeeded: { from: ['pending'], to: 'succeeded' },
    failed_will_retry: { from: ['pending'], to: 'pending' },
    failed_final: { from: ['pending'], to: 'failed' },
  },
  outcomes: { attempt: { ok: 'succeeded', retry: 'failed_will_retry', final: 'failed_final' } },
});

export const deliveryStatuses = webhookDeliveryMachine.statuses;
export const deliverySucceeded = webhookDeliveryMachine.moves.succeeded.to;
export const deliveryFailed = webhookDeliveryMachine.moves.failed_final.to;
export type DeliveryTrigger = TriggerOf<typeof webhookDeliveryMachine>;
/** Deliveries an attempt may still move (the jobs' and the outcome batch's rows). */
export const attemptable = statusesWhere(webhookDeliveryMachine, 'succeeded', 'failed_will_retry', 'failed_final');

/** spec Webhook delivery: the waits after each failed attempt (ms); after the last the delivery stays failed. */
export const retryScheduleMs = [
  60e3,
  5 * 60e3,
  30 * 60e3,
  2 * 3600e3,
  5 * 3600e3,
  10 * 3600e3,
  24 * 3600e3,
  24 * 3600e3,
] as const;

/** 20 consecutive failed attempts trip an endpoint's breaker (spec). */
export const BREAKER_THRESHOLD = 20;

/** The delivery status after attempt `n` (0 = first) ended `ok` or not; manual retries get one attempt. */
export function afterAttempt(
  n: number,
  ok: boolean,
  manual: boolean,
): { trigger: DeliveryTrigger; retryInMs: number | null } {
  const outcome = ok ? 'ok' : manual || n >= retryScheduleMs.length ? 'final' : 'retry';
  return {
    trigger: outcomeTrigger(webhookDeliveryMachine, 'attempt', outcome),
    retryInMs: outcome === 'retry' ? retryScheduleMs[n] : null,
  };
}
