// What the three simulators share for saved methods and off-session charges (docs/providers.md,
// Simulators): the scenario table (one table, src/modules/payment-methods/scenarios.ts), the outcome
// of a merchant-initiated charge, the charge counter and the hosted tokenization and action pages.
import { amountMagic, scenarioOf, scenarios, type Scenario } from '../../src/modules/payment-methods/scenarios.ts';

export { scenarioOf, scenarios, type Scenario };

/** The sandbox OTP that links a direct-debit account (Xendit's test OTP); anything else is `invalid_otp`. */
export const GOOD_OTP = '222000';

export type TokenStatus = 'pending' | 'active' | 'failed' | 'expired' | 'revoked';

export type FailReason =
  | 'declined'
  | 'insufficient_funds'
  | 'limit_exceeded'
  | 'account_blocked'
  | 'expired'
  | 'revoked';
export type Outcome =
  | { kind: 'succeeded' }
  | { kind: 'pending' }
  | { kind: 'requires_action' }
  | { kind: 'failed'; reason: FailReason };

const failed = (reason: FailReason): Outcome => ({ kind: 'failed', reason });

/** What an off-session charge of `amount` (minor units) from a token in `status` with `scenario` meets. */
export function outcomeOf(scenario: Scenario, amount: number, status: TokenStatus): Outcome {
  if (status === 'expired') return failed('expired');
  if (status !== 'active') return failed('revoked');
  if (scenario === 'success') {
    const magic = amountMagic[String(amount)];
    if (magic) return failed(magic as FailReason);
  }
  switch (scenarios[scenario].charge) {
    case 'declined':
      return failed('declined');
    case 'insufficient_funds':
      return failed('insufficient_funds');
    case 'expired_card':
      return failed('expired');
    case 'payment_method_revoked':
      return failed('revoked');
    case 'requires_action':
      return { kind: 'requires_action' };
    case 'pending':
      return { kind: 'pending' };
    default:
      return { kind: 'succeeded' };
  }
}

/** How the simulator treats off-session charges (tests and benches set these). */
export interface OffSessionOptions {
  /** An `async` charge settles (and calls back) this long after it was made. */
  delayMs: number;
  /** Extra copies of every charge and token callback. */
  duplicates: number;
  /** The chance (0..1) that a callback comes one extra time (benches: 10 % duplicated callbacks). */
  duplicateRate: number;
  /** Every charge and token callback comes this long after the state changed. */
  callbackDelayMs: number;
  /** false: states change, no callback is sent. */
  deliver: boolean;
  /** true (or a probability 0..1): the charge is made, then the answer never comes. */
  dropResponseAfterCharge: boolean | number;
}

export const defaultOffSession = (): OffSessionOptions => ({
  delayMs: 50,
  duplicates: 0,
  duplicateRate: 0,
  callbackDelayMs: 0,
  deliver: true,
  dropResponseAfterCharge: false,
});

/** How one charge or token callback is sent under these options (a control's own options win). */
export const deliveryOf = (o: OffSessionOptions) => ({
  duplicates: o.duplicates + (o.duplicateRate > 0 && Math.random() < o.duplicateRate ? 1 : 0),
  deliver: o.deliver,
  ...(o.callbackDelayMs ? { delayMs: o.callbackDelayMs } : {}),
});

export const shouldDrop = (o: OffSessionOptions) =>
  o.dropResponseAfterCharge === true ||
  (typeof o.dropResponseAfterCharge === 'number' && Math.random() < o.dropResponseAfterCharge);

/** Money actually taken (or attempted) at the provider: a replay of the same key is not counted again. */
export class ChargeCounter {
  readonly byKey = new Map<string, number>();
  readonly byReference = new Map<string, number>();
  total = 0;

  record(key: string, reference: string) {
    this.byKey.set(key, (this.byKey.get(key) ?? 0) + 1);
    this.byReference.set(reference, (this.byReference.get(reference) ?? 0) + 1);
    this.total++;
  }
}

/** The digits of a typed number, or of a PayPal sandbox email's local part (`s9995@...`). */
export const digitsOf = (value: string) => value.split('@')[0].replace(/\D/g, '');

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The provider-hosted form where the customer types a card number, phone or email (the only PAN in tests). */
export function tokenizePage(opts: {
  provider: string;
  ref: string;
  field: 'number' | 'phone' | 'email';
  value?: string;
}) {
  const label = { number: 'Card number', phone: 'Phone number', email: 'Email' }[opts.field];
  return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(opts.provider)}: save a payment method</title></head>
<body><h1>${esc(opts.provider)}</h1><form method="post" action="/sim/tokenize/${esc(opts.ref)}">
<label>${label} <input name="${opts.field}" value="${esc(opts.value ?? '')}" autocomplete="off"></label>
<button type="submit">Save</button></form></body></html>`;
}

/** One authentication step (3-D Secure, wallet PIN), for setups and for charges that need the customer. */
export function actionPage(action: string) {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Authenticate</title></head>
<body><h1>Authenticate</h1><form method="post" action="${esc(action)}">
<button name="outcome" value="success">Authenticate</button><button name="outcome" value="failure">Fail</button>
</form></body></html>`;
}

export const formOf = (text: string) => new URLSearchParams(text);
export const redirectTo = (url: string) => ({ status: 303, headers: { location: url }, html: '' });
