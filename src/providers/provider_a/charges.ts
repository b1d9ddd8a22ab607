// provider_a's charges: one product endpoint per method (QR code, virtual account, e-wallet charge,
// payment code, invoice for cards), and the payment request that also saves the method.
import { ProviderError } from '../errors.ts';
import type { Charge, CreateChargeInput, PaymentMethod } from '../types.ts';

import type { Clock } from '../../core/clock.ts';
import type { ProviderAApi } from './api.ts';
import {
  charge,
  channelCode,
  displayName,
  need,
  payAndSaveType,
  PM_TYPES,
  pmAction,
  QR_API_VERSION,
  savedChannel,
  withoutToken,
} from './mapping.ts';

type ChargeContext = { expiresAt: string; name: string; clock: Clock };
type CreateStep = (api: ProviderAApi, input: CreateChargeInput, ctx: ChargeContext) => Promise<Charge>;

const createQrisCharge: CreateStep = async (api, input, ctx) => {
  const { expiresAt } = ctx;
  const qr = await api.post(
    'create QR code',
    '/qr_codes',
    input.idempotencyKey,
    {
      reference_id: input.reference,
      type: 'DYNAMIC',
      currency: input.currency,
      amount: input.amount,
      expires_at: expiresAt,
      metadata: { reference: input.reference },
    },
    { 'api-version': QR_API_VERSION },
  );
  need(qr.qr_string, 'qr_string');
  return charge('qris', qr, { kind: 'qr', qrString: qr.qr_string, expiresAt: qr.expires_at ?? expiresAt });
};

const createVaCharge: CreateStep = async (api, input, ctx) => {
  const { expiresAt, name } = ctx;
  const bank = channelCode('va', input.channel);
  const va = await api.post('create virtual account', '/callback_virtual_accounts', input.idempotencyKey, {
    external_id: input.reference,
    bank_code: bank,
    name,
    is_closed: true,
    expected_amount: input.amount,
    is_single_use: true,
    expiration_date: expiresAt,
  });
  need(va.account_number, 'account_number');
  return charge('va', va, {
    kind: 'va',
    bankCode: va.bank_code ?? bank,
    vaNumber: va.account_number,
    accountName: va.name ?? name,
    billerCode: null,
    expiresAt: va.expiration_date ?? expiresAt,
  });
};

const createEwalletCharge: CreateStep = async (api, input, ctx) => {
  const { expiresAt } = ctx;
  const wallet = channelCode('ewallet', input.channel);
  const ew = await api.post('create e-wallet charge', '/ewallets/charges', input.idempotencyKey, {
    reference_id: input.reference,
    currency: input.currency,
    amount: input.amount,
    checkout_method: 'ONE_TIME_PAYMENT',
    channel_code: wallet,
    channel_properties: {
      success_redirect_url: input.successUrl,
      ...(input.cancelUrl ? { failure_redirect_url: input.cancelUrl } : {}),
    },
    metadata: { reference: input.reference },
  });
  const a = ew.actions ?? {};
  const url = a.desktop_web_checkout_url ?? a.mobile_web_checkout_url ?? a.mobile_deeplink_checkout_url;
  need(url, 'actions.*_checkout_url');
  return charge('ewallet', ew, {
    kind: 'redirect',
    redirectUrl: url,
    qrString: a.qr_checkout_string ?? null,
    expiresAt,
  });
};

const createRetailCharge: CreateStep = async (api, input, ctx) => {
  const { expiresAt, name } = ctx;
  const outlet = channelCode('retail', input.channel);
  const fpc = await api.post('create payment code', '/fixed_payment_code', input.idempotencyKey, {
    external_id: input.reference,
    retail_outlet_name: outlet,
    name,
    expected_amount: input.amount,
    is_single_use: true,
    expiration_date: expiresAt,
  });
  need(fpc.payment_code, 'payment_code');
  return charge('retail', fpc, {
    kind: 'retail',
    outlet: fpc.retail_outlet_name ?? outlet,
    paymentCode: fpc.payment_code,
    expiresAt: fpc.expiration_date ?? expiresAt,
  });
};

