// provider_c's answers to our types: orders, vaulted cards, failures and webhook events.
import { fromDecimalString } from '../decimal.ts';
import { CallbackVerificationError, ProviderError } from '../errors.ts';
import { fundingOf, maskEmail } from '../saved.ts';
import type {
  OffSessionResult,
  SavedMethod,
  SavedMethodDisplay,
  CallbackEvent,
  ChargeRef,
  ChargeState,
  ChargeStatus,
  RefundStatus,
} from '../types.ts';

export const PROVIDER_C_URLS = {
  live: 'https://api-m.paypal.com',
  sandbox: 'https://api-m.sandbox.paypal.com',
} as const;

/** The five transmission headers the verification API needs, and its field for each. */
export const TRANSMISSION_HEADERS = {
  auth_algo: 'paypal-auth-algo',
  cert_url: 'paypal-cert-url',
  transmission_id: 'paypal-transmission-id',
  transmission_sig: 'paypal-transmission-sig',
  transmission_time: 'paypal-transmission-time',
} as const;

/**
 * Our customer id as sent in `customer.merchant_customer_id` (the provider keeps 22 characters): the
 * exact key a vault webhook naming only the customer is routed by (docs/providers.md, Saved methods).
 */
export const MERCHANT_CUSTOMER_ID_LENGTH = 22;
export const merchantCustomerId = (customerId: string) => customerId.slice(0, MERCHANT_CUSTOMER_ID_LENGTH);

export function stateOf(ref: ChargeRef, order: any): ChargeState {
  const unit = order.purchase_units?.[0] ?? {};
  const capture = unit.payments?.captures?.[0];
  const money = capture?.amount ?? unit.amount;
  const amount = money ? fromDecimalString(String(money.value), money.currency_code) : null;
  if (amount === null)
    throw new ProviderError('provider_c', 'bad_response', 'order amount is not a decimal in its currency');
  const status = orderStatus(order);
  return {
    providerRef: ref.providerRef,
    providerPaymentId: capture?.id ?? ref.providerPaymentId ?? null,
    status,
    amount,
    currency: money.currency_code,
    paidAt: status === 'paid' ? (capture?.create_time ?? null) : null,
    ...(status === 'paid' ? vaultedCard(order) : {}),
    raw: withoutVaultId(order),
  };
}

/** A captured order whose card was stored (`store_in_vault: ON_SUCCESS`): its `vault.id` is the token. */
export function vaultedCard(order: any): { savedMethod?: SavedMethod } {
  const card = order?.payment_source?.card;
  const vault = card?.attributes?.vault;
  if (!card || vault?.status !== 'VAULTED' || typeof vault.id !== 'string') return {};
  const [year, month] = String(card.expiry ?? '')
    .split('-')
    .map(Number);
  return {
    savedMethod: {
      token: vault.id,
      type: 'card',
      display: {
        card: {
          brand: String(card.brand ?? 'unknown').toLowerCase(),
          last4: String(card.last_digits ?? '').slice(-4),
          expMonth: month || 0,
          expYear: year || 0,
          funding: fundingOf(card.type),
        },
      },
    },
  };
}

/** An order as kept for support: a vault id never leaves the adapter. */
export function withoutVaultId(order: any): any {
  const vault = order?.payment_source?.card?.attributes?.vault;
  if (!vault?.id) return order;
  const card = order.payment_source.card;
  return {
    ...order,
    payment_source: {
      ...order.payment_source,
      card: { ...card, attributes: { ...card.attributes, vault: { ...vault, id: '[sealed]' } } },
    },
  };
}

/**
 * PayPal processor response codes of declined captures (docs/providers.md, Saved methods); anything
 * else declined is `card_declined` (cards) or `payment_declined` (PayPal accounts).
 */
export const VAULT_FAILURES: Record<string, string> = {
  '5120': 'insufficient_funds',
  '5710': 'limit_exceeded',
  '5180': 'account_blocked',
  '9520': 'account_blocked',
  '5400': 'expired_card',
  '5140': 'payment_method_revoked',
  '7710': 'authentication_required',
  INVALID_RESOURCE_ID: 'payment_method_revoked',
  PAYER_ACTION_REQUIRED: 'authentication_required',
};

export function vaultFailure(code: string, source: 'card' | 'paypal'): string {
  return VAULT_FAILURES[code] ?? (source === 'card' ? 'card_declined' : 'payment_declined');
}

/** A 422 at order create or capture: a deleted vault token, an instrument declined. */
export function declinedAtCreate(body: any, source: 'card' | 'paypal'): OffSessionResult {
  const issue = String(body?.details?.[0]?.issue ?? body?.name ?? 'UNPROCESSABLE_ENTITY');
  return {
    providerRef: '',
    status: 'failed',
    failureCode: vaultFailure(issue, source),
    providerCode: issue,
    failureMessage: String(body?.details?.[0]?.description ?? body?.message ?? issue),
    raw: body,
  };
}

