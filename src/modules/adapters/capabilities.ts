import type { Mode } from '../../core/db/client.ts';
import { DomainError } from '../../core/errors.ts';

export const adapterKinds = ['provider_a', 'provider_b', 'provider_c', 'manual', 'managed'] as const;
export type AdapterKind = (typeof adapterKinds)[number];

/** spec Checkout sessions create: the hard allow-list of methods. */
export const paymentMethods = ['qris', 'va', 'ewallet', 'card', 'retail', 'provider_c'] as const;
export type PaymentMethod = (typeof paymentMethods)[number];

export interface Capability {
  kind: AdapterKind;
  method: PaymentMethod;
  currency: string;
  /** The line of the spec's matrix this row stands for. */
  detail: string;
  /** Only in this mode: the test-mode sandbox (spec Payment flow). */
  mode?: Mode;
  /** Manual rows serve only when the adapter's publicConfig has this set. */
  needs?: 'bankAccounts' | 'staticQrImageUrl';
}

const row = (
  kind: AdapterKind,
  method: PaymentMethod,
  currency: string,
  detail: string,
  extra: Partial<Capability> = {},
): Capability => ({ kind, method, currency, detail, ...extra });

/**
 * spec Adapter "Capabilities by kind" as data: one row per kind x method x currency. Rupiah
 * settles through the Indonesian rails; US dollars go through provider_c (spec: What the service
 * does), except in the test-mode sandbox, which serves every method in IDR and USD.
 */
export const capabilities: readonly Capability[] = [
  // Cards: Visa/Mastercard on managed, provider_a, provider_b, provider_c; AmEx/JCB managed
  // (select accounts), provider_a (depends on the account), provider_b; Apple/Google Pay managed only.
  row('managed', 'card', 'IDR', 'Visa/Mastercard; AmEx/JCB on select accounts; Apple Pay and Google Pay'),
  row('provider_a', 'card', 'IDR', 'Visa/Mastercard; AmEx/JCB depending on the account'),
  row('provider_b', 'card', 'IDR', 'Visa/Mastercard, AmEx/JCB'),
  row('provider_c', 'card', 'USD', 'Visa/Mastercard'),
  // Indonesian virtual accounts, e-wallets and dynamic QRIS: managed, provider_a, provider_b.
  row('managed', 'va', 'IDR', 'Indonesian virtual accounts'),
  row('provider_a', 'va', 'IDR', 'Indonesian virtual accounts'),
  row('provider_b', 'va', 'IDR', 'Indonesian virtual accounts'),
  row('managed', 'ewallet', 'IDR', 'Indonesian e-wallets'),
  row('provider_a', 'ewallet', 'IDR', 'Indonesian e-wallets'),
  row('provider_b', 'ewallet', 'IDR', 'Indonesian e-wallets'),
  row('managed', 'qris', 'IDR', 'dynamic QRIS'),
  row('provider_a', 'qris', 'IDR', 'dynamic QRIS (1 to about 10,000,000 per transaction)'),
  row('provider_b', 'qris', 'IDR', 'dynamic QRIS through GoPay/ShopeePay acquirers'),
  // Static QRIS and offline bank transfer: manual only, when configured.
  row('manual', 'qris', 'IDR', 'static QRIS image', { needs: 'staticQrImageUrl' }),
  row('manual', 'va', 'IDR', 'offline bank transfer to the configured accounts', { needs: 'bankAccounts' }),
  // Retail outlets: provider_a, provider_b.
  row('provider_a', 'retail', 'IDR', 'retail outlets'),
  row('provider_b', 'retail', 'IDR', 'retail outlets'),
  // Wallet balance / pay in 4: provider_c only.
  row('provider_c', 'provider_c', 'USD', 'wallet balance, pay in 4'),
  // spec Payment flow: the test-mode sandbox serves every method in IDR and USD.
  ...paymentMethods.flatMap((m) =>
    ['IDR', 'USD'].map((c) => row('managed', m, c, 'test-mode sandbox', { mode: 'test' })),
  ),
];

/** An adapter that may take payments now: stored and not disabled, or the managed one. */
export interface EnabledAdapter {
  kind: AdapterKind;
  /** Set up by the merchant; false only for the test-mode sandbox. */
  configured: boolean;
  publicConfig: Record<string, unknown>;
}

/** spec Payment flow: configured adapters in this order win over the test-mode sandbox. */
const preference: readonly AdapterKind[] = ['provider_a', 'provider_b', 'provider_c', 'manual', 'managed'];
const rank = (a: EnabledAdapter) => (a.configured ? 0 : preference.length) + preference.indexOf(a.kind);

const present = (v: unknown) => (Array.isArray(v) ? v.length > 0 : v !== null && v !== undefined && v !== '');

function serves(a: EnabledAdapter, mode: Mode, method: string, currency: string): boolean {
  return capabilities.some(
    (c) =>
      c.kind === a.kind &&
      c.method === method &&
      c.currency === currency &&
      (!c.mode || c.mode === mode) &&
      (!c.needs || present(a.publicConfig[c.needs])),
  );
}

/** The adapters that serve a method in a currency, best first. */
export function adaptersFor(
  enabled: readonly EnabledAdapter[],
  mode: Mode,
  method: string,
  currency: string,
): AdapterKind[] {
  return enabled
    .filter((a) => serves(a, mode, method, currency))
    .sort((x, y) => rank(x) - rank(y))
    .map((a) => a.kind);
}

export interface MethodPlan {
  /** Each servable requested method with the adapter that will take it. */
  served: { method: PaymentMethod; adapter: AdapterKind }[];
  /** Requested methods nobody serves in the currency (the hosted page does not offer them). */
  unserved: PaymentMethod[];
}

export function planMethods(
  enabled: readonly EnabledAdapter[],
  mode: Mode,
  methods: readonly PaymentMethod[],
  currency: string,
): MethodPlan {
  const plan: MethodPlan = { served: [], unserved: [] };
  for (const method of methods) {
    const [adapter] = adaptersFor(enabled, mode, method, currency);
    if (adapter) plan.served.push({ method, adapter });
    else plan.unserved.push(method);
  }
  return plan;
}

/**
 * spec Checkout create: 422 `no_adapter_supports_methods` when no enabled adapter serves any
 * requested method in the currency (a currency nobody serves is that case too).
 */
export function assertMethodsServed(
  enabled: readonly EnabledAdapter[],
  mode: Mode,
  methods: readonly PaymentMethod[],
  currency: string,
): MethodPlan {
  const plan = planMethods(enabled, mode, methods, currency);
  if (plan.served.length === 0) {
    throw new DomainError(
      'no_adapter_supports_methods',
      `No enabled adapter serves ${methods.join(', ')} in ${currency}`,
      { field: 'methods', resource: 'checkout_session' },
    );
  }
  return plan;
}

/** spec Checkout session `adapter`: the managed adapter shows as `provider_a_platform`. */
export const sessionAdapterName = (kind: AdapterKind) => (kind === 'managed' ? 'provider_a_platform' : kind);
/** spec Receipt `adapter`: managed payments show `provider_a` (spec Payment flow). */
export const receiptAdapterName = (kind: AdapterKind) => (kind === 'managed' ? 'provider_a' : kind);
