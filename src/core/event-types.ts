/** The event catalog: every type the service emits, and when. docs/events.md is printed from it. */
export const eventTypes = {
  'workspace.created': 'a workspace was created (bootstrap or partner provisioning)',
  'workspace.updated': 'settings changed, or live mode activated; data.previousAttributes holds the old values',
  'workspace.archived': 'the owner archived the workspace (live mode off, keys revoked)',
  'workspace.restored': 'an archived workspace was restored within its 90 days',
  'workspace.member_invited': 'a member was invited',
  'workspace.member_joined': 'an invitation was accepted',
  'workspace.member_removed': 'a member was removed',
  'workspace.member_role_changed': 'a member role changed; data.previousAttributes.role',
  'workspace.ownership_transferred': 'ownership moved; both identities in the payload',
  'customer.created': 'a customer was created',
  'customer.updated': 'a customer changed; data.previousAttributes holds the old values',
  'payment_method.attached':
    'a payment method was saved for a customer (setup session, checkout with consent, portal, test create)',
  'payment_method.updated':
    'a payment method changed (metadata, needs the customer again, reactivated); data.previousAttributes',
  'payment_method.detached': 'a payment method was detached (API or portal); it is never charged again',
  'payment_method.expired': 'a payment method expired (card past its expiry, provider expiry, expired_card answer)',
  'payment_method.revoked': 'the provider revoked or unlinked a payment method (callback or a charge answer)',
  'template.created': 'a receipt or invoice template was created',
  'template.updated': 'a template changed (including losing its default flag to another); data.previousAttributes',
  'adapter.connected': 'first successful PUT of an adapter kind in this mode; data.id is the kind',
  'adapter.updated': 'a later PUT of the kind (credentials or configuration replaced); data.previousAttributes',
  'adapter.error': 'an upstream gateway call failed; the adapter status is error',
  'adapter.managed.kyb_changed':
    'the managed sub-account KYB status moved (onboarding started, registered, live); data.id is managed',
  'adapter.managed.capabilities_changed': 'the managed sub-account capabilities status or payout readiness changed',
  'svc.checkout_session.created.v1': 'reserved: declared, not fired on every create (spec)',
  'svc.checkout_session.completed.v1':
    'payment captured (provider callback, sandbox simulate, manual confirm); data.object is the session',
  'svc.checkout_session.expired.v1': 'the session passed expiresAt unpaid (sweep, up to about a minute late)',
  'svc.setup_session.completed.v1':
    'a setup session saved its payment method (provider-confirmed or sandbox simulate); data.object is the session',
  'svc.setup_session.expired.v1': 'the setup session passed expiresAt without saving a method (sweep)',
  'svc.invoice.created.v1': 'a draft invoice was created (an invoice created open emits only finalized)',
  'svc.invoice.finalized.v1': 'an invoice became open: finalized, or created open; it carries its number and issuedAt',
  'svc.invoice.paid.v1': 'an invoice became paid (mark paid, hosted page settlement, auto-collection, zero total)',
  'svc.invoice.payment_failed.v1':
    'an automatic charge on a subscription invoice failed; data.metadata holds failureCode and failureMessage',
  'svc.invoice.payment_action_required.v1':
    'an automatic charge needs the customer to authenticate; the invoice stays open and data.metadata holds paymentId, failureCode and nextActionExpiresAt',
  'svc.invoice.voided.v1': 'an invoice became void; excluded from outstanding totals',
  'svc.credit_note.issued.v1':
    'a credit note was issued against an invoice (numbered); its refund, balance credit and invoice changes commit with it',
  'svc.credit_note.voided.v1': 'a credit note was voided; its effects on the invoice and the balance are reversed',
  'coupon.created': 'a coupon was created',
  'coupon.updated': "a coupon's name or metadata changed; previousAttributes holds the old values",
  'coupon.archived': 'a coupon was archived: no new redemptions; discounts already applied continue',
  'customer_balance_transaction.created':
    "a customer's balance moved (credit note, adjustment, applied to or given back by an invoice)",
  'payment.succeeded': 'a payment was captured; it completes its checkout session in the same transaction',
  'payment.failed': 'an automatic charge of a stored payment method failed; failureCode and failureMessage are set',
  'payment.requires_action':
    'an automatic charge waits for the customer to authenticate it; nextAction holds the URL and its expiry',
  'payment.refunded': 'a refund succeeded and the payment is now fully refunded',
  'payment.partially_refunded': 'a refund succeeded and part of the payment is still unrefunded',
  'refund.created': 'a refund was created (pending, or succeeded on the same call for managed test-mode cards)',
  'refund.succeeded': 'a refund settled; once per refund',
  'refund.failed':
    'the provider rejected a refund; failureCode and failureMessage are set and the amount is refundable again',
  'refund.updated': 'catch-all for refund transitions without their own event (pre-execution cancellation)',
  'payout.initiated': 'a payout moved from pending to in_transit (handed to the rail)',
  'payout.paid': 'a payout reached the bank; the ledger posting under code payout is made',
  'payout.failed': 'a payout was rejected; failureReason is set and the funds are available again',
  'reconciliation_import.created':
    'a reconciliation file was imported (an upload answered 201): its rows are staged and a run queued',
  'reconciliation_import.failed': 'a report pull failed; failureCode and failureMessage say why',
  'reconciliation_run.completed': 'a reconciliation run finished; its stats say what it decided',
  'reconciliation_run.failed': 'a reconciliation run failed; failureCode is set',
  'reconciliation_exception.created': 'a reconciliation exception was opened',
  'reconciliation_exception.updated':
    'a reconciliation exception changed (assignee, metadata); data.previousAttributes',
  'reconciliation_exception.resolved':
    'a reconciliation exception was accepted, written off, linked or resolved automatically',
  'settlement_batch.matched': "a settlement batch's bank credit arrived or was linked",
  'plan.created': 'a plan was created with its prices',
  'plan.updated':
    'a mutable field changed, a price was added, or a price active flag flipped (no separate price events); ' +
    'data.previousAttributes',
  'plan.archived': 'a plan was archived (active false, archivedAt set); existing subscriptions keep billing',
  'meter.created': 'a meter was created',
  'meter.updated': "a meter's name, description, unit or metadata changed; data.previousAttributes",
  'meter.archived': 'a meter was archived: it counts no new usage events; what it counted stays',
  'dunning_policy.created': 'a dunning policy was created',
  'dunning_policy.updated': 'a dunning policy changed; data.previousAttributes holds the old values',
  'subscription.created':
    'a subscription was created (trialing, active, or incomplete until its first invoice is paid)',
  'subscription.updated':
    'a subscription changed (status, period, price, quantity, pause, resume, a discount applied or removed, ...); data.previousAttributes',
  'subscription.cancelled': 'a subscription was canceled (status canceled, canceledAt set)',
  'test_clock.created': 'a test clock was created (test mode only)',
  'test_clock.advancing': 'a large advance started; everything due up to the target runs in the background',
  'test_clock.ready': 'an advance finished: everything due up to frozenTime ran, in order',
  'test_clock.internal_failure': 'a background advance failed; the clock keeps the time it reached',
  'test_clock.deleted': 'a test clock was deleted; the subscriptions on it were canceled',
  'webhook_endpoint.disabled':
    'an endpoint failed 20 delivery attempts in a row and is now errored ' +
    '(config and secret kept; re-enable with PATCH enabled: true)',
} as const;

export type EventType = keyof typeof eventTypes;
