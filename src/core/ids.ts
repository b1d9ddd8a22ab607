import { randomFillSync } from 'node:crypto';
import { encodeTime } from 'ulid';

// Ids are capabilities in places (a hosted page's session, a receipt), so every id gets 80 fresh
// CSPRNG bits: no monotonic increments (ulid's monotonicFactory made ids of one millisecond differ
// by +1, across kinds). They stay sortable by time at millisecond granularity; within one
// millisecond their order is random. A refilled pool of crypto-random bytes avoids one call into
// the CSPRNG per id; each byte gives one base32 character (its low five bits, uniform).
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const pool = new Uint8Array(4096);
let next = pool.length;
function randomPart(): string {
  if (next + 16 > pool.length) randomFillSync(pool), (next = 0);
  let out = '';
  for (let i = 0; i < 16; i++) out += ALPHABET[pool[next + i] & 31];
  // Used bytes are overwritten so the pool never holds an id's randomness after it is minted.
  pool.fill(0, next, next + 16);
  next += 16;
  return out;
}
const ulid = () => encodeTime(Date.now(), 10) + randomPart();

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
  usageRecord: 'ur',
  providerEvent: 'pevt',
  providerCall: 'pcall',
  checkoutAttempt: 'catt',
  paymentMethod: 'pm',
  dashboardSession: 'dss',
  creditNote: 'cn',
  creditNoteLine: 'cnl',
  customerBalanceTransaction: 'cbtxn',
  coupon: 'cpn',
  setupSession: 'ss',
  setupAttempt: 'satt',
  discount: 'di',
  meter: 'mtr',
  usageIngestBatch: 'ubat',
  reconciliationImport: 'rimp',
  reconciliationRow: 'rrow',
  reconciliationRun: 'rrun',
  settlementBatch: 'rbat',
  reconciliationMatch: 'rmch',
  reconciliationException: 'rexc',
  /** An exception's history entry (never an API id). */
  reconciliationExceptionHistory: 'rexh',
} as const;

export type IdKind = keyof typeof prefixes;

/** Prefixed ULID (`cs_01J...`): 48 bits of time, 80 random; sortable by creation time, safe in URLs. */
export function newId(kind: IdKind): string {
  return `${prefixes[kind]}_${ulid()}`;
}

const shape = /^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}$/;
export function isId(kind: IdKind, value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(`${prefixes[kind]}_`) && shape.test(value);
}