const createCardCharge: CreateStep = async (api, input, ctx) => {
  const { expiresAt } = ctx;
  const seconds = Math.max(1, Math.floor((input.expiresAt.getTime() - ctx.clock.now().getTime()) / 1000));
  const c = input.customer ?? {};
  const inv = await api.post('create invoice', '/v2/invoices', input.idempotencyKey, {
    external_id: input.reference,
    amount: input.amount,
    currency: input.currency,
    description: input.description ?? input.reference,
    invoice_duration: seconds,
    payment_methods: ['CREDIT_CARD'],
    success_redirect_url: input.successUrl,
    ...(input.cancelUrl ? { failure_redirect_url: input.cancelUrl } : {}),
    ...(c.email ? { payer_email: c.email } : {}),
    ...(c.name || c.email || c.phone
      ? {
          customer: {
            ...(c.name ? { given_names: c.name } : {}),
            ...(c.email ? { email: c.email } : {}),
            ...(c.phone ? { mobile_number: c.phone } : {}),
          },
        }
      : {}),
  });
  need(inv.invoice_url, 'invoice_url');
  return charge('invoice', inv, {
    kind: 'redirect',
    redirectUrl: inv.invoice_url,
    expiresAt: inv.expiry_date ?? expiresAt,
  });
};

const CHARGES: Partial<Record<PaymentMethod, CreateStep>> = {
  qris: createQrisCharge,
  va: createVaCharge,
  ewallet: createEwalletCharge,
  retail: createRetailCharge,
  card: createCardCharge,
};

export async function createProviderACharge(
  api: ProviderAApi,
  clock: Clock,
  input: CreateChargeInput,
): Promise<Charge> {
  if (input.saveForFutureUse && payAndSaveType(input)) return payAndSave(api, input);
  const create = CHARGES[input.method];
  if (!create) throw new ProviderError('provider_a', 'unsupported', `cannot take ${input.method}`);
  return create(api, input, {
    expiresAt: input.expiresAt.toISOString(),
    name: displayName(input.customer?.name),
    clock,
  });
}

/**
 * A payment that also saves the method (docs/providers.md, Saving at checkout): one `POST /payment_requests`
 * whose inline `payment_method` is MULTIPLE_USE (Xendit's PAY_AND_SAVE). The customer pays on the
 * provider's page (card form, wallet linking); once paid, `fetchStatus` carries the new token.
 */
async function payAndSave(api: ProviderAApi, input: CreateChargeInput): Promise<Charge> {
  const type = payAndSaveType(input)!;
  const urls = {
    success_return_url: input.successUrl,
    failure_return_url: input.cancelUrl ?? input.successUrl,
    ...(input.cancelUrl ? { cancel_return_url: input.cancelUrl } : {}),
  };
  const c = input.customer ?? {};
  const pr = await api.post('create payment request', '/payment_requests', input.idempotencyKey, {
    reference_id: input.reference,
    amount: input.amount,
    currency: input.currency,
    country: 'ID',
    capture_method: 'AUTOMATIC',
    description: (input.description ?? input.reference).slice(0, 255),
    payment_method: {
      type: PM_TYPES[type],
      reusability: 'MULTIPLE_USE',
      reference_id: input.reference,
      ...(type === 'ewallet'
        ? { ewallet: { channel_code: savedChannel('ewallet', input.channel ?? 'dana'), channel_properties: urls } }
        : { card: { currency: input.currency, channel_properties: { ...urls, skip_three_d_secure: false } } }),
    },
    ...(input.customerId || c.email
      ? {
          customer: {
            reference_id: input.customerId ?? input.reference,
            type: 'INDIVIDUAL',
            individual_detail: { given_names: displayName(c.name) },
            ...(c.email ? { email: c.email } : {}),
          },
        }
      : {}),
    metadata: { reference: input.reference },
  });
  const action = pmAction(pr);
  need(action?.url, 'actions[].url');
  return charge('payment_request', withoutToken(pr), {
    kind: 'redirect',
    redirectUrl: action.url,
    expiresAt: input.expiresAt.toISOString(),
  });
}
