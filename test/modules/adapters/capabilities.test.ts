// The capability matrix (spec Adapter "Capabilities by kind") and the adapter choice (spec Payment flow), as pure functions.
import { describe, expect, it } from 'vitest';
import {
  adapterKinds,
  adaptersFor,
  assertMethodsServed,
  capabilities,
  paymentMethods,
  planMethods,
  receiptAdapterName,
  sessionAdapterName,
  type EnabledAdapter,
} from '../../../src/modules/adapters/capabilities.ts';
import { DomainError } from '../../../src/core/errors.ts';

const configured = (kind: EnabledAdapter['kind'], publicConfig: Record<string, unknown> = {}): EnabledAdapter => ({
  kind,
  configured: true,
  publicConfig,
});
const sandbox: EnabledAdapter = { kind: 'managed', configured: false, publicConfig: {} };
const manual = configured('manual', {
  bankAccounts: [{ bankName: 'BCA', accountNumber: '123', accountHolder: 'Acme' }],
  staticQrImageUrl: 'https://x.example/qr.png',
  instructions: null,
});
const everyLive = [
  configured('provider_a'),
  configured('provider_b'),
  configured('provider_c'),
  manual,
  configured('managed'),
];

/** Which kinds serve a method in a currency in live mode, everything connected. */
const liveKinds = (method: string, currency = 'IDR') => adaptersFor(everyLive, 'live', method, currency).sort();

describe('the capability table', () => {
  it('has one row per kind x method x currency x mode, all with known values', () => {
    const keys = capabilities.map((c) => `${c.kind}/${c.method}/${c.currency}/${c.mode ?? '*'}`);
    expect(keys.length).toBe(new Set(keys).size);
    for (const c of capabilities) {
      expect(adapterKinds).toContain(c.kind);
      expect(paymentMethods).toContain(c.method);
      expect(c.currency).toMatch(/^[A-Z]{3}$/);
      expect(c.detail.length).toBeGreaterThan(0);
    }
  });

  it('cards (Visa/MC): managed, provider_a, provider_b, provider_c; never manual', () => {
    expect(liveKinds('card')).toEqual(['managed', 'provider_a', 'provider_b']);
    expect(liveKinds('card', 'USD')).toEqual(['provider_c']);
    expect(capabilities.filter((c) => c.method === 'card').map((c) => c.kind)).not.toContain('manual');
  });

  it('Indonesian VA, e-wallets, dynamic QRIS: managed, provider_a, provider_b (manual adds static QRIS and bank transfer)', () => {
    expect(liveKinds('ewallet')).toEqual(['managed', 'provider_a', 'provider_b']);
    expect(liveKinds('va')).toEqual(['managed', 'manual', 'provider_a', 'provider_b']);
    expect(liveKinds('qris')).toEqual(['managed', 'manual', 'provider_a', 'provider_b']);
  });

  it('retail: provider_a and provider_b only; wallet balance / pay in 4: provider_c only', () => {
    expect(liveKinds('retail')).toEqual(['provider_a', 'provider_b']);
    expect(liveKinds('provider_c', 'USD')).toEqual(['provider_c']);
    expect(liveKinds('provider_c', 'IDR')).toEqual([]);
  });

  it('manual serves only what it is configured with', () => {
    const bare = configured('manual', { bankAccounts: [], staticQrImageUrl: null, instructions: 'call us' });
    expect(adaptersFor([bare], 'live', 'va', 'IDR')).toEqual([]);
    expect(adaptersFor([bare], 'live', 'qris', 'IDR')).toEqual([]);
    const qrOnly = configured('manual', { bankAccounts: [], staticQrImageUrl: 'https://x.example/qr.png' });
    expect(adaptersFor([qrOnly], 'live', 'qris', 'IDR')).toEqual(['manual']);
    expect(adaptersFor([qrOnly], 'live', 'va', 'IDR')).toEqual([]);
  });

  it('the test-mode sandbox serves every method in IDR and USD, in test mode only', () => {
    for (const m of paymentMethods) {
      for (const c of ['IDR', 'USD']) {
        expect(adaptersFor([sandbox], 'test', m, c)).toEqual(['managed']);
        expect(adaptersFor([sandbox], 'live', m, c)).toEqual(
          m === 'provider_c' || c === 'USD' || m === 'retail' ? [] : ['managed'],
        );
      }
    }
    expect(adaptersFor([sandbox], 'test', 'card', 'SGD')).toEqual([]);
  });
});

describe('adapter choice (spec Payment flow)', () => {
  it('configured adapters win over the sandbox, in the order provider_a, provider_b, provider_c, manual', () => {
    expect(adaptersFor([sandbox, configured('provider_b'), configured('provider_a')], 'test', 'card', 'IDR')).toEqual([
      'provider_a',
      'provider_b',
      'managed',
    ]);
    expect(adaptersFor([sandbox, manual, configured('provider_b')], 'test', 'va', 'IDR')).toEqual([
      'provider_b',
      'manual',
      'managed',
    ]);
    // provider_a does not take USD, so the sandbox does
    expect(adaptersFor([sandbox, configured('provider_a')], 'test', 'card', 'USD')).toEqual(['managed']);
    // a live managed account comes after the merchant's own credentials
    expect(adaptersFor([configured('managed'), configured('provider_b')], 'live', 'qris', 'IDR')).toEqual([
      'provider_b',
      'managed',
    ]);
  });

  it('plans each requested method and lists the ones nobody serves', () => {
    expect(planMethods([manual], 'live', ['card', 'va', 'qris'], 'IDR')).toEqual({
      served: [
        { method: 'va', adapter: 'manual' },
        { method: 'qris', adapter: 'manual' },
      ],
      unserved: ['card'],
    });
  });

  it('no_adapter_supports_methods (422) when no enabled adapter serves any requested method in the currency', () => {
    const refuse = (
      enabled: EnabledAdapter[],
      mode: 'test' | 'live',
      methods: (typeof paymentMethods)[number][],
      currency: string,
    ) => {
      try {
        assertMethodsServed(enabled, mode, methods, currency);
      } catch (e) {
        expect(e).toBeInstanceOf(DomainError);
        const d = e as DomainError;
        return { status: d.status, code: d.extensions.code, field: d.field };
      }
      return null;
    };
    const expected = { status: 422, code: 'no_adapter_supports_methods', field: 'methods' };
    expect(refuse([], 'live', ['card'], 'IDR')).toEqual(expected);
    expect(refuse([manual], 'live', ['card', 'ewallet'], 'IDR')).toEqual(expected);
    expect(refuse([configured('provider_a')], 'live', ['card'], 'USD')).toEqual(expected);
    expect(refuse([sandbox], 'test', ['qris'], 'SGD')).toEqual(expected);
    expect(refuse([sandbox], 'test', ['qris', 'card', 'retail', 'provider_c'], 'USD')).toBeNull();
    expect(refuse([manual], 'live', ['card', 'va'], 'IDR')).toBeNull();
  });

  it('names: a managed session shows provider_a_platform, its receipt provider_a', () => {
    expect(sessionAdapterName('managed')).toBe('provider_a_platform');
    expect(receiptAdapterName('managed')).toBe('provider_a');
    expect(sessionAdapterName('manual')).toBe('manual');
    expect(receiptAdapterName('provider_c')).toBe('provider_c');
  });
});
