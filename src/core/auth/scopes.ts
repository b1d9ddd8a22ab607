import { DomainError } from '../errors.ts';

/** Every scope the API checks; `docs/scopes.md` is written from this list. */
export const scopeCatalog = {
  'svc:api_key:read': 'list and retrieve API keys',
  'svc:api_key:write': 'mint and revoke API keys',
  'svc:workspace:read': 'retrieve and list workspaces',
  'svc:workspace:write': 'update, activate and archive workspaces; create and restore workspaces under a partner',
  'svc:member:read': 'list workspace members',
  'svc:member:write': 'invite, change the role of and remove members',
  'svc:event:read': 'retrieve and list events',
  'svc:event:write': 'replay events',
  'svc:event:trigger': 'trigger synthetic test events',
  'svc:webhook:read': 'retrieve and list webhook endpoints and deliveries',
  'svc:webhook:write': 'create, update, delete and rotate webhook endpoints; retry deliveries',
  'svc:checkout:read': 'retrieve and list checkout sessions and receipts',
  'svc:checkout:write': 'create, cancel and confirm checkout sessions; email receipts',
  'svc:payment:read': 'retrieve and list payments',
  'svc:refund:read': 'retrieve and list refunds',
  'svc:refund:write': 'create refunds',
  'svc:customer:read': 'retrieve and list customers',
  'svc:customer:write': 'create and update customers',
  'svc:payment_method:read': 'retrieve and list payment methods and setup sessions',
  'svc:payment_method:write': 'create (test mode), update, detach and simulate payment methods; setup sessions',
  'svc:payout:read': 'payouts, balance and bank account',
  'svc:payout:write': 'create and cancel payouts; update the bank account',
  'svc:invoice:read': 'retrieve, list and render invoices',
  'svc:invoice:write': 'create, finalize, pay, void and email invoices',
  'svc:plan:read': 'retrieve and list plans',
  'svc:plan:create': 'create plans',
  'svc:plan:write': 'update and archive plans; add and update prices',
  'svc:subscription:read': 'retrieve and list subscriptions',
  'svc:subscription:write': 'create, update, cancel, pause and resume subscriptions; report usage',
  'svc:template:read': 'retrieve and list templates',
  'svc:template:write': 'create and update templates',
  'svc:ledger:read': 'ledger entries and balances',
  'svc:report:read': 'reports and the ledger CSV export',
  'svc:portal:create': 'create portal sessions',
  'svc:adapter:read': 'adapters and managed onboarding state',
  'svc:adapter:write': 'connect adapters and start managed onboarding',
  'svc:audit:read': 'the audit log',
  'svc:credit_note:read': 'retrieve, list, preview and render credit notes',
  'svc:credit_note:write': 'issue and void credit notes (a refund part also needs svc:refund:write)',
  'svc:customer_balance:read': 'customer balances and their transactions',
  'svc:customer_balance:write': 'adjust customer balances',
  'svc:coupon:read': 'retrieve and list coupons',
  'svc:coupon:write': 'create, update and archive coupons',
  'svc:meter:read': 'retrieve and list meters',
  'svc:meter:write': 'create, update and archive meters',
  'svc:usage:read': 'retrieve and list usage events',
  'svc:usage:write': 'ingest and void usage events',
  'svc:reconciliation:read': 'reconciliation imports, rows, batches, runs and settings',
  'svc:reconciliation:write': 'upload reconciliation files and update reconciliation settings',
} as const;

export type Scope = keyof typeof scopeCatalog;

/** Restricted-key spellings seen in the spec (`apiKeys:write`, `payments:read`, `refunds:write`). */
const aliases: Record<string, Scope> = {
  'apiKeys:read': 'svc:api_key:read',
  'apiKeys:write': 'svc:api_key:write',
  'payments:read': 'svc:payment:read',
  'refunds:read': 'svc:refund:read',
  'refunds:write': 'svc:refund:write',
  'customers:read': 'svc:customer:read',
  'customers:write': 'svc:customer:write',
  'checkout:read': 'svc:checkout:read',
  'checkout:write': 'svc:checkout:write',
  'events:read': 'svc:event:read',
  'webhooks:read': 'svc:webhook:read',
  'webhooks:write': 'svc:webhook:write',
};

export function normalizeScope(value: string): Scope | null {
  if (value in scopeCatalog) return value as Scope;
  return aliases[value] ?? null;
}

