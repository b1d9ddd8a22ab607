/**
 * Outgoing mail, one path for every message (receipts, invoices, member invitations): SMTP with
 * nodemailer when `config.smtpUrl` is set, else the development outbox, a folder of `.eml` files
 * (docs/decisions.md, Invoice email).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SendMailOptions, Transporter } from 'nodemailer';

// nodemailer (about 4 MB of heap) loads with the first message, not at boot: most processes send none,
// and every MB kept alive grows the heap's peak 2.5-fold (docs/performance.md, Heap growth).
const nodemailer = () => import('nodemailer').then((m) => m.default);

const transports = new Map<string, Promise<Transporter>>();
export function transportFor(url: string): Promise<Transporter> {
  let tr = transports.get(url);
  if (!tr) {
    // nodemailer's defaults wait minutes on a dead server; the email endpoint answers a request.
    tr = nodemailer().then((n) =>
      n.createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 }),
    );
    transports.set(url, tr);
  }
  return tr;
}

let outboxBuilder: Promise<Transporter> | undefined;

/** The development outbox: the message as it would have been sent (RFC 822 `.eml`), one file per send. */
export async function keepInOutbox(dir: string, name: string, message: SendMailOptions) {
  outboxBuilder ??= nodemailer().then((n) =>
    n.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }),
  );
  const info = (await (await outboxBuilder).sendMail(message)) as unknown as { messageId: string; message: Buffer };
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const file = join(dir, `${stamp}-${name.replace(/[^A-Za-z0-9_]/g, '_')}-${randomBytes(4).toString('hex')}.eml`);
  // Written aside then renamed: whoever watches the folder never reads a half-written `.eml`.
  await writeFile(`${file}.tmp`, info.message, { mode: 0o600 });
  await rename(`${file}.tmp`, file);
  return { messageId: info.messageId, file };
}
