// provider_a's callback bodies to our events: the typed `event` envelope, and the older untyped bodies.
import { CallbackVerificationError } from '../errors.ts';
import type { CallbackEvent, ChargeStatus } from '../types.ts';
import { ewalletStatus, invoiceStatus, refundStatus, toAmount, withoutToken } from './mapping.ts';

export function mapCallback(b: any): CallbackEvent {
  return typeof b.event === 'string' ? mapEventCallback(b) : mapUntypedCallback(b);
}

/** Bodies with an `event` name (QR, e-wallet, payment methods, payment requests, refunds). */
function mapEventCallback(b: any): CallbackEvent {
  const d = b.data ?? {};
  switch (b.event) {
    case 'qr.payment':
      return chargeEvent(
        `qris:${d.qr_id}`,
        d.id,
        d.id,
        d.status === 'SUCCEEDED' ? 'paid' : d.status === 'FAILED' ? 'failed' : 'pending',
        d.amount,
        d.currency,
        b,
      );
    case 'ewallet.capture':
      return chargeEvent(
        `ewallet:${d.id}`,
        d.id,
        `${d.id}:${d.status}`,
        ewalletStatus(d.status),
        d.capture_amount ?? d.charge_amount,
        d.currency,
        b,
      );
    case 'payment_method.activated':
    case 'payment_method.expired':
    case 'payment_method.failed_activation': {
      if (typeof d.id !== 'string' || !d.id)
        throw new CallbackVerificationError('provider_a', 'malformed', 'payment method callback lacks its id');
      const status =
        b.event === 'payment_method.activated'
          ? 'active'
          : b.event === 'payment_method.failed_activation'
            ? 'failed'
            : d.status === 'INACTIVE'
              ? 'revoked'
              : 'expired';
      return {
        type: 'token',
        providerEventId: `${b.event}:${d.id}:${d.status ?? ''}:${d.updated ?? ''}`,
        tokenRef: d.id,
        status,
        raw: b,
      };
    }
    case 'payment.succeeded':
    case 'payment.failed':
    case 'payment.pending': {
      if (typeof d.payment_request_id !== 'string' || !d.payment_request_id)
        throw new CallbackVerificationError('provider_a', 'malformed', 'payment callback lacks payment_request_id');
      const event = chargeEvent(
        `payment_request:${d.payment_request_id}`,
        d.id,
        `${d.id}:${d.status}`,
        d.status === 'SUCCEEDED' ? 'paid' : d.status === 'FAILED' ? 'failed' : 'pending',
        d.amount,
        d.currency,
        // Stored with the provider event: the payment method's id is a token, masked here.
        { ...b, data: withoutToken(d) },
      );
      return { ...event, reference: typeof d.reference_id === 'string' ? d.reference_id : null } as CallbackEvent;
    }
    case 'refund.succeeded':
    case 'refund.failed':
      return {
        type: 'refund',
        providerEventId: `${d.id}:${d.status}`,
        providerRefundId: d.id,
        reference: typeof d.reference_id === 'string' ? d.reference_id : null,
        status: refundStatus(d.status),
        amount: toAmount(d.amount),
        currency: d.currency ?? 'IDR',
        raw: b,
      };
  }
  return { type: 'ignored', providerEventId: `${b.event}:${d.id ?? b.created}`, description: b.event, raw: b };
}

/** The older bodies without an `event` name: VA and payment-code payments, invoices, VA updates. */
function mapUntypedCallback(b: any): CallbackEvent {
  if (b.callback_virtual_account_id && b.payment_id) {
    return chargeEvent(
      `va:${b.callback_virtual_account_id}`,
      b.payment_id,
      b.payment_id,
      'paid',
      b.amount,
      b.currency,
      b,
    );
  }
  if (b.fixed_payment_code_id && b.payment_id) {
    const status = b.status === 'COMPLETED' || b.status === 'SETTLED' ? 'paid' : 'pending';
    return chargeEvent(
      `retail:${b.fixed_payment_code_id}`,
      b.payment_id,
      b.payment_id,
      status,
      b.amount,
      b.currency,
      b,
    );
  }
  if (b.id && b.external_id && b.user_id && ['PAID', 'SETTLED', 'EXPIRED'].includes(b.status)) {
    return chargeEvent(
      `invoice:${b.id}`,
      b.id,
      `${b.id}:${b.status}`,
      invoiceStatus(b.status),
      b.paid_amount ?? b.amount,
      b.currency,
      b,
    );
  }
  if (b.id && b.account_number && b.bank_code) {
    // VA created or updated: no money moved.
    return {
      type: 'ignored',
      providerEventId: `va:${b.id}:${b.status}:${b.updated ?? ''}`,
      description: `virtual account ${b.status ?? 'updated'}`,
      raw: b,
    };
  }
  throw new CallbackVerificationError('provider_a', 'malformed', 'unrecognised callback body');
}

function chargeEvent(
  providerRef: string,
  paymentId: unknown,
  eventId: unknown,
  status: ChargeStatus,
  amount: unknown,
  currency: unknown,
  raw: unknown,
): CallbackEvent {
  if (typeof eventId !== 'string' || !eventId || providerRef.endsWith(':undefined')) {
    throw new CallbackVerificationError('provider_a', 'malformed', 'callback lacks its ids');
  }
  return {
    type: 'charge',
    providerRef,
    providerPaymentId: typeof paymentId === 'string' ? paymentId : null,
    providerEventId: eventId,
    status,
    amount: toAmount(amount),
    currency: typeof currency === 'string' ? currency : 'IDR',
    raw,
  };
}
