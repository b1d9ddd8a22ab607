// Throughput of the generic provider parser (docs/reconciliation.md, Formats): writes a generated report of
// ROWS rows (default 1,000,000, about 160 MB) to a temporary file, then streams it through createFileParser in
// 64 KiB chunks, content hashes included. `npx tsx bench/reconciliation-parse.ts [rows]`.
import { createReadStream, createWriteStream, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createFileParser } from '../src/modules/reconciliation/formats/index.ts';

const rows = Number(process.argv[2] ?? 1_000_000);
const path = join(tmpdir(), `recon-parse-${process.pid}.csv`);

const id = (i: number) => `01JDQ${String(i).padStart(21, '0')}`;

/** One report line of about 160 bytes: a payment with fee and VAT, or a refund, in a daily settlement. */
function line(i: number): string {
  const day = String(1 + (i % 28)).padStart(2, '0');
  const at = `2026-02-${day}T${String(i % 24).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:07+07:00`;
  if (i % 10 === 9)
    return `txn_${id(i)},refund,rf_${id(i)},xnd_${i},${at},IDR,-50000,0,0,0,-50000,S-${day},,,refund of an order ${i}\n`;
  const amount = 10_000 + (i % 90_000);
  const fee = Math.round(amount * 0.007);
  const vat = Math.round((fee * 11) / 100);
  return `txn_${id(i)},payment,pay_${id(i)},xnd_${i},${at},IDR,${amount},${fee},${vat},0,${amount - fee - vat},S-${day},2026-03-${day},qris,QRIS ${i}\n`;
}

async function generate(): Promise<void> {
  const out = createWriteStream(path);
  out.write(
    'transaction_id,type,reference,provider_reference,occurred_at,currency,amount,fee,fee_vat,withholding_tax,net,settlement_id,settled_at,method,description\n',
  );
  let batch = '';
  for (let i = 0; i < rows; i++) {
    batch += line(i);
    if (batch.length > 1 << 20) {
      if (!out.write(batch)) await once(out, 'drain');
      batch = '';
    }
  }
  out.end(batch);
  await once(out, 'finish');
}

async function measure(): Promise<void> {
  const size = statSync(path).size;
  const parser = createFileParser({ source: 'provider_report', format: 'generic', timezone: 'Asia/Jakarta' });
  const rssBefore = process.memoryUsage().rss;
  let count = 0;
  const start = process.hrtime.bigint();
  const cpuBefore = process.cpuUsage();
  for await (const chunk of createReadStream(path, { highWaterMark: 64 * 1024 })) count += parser.write(chunk).length;
  count += parser.end().length;
  const cpu = process.cpuUsage(cpuBefore);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const mb = size / 1e6;
  const rss = (process.memoryUsage().rss - rssBefore) / 1e6;
  console.log(
    `${count} rows, ${mb.toFixed(1)} MB in ${seconds.toFixed(2)} s: ${(mb / seconds).toFixed(1)} MB/s ` +
      `(${cpuSeconds.toFixed(2)} CPU s: ${(mb / cpuSeconds).toFixed(1)} MB per CPU second); RSS grew ${rss.toFixed(0)} MB`,
  );
}

try {
  await generate();
  await measure();
} finally {
  rmSync(path, { force: true });
}
