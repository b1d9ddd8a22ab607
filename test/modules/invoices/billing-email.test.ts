// Queue `billing-email` with the real worker (pg-boss, the outbox relay): paying an invoice emails
// its receipt after the payment commits, to the development outbox without SMTP, or over a real
// SMTP server (then the receipt records the send).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../../src/core/config.ts';
import { leaves, parseMime } from '../../helpers/mime.ts';
import { until } from '../../helpers/receiver.ts';
import { db, useServer, type Workspace } from '../../helpers/server.ts';
import { startSmtp } from '../../helpers/smtp.ts';

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
    const file = () => readdirSync(outbox).find((f) => f.includes(receipt.id));
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
    try {
      const ws = await server.workspace();
      const { receipt } = await paidInvoice(ws);
      await until(() => smtp.received.some((m) => m.raw.includes(receipt.number)), 'the receipt email over SMTP');
      expect(smtp.received.find((m) => m.raw.includes(receipt.number))!.rcpt).toEqual(['budi@example.com']);
      await until(async () => {
        const { rows } = await db().system.query(`SELECT "emailedTo" FROM receipts WHERE id = $1`, [receipt.id]);
        return rows[0].emailedTo === 'budi@example.com';
      }, 'emailedTo recorded');
    } finally {
      config.smtpUrl = undefined;
      await smtp.close();
    }
  });
});
