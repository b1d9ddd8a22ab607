// POST /v1/receipts/:id/email without a mail server (docs/billing.md, Email): 200 {sent: false},
// the message kept in the development outbox, the receipt's emailedAt untouched, the attempt audited.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../../src/core/config.ts';
import { leaves, parseMime } from '../../helpers/mime.ts';
import { sandboxPayment } from '../../helpers/payments.ts';
import { db, useServer } from '../../helpers/server.ts';

const server = useServer();
let outbox: string;
const previous = { outbox: config.mailOutboxDir, smtp: config.smtpUrl };
beforeAll(() => {
  outbox = mkdtempSync(join(tmpdir(), 'svc-receipt-outbox-'));
  Object.assign(config, { mailOutboxDir: outbox, smtpUrl: undefined });
});
afterAll(() => {
  Object.assign(config, { mailOutboxDir: previous.outbox, smtpUrl: previous.smtp });
  rmSync(outbox, { recursive: true, force: true });
});

describe('receipt email without a mail server', () => {
  it('200 {sent: false}, kept in the outbox with the PDF, audited, emailedAt untouched', async () => {
    const ws = await server.workspace();
    await sandboxPayment(server, ws);
    const receipt = (await ws.client.get('/v1/receipts?limit=1')).json.data[0];
    const res = await ws.client.post(`/v1/receipts/${receipt.id}/email`, { to: 'kasir@toko.example' });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toEqual({ sent: false, to: 'kasir@toko.example' });
    const file = readdirSync(outbox).find((f) => f.includes(receipt.id))!;
    const mail = parseMime(readFileSync(join(outbox, file), 'utf8'));
    expect(mail.headers.to).toBe('kasir@toko.example');
    const pdf = leaves(mail).find((p) => (p.headers['content-type'] ?? '').includes('application/pdf'));
    expect(pdf?.body.subarray(0, 5).toString()).toBe('%PDF-');
    const summary = (await ws.client.get('/v1/receipts?limit=1')).json.data[0];
    expect(summary.emailedAt).toBeNull();
    const { rows } = await db().system.query(`SELECT action FROM audit_log WHERE "targetId" = $1`, [receipt.id]);
    expect(rows.map((r) => r.action)).toEqual(['receipt.email_kept']);
  });
});
