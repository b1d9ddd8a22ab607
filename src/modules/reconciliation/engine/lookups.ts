/**
 * The provider phase's lookups for a whole chunk in a few statements (docs/reconciliation.md, Runs): by provider
 * reference, by the ids a reference names (one query per prefix), and the amount+date candidates, each object
 * read once with the row that already claims it. Payments, refunds and payouts are read with SQL: they sit below.
 */
import { sql, type Sql } from '../../../core/db/sql.ts';
import type { RowScope } from '../../../core/resource.ts';
import { paymentMachine } from '../../payments/states.ts';
import { refundMachine } from '../../refunds/states.ts';
import { payoutMachine } from '../../payouts/states.ts';
import type { LedgerObject, Lookups } from '../rules/provider-match.ts';
import { claimedKind, parseReference } from '../rules/references.ts';
import type { ObjectKind } from '../rules/categories.ts';
import type { StagedRow } from './rows.ts';

/** Captured per each machine: a payment captured or refunded, a refund succeeded, a payout handed over or paid. */
const capturedPayment = [
  paymentMachine.moves.capture.to,
  paymentMachine.moves.refund_full.to,
  paymentMachine.moves.refund_partial.to,
];
const capturedRefund = [refundMachine.moves.provider_succeeded.to];
const capturedPayout = [payoutMachine.moves.initiate.to, payoutMachine.moves.mark_paid.to];

interface ObjectRow {
  kind: ObjectKind;
  id: string;
  adapter: string | null;
  currency: string;
  amount: bigint;
  status: string;
  capturedAt: Date | null;
  method: string | null;
  fee: bigint | null;
  providerReference: string | null;
  sessionId: string | null;
  invoiceId: string | null;
  reference: string | null;
}

export interface ChunkLookups {
  objects: Map<string, LedgerObject & { raw: ObjectRow }>;
  found(row: StagedRow): Lookups;
}

const DAY = 86_400_000;

/** Every object the chunk's rows may claim, and a function giving each row what its lookups found. */
export async function lookUpChunk(
  tx: Sql,
  scope: RowScope,
  adapter: string,
  rows: readonly StagedRow[],
  dateToleranceDays: number,
): Promise<ChunkLookups> {
  const provRefs = uniq(rows.flatMap((r) => (r.providerReference ? [r.providerReference] : [])));
  const named = { payment: [] as string[], checkout_session: [] as string[], invoice: [] as string[] };
  const refundIds: string[] = [];
  const payoutIds: string[] = [];
  const payoutRefs: string[] = [];
  const amounts = { payment: new Set<string>(), refund: new Set<string>(), payout: new Set<string>() };
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  for (const r of rows) {
    const kind = claimedKind(r.type);
    if (!kind) continue;
    const ref = parseReference(r.reference);
    if (ref?.kind === 'refund') refundIds.push(ref.id);
    else if (ref?.kind === 'payout') payoutIds.push(ref.id);
    else if (ref) named[ref.kind].push(ref.id);
    if (kind === 'payout' && r.reference) payoutRefs.push(r.reference.trim());
    if (!r.reference && !r.providerReference && r.occurredAt) {
      amounts[kind].add(`${r.currency}:${r.amount < 0n ? -r.amount : r.amount}`);
      from = Math.min(from, r.occurredAt.getTime());
      to = Math.max(to, r.occurredAt.getTime());
    }
  }
  // The window is in the workspace's calendar days: a day more on each side covers any zone.
  const pad = (dateToleranceDays + 1) * DAY;
  const window = Number.isFinite(from)
    ? { from: new Date(from - pad), to: new Date(to + pad) }
    : { from: new Date(0), to: new Date(0) };
  const q = { tx, scope, adapter, window };
  const found = [
    ...(await paymentsBy(q, provRefs, named, [...amounts.payment])),
    ...(await refundsBy(q, provRefs, uniq(refundIds), [...amounts.refund])),
    ...(await payoutsBy(q, uniq(payoutIds), uniq(payoutRefs), [...amounts.payout])),
  ];
  const objects = new Map<string, LedgerObject & { raw: ObjectRow }>();
  for (const o of found) if (!objects.has(o.id)) objects.set(o.id, toLedgerObject(o, adapter));
  await readClaims(tx, scope, objects);
  return { objects, found: finder(objects) };
}

const uniq = <T>(xs: T[]) => [...new Set(xs)];

