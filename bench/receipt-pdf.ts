/**
 * `npm run bench:receipt-pdf`: receipt render times, one render at a time, in this process.
 * The figure that matters is the PDF p95 of the default receipt (target < 50 ms); the other rows
 * are for context: without the shared font tables, a 60-item (multi-page) receipt, and the
 * HTML and ESC/POS renderers.
 *
 * Env: BENCH_RENDERS (measured renders per row, default 500), BENCH_WARMUP (default 100).
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { renderEscpos } from '../src/modules/documents/render/escpos.ts';
import { renderHtml } from '../src/modules/documents/render/html.ts';
import { renderPdf } from '../src/modules/documents/render/pdf.ts';
import { sampleReceiptView } from '../test/helpers/receipts.ts';
import { writeResults } from './results.ts';

const renders = Number(process.env.BENCH_RENDERS ?? 500);
const warmup = Number(process.env.BENCH_WARMUP ?? 100);

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const ms = (n: number) => n.toFixed(3).padStart(8);

const rows: { row: string; p50: number; p95: number; p99: number; max: number; bytes: number }[] = [];

async function measure(name: string, render: () => unknown): Promise<void> {
  for (let i = 0; i < warmup; i++) await render();
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < renders; i++) {
    const t0 = performance.now();
    const out = await render();
    times.push(performance.now() - t0);
    bytes = (out as { length: number }).length;
  }
  times.sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 1000) / 1000;
  rows.push({
    row: name,
    p50: round(pct(times, 50)),
    p95: round(pct(times, 95)),
    p99: round(pct(times, 99)),
    max: round(times.at(-1)!),
    bytes,
  });
  console.log(
    `${name.padEnd(34)} p50 ${ms(pct(times, 50))}  p95 ${ms(pct(times, 95))}  p99 ${ms(pct(times, 99))}  max ${ms(times.at(-1)!)} ms  ${String(bytes).padStart(6)} bytes`,
  );
}

const view = sampleReceiptView();
const long = sampleReceiptView({
  lineItems: Array.from({ length: 60 }, (_, i) => ({
    name: `Item ${i + 1} ${'panjang '.repeat(i % 7)}`,
    quantity: 1,
    unitAmount: 1000,
    amount: 1000,
  })),
  subtotal: 54_054,
  tax: { label: 'PPN', rate: 0.11, amount: 5946, included: true },
  total: 60_000,
});

console.log(
  `node ${process.version} (${process.platform} ${process.arch}), ${os.cpus()[0]?.model ?? 'cpu'} x${os.availableParallelism()}`,
);
console.log(`${renders} renders per row after ${warmup} warm-up renders, sequential\n`);
await measure('pdf (3 items, 1 page)', () => renderPdf(view));
await measure('pdf, font tables not shared', () => renderPdf(view, { shareFonts: false }));
await measure('pdf (60 items, 3 pages)', () => renderPdf(long));
await measure('html', () => renderHtml(view));
await measure('escpos 80 mm', () => renderEscpos(view));
console.log(`\nwritten to ${writeResults('receipt-pdf', { unit: 'ms', renders, warmup, rows })}`);
