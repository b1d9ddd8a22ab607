/**
 * The sandbox scenario table (docs/guides/payment-methods.md, Test scenarios): the last four digits
 * of a card number, phone, account or PayPal sandbox email pick what setup and off-session charges
 * answer, on the managed sandbox and on the provider simulators alike.
 */
export const scenarios = {
  success: { last4: '4242', card: '4242424242424242', setupFails: false, charge: 'succeeded' },
  setup_declined: { last4: '0002', card: '4000000000000002', setupFails: true, charge: 'succeeded' },
  charge_declined: { last4: '0341', card: '4000000000000341', setupFails: false, charge: 'declined' },
  insufficient_funds: { last4: '9995', card: '4000000000009995', setupFails: false, charge: 'insufficient_funds' },
  requires_action: { last4: '3184', card: '4000002760003184', setupFails: false, charge: 'requires_action' },
  expired_card: { last4: '0069', card: '4000000000000069', setupFails: false, charge: 'expired_card' },
  revoked: { last4: '0404', card: '4000000000000404', setupFails: false, charge: 'payment_method_revoked' },
  async: { last4: '0077', card: '4000000000000077', setupFails: false, charge: 'pending' },
} as const;

export type Scenario = keyof typeof scenarios;
export const scenarioNames = Object.keys(scenarios) as Scenario[];

/** The scenario of a number's last four digits (phones and accounts: `0000` is `success`); unknown ones succeed. */
export function scenarioOf(digits: string): Scenario {
  const last4 = digits.replace(/\D/g, '').slice(-4);
  if (last4 === '0000') return 'success';
  return scenarioNames.find((s) => scenarios[s].last4 === last4) ?? 'success';
}

/** Amount magic for `success` methods (minor units, any currency): Xendit's direct-debit test amounts. */
export const amountMagic: Record<string, string> = {
  '11001': 'limit_exceeded',
  '11002': 'insufficient_funds',
  '11004': 'account_blocked',
};