function toLedgerObject(o: ObjectRow, adapter: string): LedgerObject & { raw: ObjectRow } {
  const captured =
    o.kind === 'payment' ? capturedPayment : o.kind === 'refund' ? capturedRefund : (capturedPayout as string[]);
  return {
    kind: o.kind,
    id: o.id,
    // Payouts carry no adapter: they leave through the provider whose report names them.
    adapter: o.adapter ?? (o.kind === 'payout' ? adapter : ''),
    currency: o.currency,
    amount: Number(o.amount),
    captured: captured.includes(o.status),
    capturedAt: o.capturedAt,
    claimedBy: null,
    method: o.method,
    capturedFee: o.fee !== null && o.fee > 0n ? Number(o.fee) : null,
    raw: o,
  };
}

type Found = LedgerObject & { raw: ObjectRow };

/** The chunk's objects by each key a lookup reads. */
function indexObjects(objects: Map<string, Found>) {
  const by = {
    providerReference: new Map<string, Found[]>(),
    key: new Map<string, Found[]>(),
    amount: new Map<string, Found[]>(),
  };
  const add = (m: Map<string, Found[]>, k: string | null, o: Found) => {
    if (k === null) return;
    const list = m.get(k);
    if (list) list.push(o);
    else m.set(k, [o]);
  };
  for (const o of objects.values()) {
    add(by.providerReference, o.raw.providerReference, o);
    add(by.key, o.id, o);
    add(by.key, o.raw.sessionId, o);
    add(by.key, o.raw.invoiceId, o);
    if (o.kind === 'payout') add(by.key, o.raw.reference === null ? null : `payout:${o.raw.reference}`, o);
    add(by.amount, `${o.currency}:${o.raw.amount}`, o);
  }
  return by;
}

/** What each lookup of the row's plan found among the chunk's objects. */
function finder(objects: Map<string, Found>) {
  const by = indexObjects(objects);
  return (row: StagedRow): Lookups => {
    const out: Lookups = {};
    if (row.providerReference) out.provider_reference = by.providerReference.get(row.providerReference) ?? [];
    if (row.reference) {
      const ref = parseReference(row.reference);
      const named = ref ? (by.key.get(ref.id) ?? []) : [];
      const byOwnReference = row.type === 'payout' ? (by.key.get(`payout:${row.reference.trim()}`) ?? []) : [];
      out.reference = [...new Set([...named, ...byOwnReference])];
    }
    if (!row.reference && !row.providerReference) {
      const abs = row.amount < 0n ? -row.amount : row.amount;
      out.amount_date = by.amount.get(`${row.currency}:${abs}`) ?? [];
    }
    return out;
  };
}

interface Query {
  tx: Sql;
  scope: RowScope;
  adapter: string;
  window: { from: Date; to: Date };
}

const pairs = (keys: string[]) => ({
  currencies: keys.map((k) => k.split(':')[0]),
  amounts: keys.map((k) => k.split(':')[1]),
});

const paymentColumns = sql`${'payment'}::text AS kind, p.id, p.adapter, p.currency, p.amount, p.status,
  p."capturedAt", p.method, p.fee, p."providerReference", p."checkoutSessionId" AS "sessionId", p."invoiceId",
  NULL::text AS reference`;

async function paymentsBy(
  q: Query,
  provRefs: string[],
  named: { payment: string[]; checkout_session: string[]; invoice: string[] },
  amountKeys: string[],
): Promise<ObjectRow[]> {
  const { tx, scope } = q;
  const k = pairs(amountKeys);
  const tenant = sql`p."workspaceId" = ${scope.workspaceId} AND p.mode = ${scope.mode}`;
  return tx.query<ObjectRow>(
    sql`SELECT ${paymentColumns} FROM payments p
        WHERE ${tenant} AND p.adapter = ${q.adapter} AND p."providerReference" = ANY(${provRefs}::text[])
      UNION ALL SELECT ${paymentColumns} FROM payments p WHERE ${tenant} AND p.id = ANY(${uniq(named.payment)}::text[])
      UNION ALL SELECT ${paymentColumns} FROM payments p
        WHERE ${tenant} AND p."checkoutSessionId" = ANY(${uniq(named.checkout_session)}::text[])
      UNION ALL SELECT ${paymentColumns} FROM payments p
        WHERE ${tenant} AND p."invoiceId" = ANY(${uniq(named.invoice)}::text[])
      UNION ALL SELECT ${paymentColumns} FROM payments p
        JOIN unnest(${k.currencies}::text[], ${k.amounts}::bigint[]) AS k(currency, amount)
          ON p.currency = k.currency AND p.amount = k.amount
        WHERE ${tenant} AND p.adapter = ${q.adapter}
          AND p."capturedAt" BETWEEN ${q.window.from} AND ${q.window.to}`,
  );
}

