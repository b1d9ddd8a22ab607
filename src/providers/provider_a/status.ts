// provider_a's charge status: each product is confirmed at its own endpoint.
import type { ChargeRef, ChargeState, ChargeStatus } from '../types.ts';

import type { ProviderAApi } from './api.ts';
import {
  displayOf,
  enc,
  ewalletStatus,
  invoiceStatus,
  type Product,
  QR_API_VERSION,
  SAVED_TYPES,
  state,
  withoutToken,
} from './mapping.ts';

type StatusStep = (
  api: ProviderAApi,
  ref: ChargeRef,
  id: string,
  expired: (iso: unknown) => boolean,
) => Promise<ChargeState>;

const fetchQrisStatus: StatusStep = async (api, ref, id, expired) => {
  const v = { 'api-version': QR_API_VERSION };
  const payments = await api.get('list QR payments', `/qr_codes/${enc(id)}/payments`, v);
  const paid = (payments.data ?? []).find((p: any) => p.status === 'SUCCEEDED');
  if (paid) return state(ref, 'paid', paid.amount, paid.currency, paid, paid.id, paid.created);
  const qr = await api.get('get QR code', `/qr_codes/${enc(id)}`, v);
  const status: ChargeStatus = qr.status === 'ACTIVE' && !expired(qr.expires_at) ? 'pending' : 'expired';
  return state(ref, status, qr.amount, qr.currency, qr);
};

const fetchVaStatus: StatusStep = async (api, ref, id, expired) => {
  if (ref.providerPaymentId) {
    const p = await api.get(
      'get VA payment',
      `/callback_virtual_account_payments/payment_id=${enc(ref.providerPaymentId)}`,
      {},
      true,
    );
    if (p && p.callback_virtual_account_id === id)
      return state(ref, 'paid', p.amount, p.currency ?? 'IDR', p, p.payment_id, p.transaction_timestamp);
  }
  const va = await api.get('get virtual account', `/callback_virtual_accounts/${enc(id)}`);
  // A single-use VA also turns INACTIVE once paid: without the payment id, only expiry is certain.
  return state(ref, expired(va.expiration_date) ? 'expired' : 'pending', va.expected_amount, va.currency ?? 'IDR', va);
};

const fetchEwalletStatus: StatusStep = async (api, ref, id, expired) => {
  const ew = await api.get('get e-wallet charge', `/ewallets/charges/${enc(id)}`);
  return state(
    ref,
    ewalletStatus(ew.status),
    ew.capture_amount ?? ew.charge_amount,
    ew.currency,
    ew,
    ew.id,
    ew.status === 'SUCCEEDED' ? ew.updated : null,
  );
};

const fetchRetailStatus: StatusStep = async (api, ref, id, expired) => {
  const payments = await api.get('list payment-code payments', `/fixed_payment_code/${enc(id)}/payments`);
  const paid = (payments.data ?? []).find((p: any) => p.status === 'COMPLETED' || p.status === 'SETTLED');
  if (paid)
    return state(
      ref,
      'paid',
      paid.amount,
      paid.currency ?? 'IDR',
      paid,
      paid.payment_id ?? paid.id,
      paid.transaction_timestamp,
    );
  const fpc = await api.get('get payment code', `/fixed_payment_code/${enc(id)}`);
  return state(
    ref,
    expired(fpc.expiration_date) ? 'expired' : 'pending',
    fpc.expected_amount,
    fpc.currency ?? 'IDR',
    fpc,
  );
};

const fetchPaymentRequestStatus: StatusStep = async (api, ref, id, expired) => {
  const pr = await api.get('get payment request', `/payment_requests/${enc(id)}`);
  const status: ChargeStatus =
    pr.status === 'SUCCEEDED'
      ? 'paid'
      : ['FAILED', 'CANCELED', 'VOIDED', 'EXPIRED'].includes(pr.status)
        ? 'failed'
        : 'pending';
  const paid = state(
    ref,
    status,
    pr.amount,
    pr.currency,
    withoutToken(pr),
    pr.id,
    status === 'paid' ? pr.updated : null,
  );
  // A paid PAY_AND_SAVE request left a reusable method: its id is the token (read for its display fields).
  const pm = pr.payment_method;
  if (status !== 'paid' || pm?.reusability !== 'MULTIPLE_USE' || typeof pm.id !== 'string') return paid;
  const method = await api.get('get payment method', `/v2/payment_methods/${enc(pm.id)}`, {}, true);
  if (!method || method.status !== 'ACTIVE' || !(method.type in SAVED_TYPES)) return paid;
  return {
    ...paid,
    savedMethod: { token: method.id, type: SAVED_TYPES[method.type], display: displayOf(method) },
  };
};

const fetchInvoiceStatus: StatusStep = async (api, ref, id, expired) => {
  const inv = await api.get('get invoice', `/v2/invoices/${enc(id)}`);
  return state(
    ref,
    invoiceStatus(inv.status),
    inv.paid_amount ?? inv.amount,
    inv.currency,
    inv,
    inv.id,
    inv.paid_at ?? null,
  );
};

const STATUS: Record<Product, StatusStep> = {
  qris: fetchQrisStatus,
  va: fetchVaStatus,
  ewallet: fetchEwalletStatus,
  retail: fetchRetailStatus,
  payment_request: fetchPaymentRequestStatus,
  invoice: fetchInvoiceStatus,
};

export function fetchProviderAStatus(api: ProviderAApi, ref: ChargeRef, product: Product, id: string, now: number) {
  const expired = (iso: unknown) => typeof iso === 'string' && Date.parse(iso) <= now;
  return STATUS[product](api, ref, id, expired);
}
