// The report loop of test/cluster's report-cost check, in a process of its own so that signing the
// requests and reading the answers runs on the readers' CPUs, not in the event loop that times the
// money path's creates. Two loops, each a P&L report and a ledger export through B (the reader pool),
// back to back or one pair every `gapMs`. Lines on stdin: `start` begins, `stop` ends and answers
// `runs <n>` (pairs completed since `start`).
import { createInterface } from 'node:readline';
import { createClient } from '../../src/client/index.ts';

const [baseUrl, keyId, secret, gap] = process.argv.slice(2);
const gapMs = Number(gap ?? 0);
const b = createClient({ baseUrl, keyId, secret });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let running: Promise<void>[] | null = null;
let stopping = false;
let runs = 0;

async function loop() {
  while (!stopping) {
    const started = Date.now();
    await Promise.all([
      b.post('/graphql', { query: 'query { pnlReport(from: "2026-01-01", to: "2027-12-31") { currency } }' }),
      b.get('/v1/reports/ledger.csv?from=2026-01-01&to=2027-12-31'),
    ]);
    runs++;
    if (gapMs) await sleep(Math.max(0, started + gapMs - Date.now()));
  }
}

for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'start' && !running) {
    stopping = false;
    runs = 0;
    running = [loop(), loop()];
  } else if (line === 'stop' && running) {
    stopping = true;
    await Promise.all(running);
    running = null;
    process.stdout.write(`runs ${runs}\n`);
  }
}