export function vaultDisplay(pt: any): SavedMethodDisplay {
  const src = pt.payment_source ?? {};
  if (src.card) {
    const [year, month] = String(src.card.expiry ?? '').split('-');
    return {
      card: {
        brand: String(src.card.brand ?? 'unknown').toLowerCase(),
        last4: String(src.card.last_digits ?? '').slice(-4),
        expMonth: Number(month) || 0,
        expYear: Number(year) || 0,
        funding: fundingOf(src.card.type),
      },
    };
  }
  if (src.paypal) return { paypal: { maskedEmail: maskEmail(src.paypal.email_address) } };
  return {};
}

export function orderStatus(order: any): ChargeStatus {
  switch (order.status) {
    case 'APPROVED':
      return 'approved';
    case 'COMPLETED':
      return captureStatus(order.purchase_units?.[0]?.payments?.captures?.[0]?.status ?? 'COMPLETED');
    case 'VOIDED':
      return 'failed';
    default:
      return 'pending'; // CREATED, SAVED, PAYER_ACTION_REQUIRED
  }
}

/** A refunded capture was paid: refunds are their own records. */
export function captureStatus(s: unknown): ChargeStatus {
  if (s === 'COMPLETED' || s === 'REFUNDED' || s === 'PARTIALLY_REFUNDED') return 'paid';
  if (s === 'DECLINED' || s === 'FAILED') return 'failed';
  return 'pending';
}

export const refundStatus = (s: unknown): RefundStatus =>
  s === 'COMPLETED' ? 'succeeded' : s === 'FAILED' || s === 'CANCELLED' ? 'failed' : 'pending';

export function mapEvent(e: any): CallbackEvent {
  const id = e.id;
  const r = e.resource ?? {};
  if (typeof id !== 'string' || !id) throw new CallbackVerificationError('provider_c', 'malformed', 'event lacks id');
  const money = (m: any) => {
    const amount = m ? fromDecimalString(String(m.value), m.currency_code) : null;
    if (amount === null)
      throw new CallbackVerificationError('provider_c', 'malformed', 'amount is not a decimal in its currency');
    return { amount, currency: m.currency_code as string };
  };
  switch (e.event_type) {
    case 'VAULT.PAYMENT-TOKEN.CREATED':
    case 'VAULT.PAYMENT-TOKEN.DELETED':
      if (typeof r.id !== 'string' || !r.id)
        throw new CallbackVerificationError('provider_c', 'malformed', 'payment token event lacks the token id');
      return {
        type: 'token',
        providerEventId: id,
        tokenRef: r.id,
        status: e.event_type === 'VAULT.PAYMENT-TOKEN.CREATED' ? 'active' : 'revoked',
        customerRef: typeof r.customer?.merchant_customer_id === 'string' ? r.customer.merchant_customer_id : null,
        raw: e,
      };
    case 'CHECKOUT.ORDER.APPROVED':
      return {
        type: 'charge',
        providerRef: r.id,
        reference: r.purchase_units?.[0]?.custom_id ?? null,
        providerPaymentId: null,
        providerEventId: id,
        status: 'approved',
        ...money(r.purchase_units?.[0]?.amount),
        raw: e,
      };
    case 'PAYMENT.CAPTURE.COMPLETED':
    case 'PAYMENT.CAPTURE.PENDING':
    case 'PAYMENT.CAPTURE.DENIED':
    case 'PAYMENT.CAPTURE.DECLINED': {
      const orderId = r.supplementary_data?.related_ids?.order_id ?? upLink(r, 'checkout/orders');
      if (!orderId) throw new CallbackVerificationError('provider_c', 'malformed', 'capture event lacks its order id');
      return {
        type: 'charge',
        providerRef: orderId,
        reference: typeof r.custom_id === 'string' ? r.custom_id : null,
        providerPaymentId: r.id ?? null,
        providerEventId: id,
        status: captureStatus(r.status),
        ...money(r.amount),
        raw: e,
      };
    }
    case 'PAYMENT.CAPTURE.REFUNDED':
      return {
        type: 'refund',
        providerEventId: id,
        providerRefundId: r.id,
        status: refundStatus(r.status),
        ...money(r.amount),
        raw: e,
      };
    default:
      return { type: 'ignored', providerEventId: id, description: String(e.event_type), raw: e };
  }
}

export function upLink(resource: any, segment: string): string | null {
  const href: string | undefined = (resource.links ?? []).find(
    (l: any) => l.rel === 'up' && String(l.href).includes(segment),
  )?.href;
  return href ? (href.replace(/\/+$/, '').split('/').pop() ?? null) : null;
}
