/**
 * The reconciliation bench's world, deterministic from its size: N captured objects (nine payments,
 * then a refund of the payment before it, in every ten) seeded straight into `payments`, `refunds` and
 * their capture postings, the provider report that settles them (generic format, one settlement id per
 * N / batches objects), the bank statement that pays those settlements, and the ground truth: what a
 * run must decide for every row, object, batch and bank line.
 *
 * Breaks (`breaks` of each kind, 0 for the clean R1 file) sit at fixed strides among the payments:
 *   amount_mismatch   the row reports 1,000 more than the payment
 *   fee_mismatch      the payment carries its fee from capture; the row reports 500 more
 *   currency_mismatch the row says USD, the payment is IDR
 *   duplicate         a second row (`txn_dup_<i>`) names the same payment
 *   missing_in_ledger a row (`txn_ghost_<i>`) names a payment that does not exist
 *   missing_at_provider the payment has no row at all
 * and on the bank side every other settlement of the first 2 x `breaks` is never paid (late), and
 * `breaks` credits name nothing (unknown).
 */
import type pg from 'pg';

export const FIXTURE_START = Date.UTC(2026, 9, 1); // 2026-10-01T00:00Z: every date of the world is in the past
const SPAN_MS = 30 * 86_400_000;
const SETTLE_MS = 2 * 86_400_000;
export const TRANSFER_FEE = 2_900;
const BREAK_STRIDE = 100;
export const breakKinds = [
  'missing_at_provider',
  'amount_mismatch',
  'fee_mismatch',
  'currency_mismatch',
  'duplicate',
  'missing_in_ledger',
] as const;
export type BreakKind = (typeof breakKinds)[number];

export interface FixtureSize {
  objects: number;
  batches: number;
  /** Of each break kind; 0 for a clean world. */
  breaks: number;
}

const pad = (i: number) => String(i).padStart(20, '0');
export const paymentId = (i: number) => `pay_bench${pad(i)}`;
export const refundId = (i: number) => `rf_bench${pad(i)}`;
const isRefund = (i: number) => i % 10 === 0;
const paymentAmount = (i: number) => 10_000 + ((i * 7_919) % 9_901) * 100;
const refundAmount = (i: number) => Math.floor(paymentAmount(i - 1) / 200) * 100;
const capturedAt = (i: number, n: number) => FIXTURE_START + Math.floor(((i - 1) / n) * SPAN_MS);
const batchOf = (i: number, s: FixtureSize) => Math.floor(((i - 1) * s.batches) / s.objects) + 1;
const roundHalfUp = (num: number, den: number) => Math.floor((2 * num + den) / (2 * den));
export const qrisFee = (amount: number) => roundHalfUp(amount * 7, 1_000);
export const vatOn = (fee: number) => roundHalfUp(fee * 11, 100);

/** The break a payment carries, if any: kinds at offsets 1..6 of every stride of 100, `breaks` strides deep. */
export function breakOf(i: number, s: FixtureSize): BreakKind | null {
  if (isRefund(i) || i > s.breaks * BREAK_STRIDE) return null;
  return breakKinds[(i % BREAK_STRIDE) - 1] ?? null;
}

/**
 * Payments, refunds and their capture postings, set-based, inside the caller's transaction (which sets
 * `session_replication_role = replica`, as bench/ledger.ts does, and rebuilds `ledger_daily` after).
 * The SQL repeats the amount and break formulas above: `amountSql` and the break offsets.
 */
