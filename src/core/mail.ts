/**
 * Outgoing mail, one path for every message (receipts, invoices, member invitations): SMTP with
 * nodemailer when `config.smtpUrl` is set, else the development outbox, a folder of `.eml` files
 * (docs/decisions.md, Invoice email).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer, { type SendMailOptions, type Transporter } from 'nodemailer';

const transports = new Map<string, Transporter>();
export function transportFor(url: string): Transporter {
  let tr = transports.get(url);
  if (!tr) {
    // nodemailer's defaults wait minutes on a dead server; the email endpoint answers a request.
    tr = nodemailer.createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
    transports.set(url, tr);
  }
  return tr;
}

const outboxBuilder = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });

/** The development outbox: the message as it would have been sent (RFC 822 `.eml`), one file per send. */
export async function keepInOutbox(dir: string, name: string, message: SendMailOptions) {
  const info = (await outboxBuilder.sendMail(message)) as unknown as { messageId: string; message: Buffer };
  await mkdir(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const file = join(dir, `${stamp}-${name.replace(/[^A-Za-z0-9_]/g, '_')}-${randomBytes(4).toString('hex')}.eml`);
  // Written aside then renamed: whoever watches the folder never reads a half-written `.eml`.
  await writeFile(`${file}.tmp`, info.message, { mode: 0o600 });
  await rename(`${file}.tmp`, file);
  return { messageId: info.messageId, file };
}
