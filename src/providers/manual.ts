// manual: no provider and no HTTP. The buyer pays offline (bank transfer to the merchant's
// accounts, or the merchant's static QRIS) following the adapter's publicConfig; the merchant
// confirms the receipt (POST /v1/checkout-sessions/:id/confirm). Nothing here can prove payment.
import { CallbackVerificationError, ProviderError } from './errors.ts';
import type {
  CallbackEvent,
  Charge,
  ChargeRef,
  ChargeState,
  CreateChargeInput,
  ManualConfig,
  PaymentMethod,
  Provider,
  RefundResult,
} from './types.ts';
import { currencyExponent } from '../core/money.ts';

export class ManualProvider implements Provider {
  readonly kind = 'manual' as const;

  constructor(private readonly config: ManualConfig) {}

  /** `va` is offline bank transfer (any currency, needs a bank account); `qris` the static QR (IDR). */
  supports(method: PaymentMethod, currency: string): boolean {
    if (method === 'va') return this.config.bankAccounts.length > 0 && currency in currencyExponent;
    if (method === 'qris') return Boolean(this.config.staticQrImageUrl) && currency === 'IDR';
    return false;
  }

  async createCharge(input: CreateChargeInput): Promise<Charge> {
    if (!this.supports(input.method, input.currency)) {
      throw new ProviderError(
        this.kind,
        'unsupported',
        `cannot take ${input.method} in ${input.currency} with this configuration`,
      );
    }
    const qr = input.method === 'qris';
    return {
      // No upstream id: the charge is the session itself.
      providerRef: `manual:${input.reference}`,
      status: 'pending',
      instructions: {
        kind: 'manual',
        bankAccounts: qr ? [] : this.config.bankAccounts.map((a) => ({ ...a })),
        staticQrImageUrl: qr ? (this.config.staticQrImageUrl ?? null) : null,
        text: this.config.instructions ?? null,
        expiresAt: input.expiresAt.toISOString(),
      },
      raw: null,
    };
  }

  async verifyCallback(): Promise<CallbackEvent> {
    throw new CallbackVerificationError(
      this.kind,
      'not_configured',
      'the manual adapter has no callbacks; the merchant confirms',
    );
  }

  /** Always pending: only the merchant's confirmation settles a manual charge. */
  async fetchStatus(ref: ChargeRef): Promise<ChargeState> {
    return {
      providerRef: ref.providerRef,
      providerPaymentId: null,
      status: 'pending',
      amount: 0,
      currency: '',
      paidAt: null,
      raw: null,
    };
  }

  async refund(): Promise<RefundResult> {
    throw new ProviderError(this.kind, 'unsupported', 'manual payments are refunded offline by the merchant');
  }
}
