import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

// ulid draws one random byte per character through a fresh typed array; a refilled pool of
// crypto-random bytes gives the same randomness without 16 calls into the CSPRNG per id.
const pool = new Uint8Array(4096);
let next = pool.length;
const prng = () => {
  if (next === pool.length) (randomFillSync(pool), (next = 0));
  return pool[next++] / 256;
};
const ulid = monotonicFactory(prng);

export const prefixes = {
  apiKey: 'akey',
  checkoutSession: 'cs',
  payment: 'pay',
  payout: 'po',
  invoice: 'inv',
  invoiceLine: 'il',
  plan: 'pln',
  price: 'pr',
  refund: 'rf',
  receipt: 'rcpt',
  ledgerEntry: 'le',
  portalSession: 'ps',
  webhookEndpoint: 'whep',
  webhookDelivery: 'whdel',
  event: 'evt',
  workspace: 'ws',
  account: 'acc',
  customer: 'cus',
  template: 'tpl',
  member: 'mem',
  dunningPolicy: 'dp',
  request: 'req',
  auditLog: 'aud',
  testClock: 'clk',
  subscription: 'sub',
  providerEvent: 'pevt',
  providerCall: 'pcall',
  checkoutAttempt: 'catt',
} as const;

export type IdKind = keyof typeof prefixes;

/** Prefixed ULID (`cs_01J...`): sortable by creation, safe in URLs. */
export function newId(kind: IdKind): string {
  return `${prefixes[kind]}_${ulid()}`;
}

const shape = /^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}$/;
export function isId(kind: IdKind, value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(prefixes[kind] + '_') && shape.test(value);
}