const refundColumns = sql`${'refund'}::text AS kind, f.id, f.adapter, f.currency, f.amount, f.status,
  coalesce(f."settledAt", f."updatedAt") AS "capturedAt", NULL::text AS method, NULL::bigint AS fee,
  f."providerRefundId" AS "providerReference", NULL::text AS "sessionId", NULL::text AS "invoiceId",
  NULL::text AS reference`;

async function refundsBy(q: Query, provRefs: string[], ids: string[], amountKeys: string[]): Promise<ObjectRow[]> {
  const { tx, scope } = q;
  const k = pairs(amountKeys);
  const tenant = sql`f."workspaceId" = ${scope.workspaceId} AND f.mode = ${scope.mode}`;
  return tx.query<ObjectRow>(
    sql`SELECT ${refundColumns} FROM refunds f
        WHERE ${tenant} AND f.adapter = ${q.adapter} AND f."providerRefundId" = ANY(${provRefs}::text[])
      UNION ALL SELECT ${refundColumns} FROM refunds f WHERE ${tenant} AND f.id = ANY(${ids}::text[])
      UNION ALL SELECT ${refundColumns} FROM refunds f
        JOIN unnest(${k.currencies}::text[], ${k.amounts}::bigint[]) AS k(currency, amount)
          ON f.currency = k.currency AND f.amount = k.amount
        WHERE ${tenant} AND f.adapter = ${q.adapter}
          AND coalesce(f."settledAt", f."updatedAt") BETWEEN ${q.window.from} AND ${q.window.to}`,
  );
}

const payoutColumns = sql`${'payout'}::text AS kind, o.id, NULL::text AS adapter, o.currency, o.amount, o.status,
  coalesce(o."processedAt", o."createdAt") AS "capturedAt", NULL::text AS method, NULL::bigint AS fee,
  NULL::text AS "providerReference", NULL::text AS "sessionId", NULL::text AS "invoiceId", o.reference`;

async function payoutsBy(q: Query, ids: string[], refs: string[], amountKeys: string[]): Promise<ObjectRow[]> {
  const { tx, scope } = q;
  const k = pairs(amountKeys);
  const tenant = sql`o."workspaceId" = ${scope.workspaceId} AND o.mode = ${scope.mode}`;
  return tx.query<ObjectRow>(
    sql`SELECT ${payoutColumns} FROM payouts o WHERE ${tenant} AND o.id = ANY(${ids}::text[])
      UNION ALL SELECT ${payoutColumns} FROM payouts o WHERE ${tenant} AND o.reference = ANY(${refs}::text[])
      UNION ALL SELECT ${payoutColumns} FROM payouts o
        JOIN unnest(${k.currencies}::text[], ${k.amounts}::bigint[]) AS k(currency, amount)
          ON o.currency = k.currency AND o.amount = k.amount
        WHERE ${tenant} AND coalesce(o."processedAt", o."createdAt") BETWEEN ${q.window.from} AND ${q.window.to}`,
  );
}

/** The provider row of the same kind that already claims each object (the claim index answers it). */
async function readClaims(tx: Sql, scope: RowScope, objects: Map<string, Found>) {
  if (!objects.size) return;
  const list = [...objects.values()];
  const claims = await tx.query<{ objectId: string; id: string }>(
    sql`SELECT r."objectId", r.id FROM recon_rows r
      JOIN unnest(${list.map((o) => o.kind)}::text[], ${list.map((o) => o.id)}::text[]) AS k(kind, id)
        ON r."objectType" = k.kind AND r."objectId" = k.id AND r.type = k.kind
      WHERE r."workspaceId" = ${scope.workspaceId} AND r.mode = ${scope.mode}
        AND r."objectId" IS NOT NULL AND r."objectType" <> ${'settlement_batch'}`,
  );
  for (const c of claims) {
    const o = objects.get(c.objectId);
    if (o) o.claimedBy = c.id;
  }
}