export async function seedObjects(c: pg.ClientBase, workspaceId: string, s: FixtureSize) {
  const amountSql = (g: string) => `(10000 + (((${g})::bigint * 7919) % 9901) * 100)`;
  const at = (g: string) => `(timestamptz '2026-10-01 00:00:00+00' + ((${g} - 1)::float8 / $2) * interval '30 days')`;
  const feeBreak = `(g <= $3 * ${BREAK_STRIDE} AND g % ${BREAK_STRIDE} = 3)`;
  const args = [workspaceId, s.objects, s.breaks];
  await c.query(
    `INSERT INTO payments (id, "workspaceId", mode, status, amount, "amountRefunded", currency, method, adapter,
            "providerReference", fee, "checkoutSessionId", "capturedAt", "createdAt", "updatedAt")
     SELECT 'pay_bench' || lpad(g::text, 20, '0'), $1, 'test',
            CASE WHEN g % 10 = 9 THEN 'partially_refunded' ELSE 'succeeded' END, ${amountSql('g')},
            CASE WHEN g % 10 = 9 THEN floor(${amountSql('g')} / 200) * 100 ELSE 0 END, 'IDR', 'qris', 'provider_a',
            'xbench_' || g, CASE WHEN ${feeBreak} THEN floor((2 * ${amountSql('g')} * 7 + 1000) / 2000) END,
            'cs_bench' || lpad(g::text, 20, '0'), ${at('g')}, ${at('g')}, ${at('g')}
       FROM generate_series(1, $2) g WHERE g % 10 <> 0`,
    args,
  );
  await c.query(
    `INSERT INTO refunds (id, "workspaceId", mode, "paymentId", amount, currency, status, adapter, "providerRefundId",
            "settledAt", "createdAt", "updatedAt")
     SELECT 'rf_bench' || lpad(g::text, 20, '0'), $1, 'test', 'pay_bench' || lpad((g - 1)::text, 20, '0'),
            floor(${amountSql('g - 1')} / 200) * 100, 'IDR', 'succeeded', 'provider_a', 'xbench_rf_' || g,
            ${at('g')}, ${at('g')}, ${at('g')}
       FROM generate_series(10, $2, 10) g`,
    args.slice(0, 2),
  );
  // Capture postings under the payment's checkout session, as a hosted payment posts them: D settlement / C payments; refunds D refunds / C settlement; a fee known at capture
  // D gateway / C settlement.
  await c.query(
    `INSERT INTO ledger_entries (id, "workspaceId", mode, "txId", code, direction, amount, currency, "sourceType",
            "sourceId", "postedAt", "createdAt")
     SELECT 'le_bench' || lpad(g::text, 20, '0') || leg, $1, 'test', 'tx_bench' || g,
            CASE WHEN g % 10 = 0 THEN (CASE leg WHEN 1 THEN 'refunds' ELSE 'settlement:provider_a' END)
                 ELSE (CASE leg WHEN 1 THEN 'settlement:provider_a' ELSE 'payments' END) END,
            CASE leg WHEN 1 THEN 'debit' ELSE 'credit' END,
            CASE WHEN g % 10 = 0 THEN floor(${amountSql('g - 1')} / 200) * 100 ELSE ${amountSql('g')} END,
            'IDR', CASE WHEN g % 10 = 0 THEN 'refund' ELSE 'checkout_session' END,
            CASE WHEN g % 10 = 0 THEN 'rf_bench' ELSE 'cs_bench' END || lpad(g::text, 20, '0'), ${at('g')}, now()
       FROM generate_series(1, $2) g CROSS JOIN (VALUES (1), (2)) legs(leg)`,
    args.slice(0, 2),
  );
  await c.query(
    `INSERT INTO ledger_entries (id, "workspaceId", mode, "txId", code, direction, amount, currency, "sourceType",
            "sourceId", "postedAt", "createdAt")
     SELECT 'le_benchfee' || lpad(g::text, 20, '0') || leg, $1, 'test', 'tx_benchfee' || g,
            CASE leg WHEN 1 THEN 'gateway:provider_a' ELSE 'settlement:provider_a' END,
            CASE leg WHEN 1 THEN 'debit' ELSE 'credit' END, floor((2 * ${amountSql('g')} * 7 + 1000) / 2000), 'IDR',
            'checkout_session', 'cs_bench' || lpad(g::text, 20, '0'), ${at('g')}, now()
       FROM generate_series(1, $2) g CROSS JOIN (VALUES (1), (2)) legs(leg) WHERE ${feeBreak}`,
    args,
  );
}

export const providerHeader =
  'transaction_id,type,reference,provider_reference,occurred_at,currency,amount,fee,fee_vat,withholding_tax,net,settlement_id,settled_at,method,description\n';

/** What a run must decide for one provider row. */
export interface RowTruth {
  transactionId: string;
  status: 'matched' | 'exception';
  category: BreakKind | null;
  objectId: string | null;
}

/** A settlement's expected bank amount, summed from the rows as the report states them. */
export interface BatchTotal {
  settlementId: string;
  net: number;
  expectedAt: number;
}

