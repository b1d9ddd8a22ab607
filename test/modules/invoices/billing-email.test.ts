// Queue `billing-email` with the real worker (pg-boss, the outbox relay): paying an invoice emails
// its receipt after the payment commits, to the development outbox without SMTP, or over a real
// SMTP server (then the receipt records the send).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../../src/core/clock.ts';
import { config } from '../../../src/core/config.ts';
import { leaves, parseMime } from '../../helpers/mime.ts';
import { until } from '../../helpers/receiver.ts';
import { db, useServer, type Workspace } from '../../helpers/server.ts';
import { startSmtp } from '../../helpers/smtp.ts';
import { billingEmailFanOut, EMAILS_PER_JOB } from '../../../src/modules/invoices/billing-email.ts';

const server = useServer({ background: 'worker' });
let outbox: string;
const previous = { outbox: config.mailOutboxDir, smtp: config.smtpUrl };
beforeAll(() => {
  outbox = mkdtempSync(join(tmpdir(), 'svc-billing-email-'));
  config.mailOutboxDir = outbox;
  config.smtpUrl = undefined;
});
afterAll(() => {
  Object.assign(config, { mailOutboxDir: previous.outbox, smtpUrl: previous.smtp });
  rmSync(outbox, { recursive: true, force: true });
});

async function paidInvoice(ws: Workspace, email: string | null = 'budi@example.com') {
  const cus = (await ws.client.post('/v1/customers', { name: 'Budi', ...(email ? { email } : {}) })).json.data.id;
  const inv = (
    await ws.client.post('/v1/invoices', {
      customerId: cus,
      currency: 'IDR',
      status: 'open',
      lines: [{ description: 'Konsultasi', quantity: 1, unitAmount: 75_000 }],
    })
  ).json.data;
  const paid = await ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, { 'idempotency-key': randomUUID() });
  expect(paid.status, JSON.stringify(paid.json)).toBe(201);
  const receipt = (await db().system.query(`SELECT id, number FROM receipts WHERE "sourceId" = $1`, [inv.id]))
    .rows[0] as { id: string; number: string };
  return { inv, receipt };
}

describe('billing-email: the receipt of a paid invoice, after commit', () => {
  it('without SMTP: kept in the development outbox with the receipt PDF, audited', async () => {
    const ws = await server.workspace();
    const { receipt } = await paidInvoice(ws);
    // Only a complete message: the worker writes the file aside and renames it to `.eml`.
    const file = () => readdirSync(outbox).find((f) => f.includes(receipt.id) && f.endsWith('.eml'));
    await until(() => !!file(), 'the receipt email in the outbox');
    const mail = parseMime(readFileSync(join(outbox, file()!), 'utf8'));
    expect(mail.headers.to).toBe('budi@example.com');
    expect(mail.headers.subject).toContain(receipt.number);
    const pdf = leaves(mail).find((p) => (p.headers['content-type'] ?? '').includes('application/pdf'));
    expect(pdf?.body.subarray(0, 5).toString()).toBe('%PDF-');
    await until(async () => {
      const { rows } = await db().system.query(`SELECT action FROM audit_log WHERE "targetId" = $1`, [receipt.id]);
      return rows.some((r) => r.action === 'receipt.email_kept');
    }, 'the audit row');
  });

  it('over a real SMTP server: sent to the customer, the receipt records it', async () => {
    const smtp = await startSmtp();
    config.smtpUrl = smtp.url;
    const budi = 'owner@example.com'; // test mode mails joined members only: the owner is the customer
    try {
      const ws = await server.workspace();
      // A customer email the merchant typed in: kept in the outbox, never over SMTP.
      const typed = await paidInvoice(ws, 'victim@elsewhere.example');
      await until(async () => {
        const { rows } = await db().system.query(`SELECT action FROM audit_log WHERE "targetId" = $1`, [
          typed.receipt.id,
        ]);
        return rows.some((r) => r.action === 'receipt.email_kept');
      }, 'the kept receipt');
      expect(smtp.received.filter((m) => m.raw.includes(typed.receipt.number))).toEqual([]);
      const { receipt } = await paidInvoice(ws, budi);
      await until(() => smtp.received.some((m) => m.raw.includes(receipt.number)), 'the receipt email over SMTP');
      expect(smtp.received.find((m) => m.raw.includes(receipt.number))!.rcpt).toEqual([budi]);
      await until(async () => {
        const { rows } = await db().system.query(`SELECT "emailedTo" FROM receipts WHERE id = $1`, [receipt.id]);
        return rows[0].emailedTo === budi;
      }, 'emailedTo recorded');
      // spec Receipt summary: emailedAt and emailedTo, over the API, for the queue's send ...
      const summary = async () =>
        (await ws.client.get('/v1/receipts?limit=100')).json.data.find((r: any) => r.id === receipt.id);
      const first = await summary();
      expect(first).toMatchObject({ sourceType: 'invoice', emailedTo: budi });
      expect(Date.parse(first.emailedAt)).not.toBeNaN();
      // ... then updated to the latest send only (an explicit one, a minute later).
      clock.advance(60_000);
      try {
        const again = await ws.client.post(`/v1/receipts/${receipt.id}/email`, {});
        expect(again.status, again.text).toBe(200);
        expect(again.json.data).toMatchObject({ sent: true, to: budi });
        const latest = await summary();
        expect(Date.parse(latest.emailedAt) - Date.parse(first.emailedAt)).toBeGreaterThanOrEqual(60_000);
      } finally {
        clock.reset();
      }
    } finally {
      config.smtpUrl = undefined;
      await smtp.close();
    }
  });

  it('one relay pass: one job per workspace and mode for up to 100 paid invoices (a burst adds N/100 rows)', async () => {
    const a = await server.workspace();
    const b = await server.workspace();
    const client = await db().system.connect();
    try {
      // Paid events as a relay pass publishes them (written and rolled back in this transaction).
      await client.query('BEGIN');
      const { rows: events } = await client.query(
        `INSERT INTO events (id, "workspaceId", mode, type, "objectId", sequence, "occurredAt", "createdAt", data, metadata)
         SELECT 'evt_fan' || w.n || lpad(g::text, 6, '0'), w.id, 'test', 'svc.invoice.paid.v1',
           'inv_fan' || w.n || lpad(g::text, 6, '0'), 1, now(), now(), '{}'::jsonb, '{}'::jsonb
         FROM (VALUES ($1, 'a', $3::int), ($2, 'b', 1)) w(id, n, count), LATERAL generate_series(1, w.count) g
         RETURNING id, type`,
        [a.workspaceId, b.workspaceId, 2 * EMAILS_PER_JOB + 1],
      );
      await billingEmailFanOut(server.worker!.boss)(client, [
        ...events,
        { id: 'evt_other', type: 'payment.succeeded' },
      ]);
      const { rows } = await client.query(
        `SELECT data->>'workspaceId' AS ws, jsonb_array_length(data->'invoiceIds') AS n FROM pgboss.job
         WHERE name = 'billing-email' AND xmin = pg_current_xact_id()::xid ORDER BY 1, 2 DESC`,
      );
      expect(rows).toEqual(
        [
          { ws: a.workspaceId, n: EMAILS_PER_JOB },
          { ws: a.workspaceId, n: EMAILS_PER_JOB },
          { ws: a.workspaceId, n: 1 },
          { ws: b.workspaceId, n: 1 },
        ].sort((x, y) => x.ws.localeCompare(y.ws) || y.n - x.n),
      );
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
