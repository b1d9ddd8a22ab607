// A large generated upload streams with bounded memory (docs/reconciliation.md, Import pipeline): the body is
// generated as it is sent, so the file never exists whole in this process, on either side.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { useServer } from '../../helpers/server.ts';
import { providerLine, providerQuery, upload } from './upload-helpers.ts';

const server = useServer();
const ROWS = Number(process.env.RECON_UPLOAD_ROWS ?? 200_000);
const HEADER =
  'transaction_id,type,reference,provider_reference,occurred_at,currency,amount,fee,fee_vat,withholding_tax,net,settlement_id,settled_at,method,description\n';

/** The file in chunks of 1,000 lines, generated on demand. */
function* chunks() {
  yield HEADER;
  for (let i = 0; i < ROWS; i += 1000) {
    let text = '';
    for (let j = i; j < Math.min(ROWS, i + 1000); j++) text += `${providerLine('big', j, 10000 + (j % 5000))}\n`;
    yield text;
  }
}

describe('a large upload', () => {
  it(`${ROWS} rows stream into the database with bounded memory`, { timeout: 600_000 }, async () => {
    const ws = await server.workspace();
    const hash = createHash('sha256');
    let size = 0;
    for (const c of chunks()) {
      hash.update(c);
      size += Buffer.byteLength(c);
    }
    const base = process.memoryUsage().rss;
    let peak = base;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const started = performance.now();
    const res = await upload(server, ws, providerQuery(), Readable.from(chunks()), { sha: hash.digest('hex') });
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    expect(res.status, res.text.slice(0, 500)).toBe(201);
    expect(res.json.data).toMatchObject({ rowsNew: ROWS, rowsDuplicate: 0, sizeBytes: size });
    const growthMb = (peak - base) / 2 ** 20;
    console.log(
      `large upload: ${ROWS} rows, ${(size / 2 ** 20).toFixed(1)} MiB in ${seconds.toFixed(1)} s ` +
        `(${Math.round(ROWS / seconds)} rows/s); RSS ${(base / 2 ** 20).toFixed(0)} MiB before, peak growth ${growthMb.toFixed(1)} MiB`,
    );
    // The client generating the body runs in this process too, and garbage is collected lazily: the bound is loose,
    // but a buffered file (its bytes, then its rows as objects, several times its size) would break it.
    expect(growthMb).toBeLessThan(160);
  });
});
