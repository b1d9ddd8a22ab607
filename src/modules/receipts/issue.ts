import type { Mode, Tx } from '../../core/db/client.ts';
import { counterNames, nextCounter, receiptNumber } from '../../core/counters.ts';
import { newId } from '../../core/ids.ts';
import { templateForUse } from '../templates/service.ts';
import { DEFAULT_TAX_LABEL, DEFAULT_TAX_RATE, DEFAULT_THANK_YOU_TEXT, DEFAULT_ACCENT_COLOR } from './render/view.ts';
import type { CheckoutSession, Payment, Workspace } from '../../generated/prisma/client.ts';

const methodLabels: Record<string, string> = { qris: 'QRIS', va: 'Virtual account', ewallet: 'E-wallet', card: 'Card', retail: 'Retail outlet', provider_c: 'provider_c wallet' };

/**
 * spec Receipt: issued in the completion transaction, frozen from then on. Prepared first (reads
 * and the tax split), numbered last: the workspace's gapless counter is a row lock held to commit,
 * so taking it at the end keeps concurrent completions queued for as short a time as possible.
 * The unique (workspace, sourceType, sourceId) key makes a second issue for the same source impossible.
 */
export async function prepareSessionReceipt(tx: Tx, scope: { workspaceId: string; mode: Mode }, workspace: Workspace, s: CheckoutSession, payment: Payment, issuedAt: Date) {
  const [template, customer] = await Promise.all([
    templateForUse(tx, scope, s.templateId, 'receipt', 'checkout_session'),
    s.customerId ? tx.customer.findFirst({ where: { id: s.customerId, workspaceId: scope.workspaceId, mode: scope.mode } }) : null,
  ]);
  const total = Number(s.amount);
  const showTax = template?.showTax ?? false;
  const taxRate = showTax ? Number(template?.taxRate ?? DEFAULT_TAX_RATE) : 0;
  // spec: prices include tax; taxAmount = round(total x rate / (1 + rate)).
  const taxAmount = showTax ? Math.round((total * taxRate) / (1 + taxRate)) : 0;
  const items = (s.lineItems as { name: string; quantity: number; unitAmount: number }[]).map((i) => ({ name: i.name, qty: i.quantity, unitPrice: i.unitAmount, subtotal: i.quantity * i.unitAmount }));
  const metadata = (s.metadata ?? {}) as Record<string, string>;
  return {
    id: newId('receipt'),
    workspaceId: scope.workspaceId,
    mode: scope.mode,
    sourceType: 'checkout_session',
    sourceId: s.id,
    paymentId: payment.id,
    customerId: s.customerId,
    templateId: template?.id ?? null,
    status: 'completed',
    paidAt: payment.capturedAt,
    amount: s.amount,
    currency: s.currency,
    method: payment.method,
    methodLabel: payment.method ? (methodLabels[payment.method] ?? payment.method) : null,
    adapter: payment.adapter === 'provider_a_platform' ? 'provider_a' : payment.adapter,
    customer: customer ? { name: customer.name, email: customer.email, phone: customer.phone } : undefined,
    merchant: {
      name: workspace.brandName ?? workspace.name,
      logoUrl: template?.logoUrl ?? null,
      accentColor: template?.accentColor ?? DEFAULT_ACCENT_COLOR,
      tagline: template?.tagline ?? null,
      address: template?.merchantAddress ?? null,
      taxId: template?.merchantTaxId ?? null,
    },
    lineItems: items,
    subtotal: BigInt(total - taxAmount),
    taxAmount: BigInt(taxAmount),
    total: s.amount,
    template: {
      footerText: template?.footerText ?? null,
      thankYouText: template?.thankYouText ?? DEFAULT_THANK_YOU_TEXT,
      showTax,
      taxLabel: template?.taxLabel ?? DEFAULT_TAX_LABEL,
      taxRate,
      cashierLabel: metadata.cashierName ?? template?.cashierLabel ?? null,
      showMerchantAddress: template?.showMerchantAddress ?? true,
      merchantAddress: template?.merchantAddress ?? null,
      merchantTaxId: template?.merchantTaxId ?? null,
    },
    issuedAt,
  };
}

export type PreparedReceipt = Awaited<ReturnType<typeof prepareSessionReceipt>>;

/** Numbers and writes a prepared receipt: the last statement of the completion transaction. */
export async function issueReceipt(tx: Tx, scope: { workspaceId: string; mode: Mode }, r: PreparedReceipt) {
  const sequence = await nextCounter(tx, scope, counterNames.receipt);
  return tx.receipt.create({ data: { ...r, number: receiptNumber(r.issuedAt, sequence) } });
}
