// provider_b's charges: Snap (a redirect) for cards and e-wallets, the Core API charge for QRIS, VA and
// retail so that our page shows the QR string, VA number or payment code itself.
import { failure } from '../http.ts';
import type { Charge, CreateChargeInput, Instructions } from '../types.ts';
import type { Clock } from '../../core/clock.ts';
import type { ProviderBApi } from './api.ts';
import { customerDetails, jakartaTime, jakartaToIso, need, pick, providerBChannels, statusOf } from './mapping.ts';

/** What both kinds of charge send: the order, its lifetime in minutes, and where notifications go. */
type Order = {
  orderId: string;
  minutes: number;
  common: Record<string, unknown>;
  notify: Record<string, string>;
  fallbackExpiry: string;
};

export function createProviderBCharge(
  api: ProviderBApi,
  clock: Clock,
  input: CreateChargeInput,
  orderId: string,
): Promise<Charge> {
  const order: Order = {
    orderId,
    minutes: Math.max(1, Math.ceil((input.expiresAt.getTime() - clock.now().getTime()) / 60_000)),
    common: {
      transaction_details: { order_id: orderId, gross_amount: input.amount },
      customer_details: customerDetails(input),
      custom_field1: input.reference,
    },
    notify: { 'x-override-notification': input.callbackUrl },
    fallbackExpiry: input.expiresAt.toISOString(),
  };
  return input.method === 'card' || input.method === 'ewallet'
    ? createSnapCharge(api, clock, input, order)
    : createCoreCharge(api, clock, input, order);
}

async function createSnapCharge(
  api: ProviderBApi,
  clock: Clock,
  input: CreateChargeInput,
  order: Order,
): Promise<Charge> {
  const { orderId, minutes, common, notify, fallbackExpiry } = order;
  const enabled =
    input.method === 'card'
      ? ['credit_card']
      : input.channel
        ? [pick('ewallet', input.channel)]
        : [...providerBChannels.ewallet];
  const res = await api.http.request({
    method: 'POST',
    base: api.snapBase,
    path: '/snap/v1/transactions',
    headers: { ...api.auth(), ...notify },
    body: JSON.stringify({
      ...common,
      enabled_payments: enabled,
      // Consent to keep the card (docs/providers.md, Saving at checkout): a one-click token for this customer.
      ...(input.saveForFutureUse && input.method === 'card' && input.customerId
        ? { credit_card: { secure: true, save_card: true }, user_id: input.customerId }
        : {}),
      callbacks: { finish: input.successUrl },
      expiry: { start_time: jakartaTime(clock.now()), unit: 'minute', duration: minutes },
    }),
  });
  const snap = res.json;
  if (res.status !== 201 && res.status !== 200)
    throw failure('provider_b', 'create Snap transaction', res, null, snap?.error_messages?.join('; '));
  if (!snap?.token || !snap?.redirect_url) throw failure('provider_b', 'create Snap transaction', res);
  return {
    providerRef: orderId,
    status: 'pending',
    instructions: { kind: 'redirect', redirectUrl: snap.redirect_url, expiresAt: fallbackExpiry },
    raw: { token: snap.token, redirect_url: snap.redirect_url },
  };
}

async function createCoreCharge(
  api: ProviderBApi,
  clock: Clock,
  input: CreateChargeInput,
  order: Order,
): Promise<Charge> {
  const { orderId, minutes, common, notify, fallbackExpiry } = order;
  const expiry = {
    custom_expiry: { order_time: jakartaTime(clock.now()), expiry_duration: minutes, unit: 'minute' },
  };
  let body: Record<string, unknown>;
  if (input.method === 'qris') body = { payment_type: 'qris', qris: { acquirer: 'gopay' } };
  else if (input.method === 'retail') {
    body = {
      payment_type: 'cstore',
      cstore: { store: pick('retail', input.channel), message: (input.description ?? input.reference).slice(0, 20) },
    };
  } else {
    const bank = pick('va', input.channel);
    body =
      bank === 'mandiri'
        ? {
            payment_type: 'echannel',
            echannel: { bill_info1: 'Payment:', bill_info2: (input.description ?? input.reference).slice(0, 10) },
          }
        : { payment_type: 'bank_transfer', bank_transfer: { bank } };
  }
  const res = await api.http.request({
    method: 'POST',
    path: '/v2/charge',
    headers: { ...api.auth(), ...notify },
    body: JSON.stringify({ ...body, ...common, ...expiry }),
  });
  const c = api.ok('charge', res, ['200', '201']);
  const expiresAt = jakartaToIso(c.expiry_time) ?? fallbackExpiry;
  let instructions: Instructions;
  if (input.method === 'qris') {
    need(c.qr_string, 'qr_string');
    instructions = { kind: 'qr', qrString: c.qr_string, expiresAt };
  } else if (input.method === 'retail') {
    need(c.payment_code, 'payment_code');
    instructions = {
      kind: 'retail',
      outlet: c.store ?? pick('retail', input.channel),
      paymentCode: c.payment_code,
      expiresAt,
    };
  } else if (c.payment_type === 'echannel') {
    need(c.bill_key, 'bill_key');
    instructions = {
      kind: 'va',
      bankCode: 'mandiri',
      vaNumber: c.bill_key,
      billerCode: c.biller_code ?? null,
      expiresAt,
    };
  } else {
    const va = c.va_numbers?.[0] ?? (c.permata_va_number ? { bank: 'permata', va_number: c.permata_va_number } : null);
    need(va?.va_number, 'va_numbers');
    instructions = { kind: 'va', bankCode: va.bank, vaNumber: va.va_number, billerCode: null, expiresAt };
  }
  return { providerRef: orderId, status: statusOf(c.transaction_status, c.fraud_status), instructions, raw: c };
}