export const keyRoles = ['full_access', 'read_only', 'webhook_management_only', 'restricted'] as const;
export type KeyRole = (typeof keyRoles)[number];
export const memberRoles = ['owner', 'admin', 'member', 'read_only'] as const;
export type MemberRole = (typeof memberRoles)[number];

const every = Object.keys(scopeCatalog) as Scope[];
const reads = every.filter((s) => s.endsWith(':read'));

/*
 * Every role is an explicit allow-list: a scope added to the catalog is granted to no role until it
 * is written here (owner, admin and full_access take the whole catalog by definition). A test walks
 * every role against every scope, and docs/scopes.md prints this matrix.
 */

/** spec API key roles. `restricted` has exactly the scopes given at creation. */
export const keyRoleScopes: Record<Exclude<KeyRole, 'restricted'>, readonly Scope[]> = {
  full_access: every,
  read_only: reads,
  // spec: read/write on /v1/webhook-endpoints and /v1/events only
  webhook_management_only: [
    'svc:webhook:read',
    'svc:webhook:write',
    'svc:event:read',
    'svc:event:write',
    'svc:event:trigger',
  ],
};

/**
 * spec Member roles: `owner` everything; `admin` everything but owner-only actions (archive,
 * ownership transfer, activation: checked as `owner_required` by those operations); `member`
 * views everything and works with payments, refunds, webhooks and customers, with no team,
 * API-key, payout (bank account, payouts), adapter, plan or template administration and no event
 * replay; `read_only` views only.
 */
export const memberRoleScopes: Record<MemberRole, readonly Scope[]> = {
  owner: every,
  admin: every,
  member: [
    'svc:api_key:read',
    'svc:workspace:read',
    'svc:member:read',
    'svc:event:read',
    'svc:event:trigger',
    'svc:webhook:read',
    'svc:webhook:write',
    'svc:checkout:read',
    'svc:checkout:write',
    'svc:payment:read',
    'svc:refund:read',
    'svc:refund:write',
    'svc:customer:read',
    'svc:customer:write',
    'svc:payment_method:read',
    'svc:payment_method:write',
    'svc:payout:read',
    'svc:invoice:read',
    'svc:invoice:write',
    'svc:plan:read',
    'svc:subscription:read',
    'svc:subscription:write',
    'svc:template:read',
    'svc:ledger:read',
    'svc:report:read',
    'svc:portal:create',
    'svc:adapter:read',
    'svc:audit:read',
    'svc:credit_note:read',
    'svc:credit_note:write',
    'svc:customer_balance:read',
    'svc:customer_balance:write',
    'svc:coupon:read',
    'svc:meter:read',
    'svc:usage:read',
    'svc:usage:write',
    'svc:reconciliation:read',
  ],
  read_only: reads,
};

export interface Grant {
  role: KeyRole;
  scopes: readonly Scope[];
  memberRole: MemberRole | null;
}

/** A key may act when both its own role and its member's role allow the scope. */
export function allows(grant: Grant, scope: Scope): boolean {
  const byKey = grant.role === 'restricted' ? grant.scopes : keyRoleScopes[grant.role];
  return byKey.includes(scope) && (grant.memberRole === null || memberRoleScopes[grant.memberRole].includes(scope));
}

export function assertScope(grant: Grant, scope: Scope) {
  if (!allows(grant, scope)) throw new DomainError('insufficient_scope', `This key lacks the ${scope} scope`);
}

export const memberRank: Record<MemberRole, number> = { owner: 3, admin: 2, member: 1, read_only: 0 };

/**
 * spec Workspaces and members: "owners and admins can promote or demote anyone below their own
 * role". Team and key administration act only on members ranked strictly below the caller's
 * member (a key without a member ranks as admin).
 */
export const outranks = (caller: { memberRole: MemberRole | null }, role: MemberRole) =>
  memberRank[role] < (caller.memberRole ? memberRank[caller.memberRole] : memberRank.admin);

/**
 * Owner-only actions (DECISIONS §2): the key must act for the owner of the workspace it acts on; a
 * platform-admin key on behalf of a merchant acts with its own member's role (the partner's owner).
 */
export function assertOwner(caller: { memberRole: MemberRole | null }, action: string) {
  if (caller.memberRole !== 'owner')
    throw new DomainError('owner_required', `Only a key acting for the workspace owner can ${action}`);
}
