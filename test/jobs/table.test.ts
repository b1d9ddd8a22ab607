// The worker's queues are one table (jobs/table.ts): a real worker creates every queue in it with its
// policy, schedules the scheduled ones, works each with its options and handler; and no job file wires
// pg-boss itself.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropUnlessFailed, freshDatabase } from '../helpers/db.ts';
import { closeDatabase, openDatabase } from '../../src/core/db/client.ts';
import { startWorker } from '../../jobs/worker.ts';
import { jobTable } from '../../jobs/table.ts';
import { type JobEntry, workOptions } from '../../jobs/job.ts';

const root = join(import.meta.dirname, '../..');
const jobsDir = join(root, 'jobs');

/** A pg-boss call that wires a queue: only the worker's walk of the table makes these. */
const wiring = /\.(createQueue|schedule|unschedule|work|offWork)\s*(<[^>(]*>)?\s*\(/;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'generated' ? [] : tsFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

const isEntry = (v: unknown): v is JobEntry =>
  !!v && typeof v === 'object' && typeof (v as JobEntry).queue === 'string' && 'handler' in v;

let worker: Awaited<ReturnType<typeof startWorker>>;
let dbName: string;

beforeAll(async () => {
  const { url, name } = await freshDatabase();
  dbName = name;
  process.env.DATABASE_URL = url;
  openDatabase(url);
  worker = await startWorker(url);
});
// vitest passes the suite second and reads the first argument as fixtures (an object pattern)
// biome-ignore lint/correctness/noEmptyPattern: see above
afterAll(async ({}, suite) => {
  await worker?.stop();
  await closeDatabase();
  await dropUnlessFailed(dbName, suite);
});

describe('the jobs table', () => {
  it('names each queue once, and holds every entry a job file exports', async () => {
    const names = jobTable.map((e) => e.queue);
    expect(new Set(names).size).toBe(names.length);
    const exported = new Set<string>();
    for (const file of readdirSync(jobsDir).filter((f) => f.endsWith('.ts')))
      for (const value of Object.values(await import(join(jobsDir, file))))
        if (isEntry(value)) exported.add(value.queue);
    expect([...exported].sort()).toEqual([...names].sort());
  });

  it('every queue exists in pg-boss with its policy', async () => {
    const queues = new Map((await worker.boss.getQueues()).map((q) => [q.name, q]));
    for (const entry of jobTable) {
      expect(queues.has(entry.queue), entry.queue).toBe(true);
      expect(queues.get(entry.queue), entry.queue).toMatchObject(entry.policy);
    }
  });

  it('the scheduled queues, and only they, are scheduled on their cron', async () => {
    const schedules = await worker.boss.getSchedules();
    expect(Object.fromEntries(schedules.map((s) => [s.name, s.cron]))).toEqual(
      Object.fromEntries(jobTable.filter((e) => e.schedule).map((e) => [e.queue, e.schedule])),
    );
  });

  it('every queue is worked in this process with its options, fairness per workspace included', () => {
    const working = new Map(worker.boss.getWipData().map((w) => [w.name, w]));
    for (const entry of jobTable) {
      expect(working.has(entry.queue), entry.queue).toBe(true);
      expect(working.get(entry.queue)!.options, entry.queue).toMatchObject(workOptions(entry));
    }
    const fair = jobTable.filter((e) => e.fairPerWorkspace).map((e) => e.queue);
    expect(fair).toEqual(['test-clock-advance', 'reconciliation-run']);
    for (const queue of fair) expect(working.get(queue)!.options.groupConcurrency, queue).toBe(1);
  });

  it("a job sent to each scheduled queue is run by the table's handler to completion", async () => {
    const sent = new Map<string, string>();
    for (const entry of jobTable.filter((e) => e.schedule))
      sent.set(entry.queue, (await worker.boss.send(entry.queue))!);
    for (const [queue, id] of sent)
      await expect
        .poll(async () => (await worker.boss.findJobs(queue, { id }))[0]?.state, { message: queue })
        .toBe('completed');
  });

  it('no job file, nor anything in src/, calls createQueue, schedule or work itself', () => {
    expect(wiring.test('await boss.work<DeliveryJob>(queue, opts, handler)')).toBe(true);
    expect(wiring.test("await boss.schedule(queue, '* * * * *')")).toBe(true);
    const files = [...tsFiles(jobsDir).filter((f) => !f.endsWith('/worker.ts')), ...tsFiles(join(root, 'src'))];
    const found = files.filter((f) => wiring.test(readFileSync(f, 'utf8'))).map((f) => f.slice(root.length + 1));
    expect(found).toEqual([]);
  });
});