function providerLine(i: number, s: FixtureSize, kind: BreakKind | null, extra?: 'dup' | 'ghost') {
  const refund = isRefund(i);
  const id = refund ? refundId(i) : paymentId(i);
  let amount = refund ? -refundAmount(i) : paymentAmount(i);
  if (kind === 'amount_mismatch' && !extra) amount += 1_000;
  let fee = refund ? 0 : qrisFee(paymentAmount(i));
  if (kind === 'fee_mismatch') fee += 500;
  const feeVat = vatOn(fee);
  const at = capturedAt(i, s.objects);
  const currency = kind === 'currency_mismatch' ? 'USD' : 'IDR';
  const tx = extra === 'dup' ? `txn_dup_${i}` : extra === 'ghost' ? `txn_ghost_${i}` : `txn_${i}`;
  const reference = extra === 'ghost' ? `pay_ghost${pad(i)}` : id;
  const providerRef = extra === 'ghost' ? '' : refund ? `xbench_rf_${i}` : `xbench_${i}`;
  const net = amount - fee - feeVat;
  // A row in another currency has no settlement: a batch of its own would be late for ever.
  const settlement = currency === 'IDR' ? `S-${batchOf(i, s)}` : '';
  const line = `${tx},${refund ? 'refund' : 'payment'},${reference},${extra === 'dup' ? '' : providerRef},${new Date(at).toISOString()},${currency},${amount},${fee},${feeVat},0,${net},${settlement},${settlement && new Date(at + SETTLE_MS).toISOString()},qris,\n`;
  return { line, net, currency, settlement, at };
}

/**
 * The provider report as text chunks of about `chunkRows` rows, recording the ground truth and each
 * settlement's totals (IDR rows only: a USD row of a mismatch joins a USD batch of its own).
 */
export function* providerReport(
  s: FixtureSize,
  truth?: RowTruth[],
  batches?: Map<string, BatchTotal>,
  chunkRows = 2_000,
) {
  let buf = providerHeader;
  let rows = 0;
  const add = (i: number, kind: BreakKind | null, extra?: 'dup' | 'ghost') => {
    const r = providerLine(i, s, kind, extra);
    buf += r.line;
    if (batches && r.currency === 'IDR') {
      const b = batches.get(r.settlement) ?? { settlementId: r.settlement, net: 0, expectedAt: 0 };
      b.net += r.net;
      b.expectedAt = Math.max(b.expectedAt, r.at + SETTLE_MS);
      batches.set(r.settlement, b);
    }
    if (truth) {
      const objectId = extra === 'ghost' ? null : isRefund(i) ? refundId(i) : paymentId(i);
      const category = extra === 'dup' ? 'duplicate' : extra === 'ghost' ? 'missing_in_ledger' : kind;
      truth.push({
        transactionId: r.line.slice(0, r.line.indexOf(',')),
        status: category ? 'exception' : 'matched',
        category,
        objectId,
      });
    }
    if (++rows % chunkRows === 0) {
      const out = buf;
      buf = '';
      return out;
    }
    return null;
  };
  for (let i = 1; i <= s.objects; i++) {
    const kind = breakOf(i, s);
    const chunks = [
      kind === 'missing_at_provider'
        ? null
        : add(i, kind === 'duplicate' || kind === 'missing_in_ledger' ? null : kind),
      kind === 'duplicate' ? add(i, kind, 'dup') : null,
      kind === 'missing_in_ledger' ? add(i, kind, 'ghost') : null,
    ];
    for (const c of chunks) if (c) yield c;
  }
  if (buf) yield buf;
}

/** What a run must decide for one bank line or settlement. */
export interface BankTruth {
  lines: { lineId: string; settlementId: string | null }[];
  lateSettlements: string[];
}

export const bankHeader = 'line_id,value_date,direction,amount,currency,description,reference,balance_after\n';

/**
 * The bank statement (`generic_bank`) for the settlements of `batches`: one credit per settlement,
 * short by the transfer fee, naming it; every other one of the first 2 x `breaks` never paid; `breaks`
 * credits that name nothing, after the others.
 */
export function bankStatement(s: FixtureSize, batches: Map<string, BatchTotal>, truth?: BankTruth) {
  let out = bankHeader;
  let n = 0;
  const sorted = [...batches.values()].sort((a, b) => a.expectedAt - b.expectedAt);
  sorted.forEach((b, k) => {
    if (k < 2 * s.breaks && k % 2 === 0) {
      truth?.lateSettlements.push(b.settlementId);
      return;
    }
    const lineId = `BL${++n}`;
    const day = new Date(b.expectedAt + 86_400_000).toISOString().slice(0, 10);
    out += `${lineId},${day},credit,${b.net - TRANSFER_FEE},IDR,XENDIT SETTLEMENT ${b.settlementId},,\n`;
    truth?.lines.push({ lineId, settlementId: b.settlementId });
  });
  for (let j = 1; j <= s.breaks; j++) {
    const lineId = `BL${++n}`;
    const day = new Date(FIXTURE_START + (j % 28) * 86_400_000).toISOString().slice(0, 10);
    out += `${lineId},${day},credit,${1_234_567 + j * 1_000},IDR,TRANSFER FROM CV MAJU ${j},,\n`;
    truth?.lines.push({ lineId, settlementId: null });
  }
  return out;
}
