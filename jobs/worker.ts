import { PgBoss } from 'pg-boss';
import { logger, withLogContext } from '../src/core/logger.ts';
import { startTracing } from '../src/core/tracing.ts';
import { config } from '../src/core/config.ts';
import { startRelay } from './outbox-relay.ts';
import { startFolds } from './usage-fold.ts';
import { db } from '../src/core/db/client.ts';
// Upper modules' reactions to lower ones, before any job runs (src/core/reactions.ts).
import '../src/modules/reactions.ts';
import { assertDatabaseRoles } from '../src/core/db/roles.ts';
import { isDatabaseUnavailable, warnUnavailable } from '../src/core/db/unavailable.ts';
import { eventBus } from '../src/core/pubsub.ts';
import { startHeartbeat } from '../src/core/db/reader.ts';
import { resumeWalks, stopWalks } from '../src/modules/test-clocks/walkers.ts';
import { type JobEntry, workOptions } from './job.ts';
import { jobTable } from './table.ts';

/**
 * The worker: the pg-boss queues of jobs/table.ts and the outbox relay, which runs the table's fan-outs
 * in each publishing transaction. pg-boss looks for expired
 * jobs every 5 s (a killed worker's deliveries are retried within about 20 s) and deletes
 * completed jobs every minute (each queue says how long it keeps them).
 */
export async function startWorker(databaseUrl: string) {
  await assertDatabaseRoles(db());
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: 'pgboss',
    max: Math.max(4, Math.floor(config.poolSize / 2)),
    connectionTimeoutMillis: config.dbAcquireTimeoutMs,
    useListenNotify: true,
    superviseIntervalSeconds: 5,
    monitorIntervalSeconds: 5,
    maintenanceIntervalSeconds: 60,
  });
  // pg-boss retries on its own; an outage is one warning per interval, not an error per poll.
  // Once stopped, its errors are not heard: pg-pool's end() resolves when it has told its
  // connections to end, not when they have, so a database stopped right after (the embedded one
  // at `svc start`'s exit) can still reach one of them with 57P01.
  let stopped = false;
  boss.on('error', (e) => {
    if (stopped) return;
    if (isDatabaseUnavailable(e)) warnUnavailable('pg-boss', e);
    else logger.error({ err: e.message }, 'pg-boss error');
  });
  await startTracing();
  await boss.start();
  await startJobs(boss, jobTable);
  await eventBus.start(databaseUrl);
  resumeWalks();
  const fanOuts = jobTable.flatMap((entry) => (entry.fromRelay ? [entry.fromRelay(boss)] : []));
  const stopRelay = startRelay(async (client, rows) => {
    for (const fanOut of fanOuts) await fanOut(client, rows);
  });
  const stopFolds = startFolds();
  // Replicas' lag is the age of this row there (src/core/db/reader.ts).
  const stopHeartbeat = startHeartbeat();
  logger.info('worker started');
  return {
    boss,
    async stop() {
      stopHeartbeat();
      await stopRelay();
      await stopFolds();
      // Walkers stop at their next step first, so the graceful stop below never waits on a long walk.
      await stopWalks();
      await boss.stop({ graceful: true, timeout: 5000 });
      stopped = true;
      // Its LISTEN connection too, before the database goes (`svc worker` has no API server to stop it).
      await eventBus.stop();
    },
  };
}

/**
 * Walks the table: every queue is created with its policy first (a handler may send to another
 * queue), then each is scheduled and worked. Every log line a handler writes carries its queue and
 * job id(s) (src/core/logger.ts).
 */
async function startJobs(boss: PgBoss, table: readonly JobEntry[]) {
  for (const entry of table) {
    await boss.createQueue(entry.queue, entry.policy);
    // createQueue leaves an existing queue as it was: the policy declared here is applied to it too
    // (all but the policy kind and partitioning, which pg-boss fixes at creation).
    const { policy: _kind, partition: _partition, ...settings } = entry.policy;
    if (Object.keys(settings).length) await boss.updateQueue(entry.queue, settings);
  }
  for (const entry of table) {
    if (entry.schedule) await boss.schedule(entry.queue, entry.schedule);
    await boss.work<object>(entry.queue, workOptions(entry), (jobs) =>
      withLogContext({ queue: entry.queue, jobId: jobs.map((j) => j.id).join(',') }, () =>
        entry.handler(jobs, { boss }),
      ),
    );
  }
}
