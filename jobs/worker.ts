import { PgBoss } from 'pg-boss';
import { logger, withLogContext } from '../src/core/logger.ts';
import { startTracing } from '../src/core/tracing.ts';
import { config } from '../src/core/config.ts';
import { startRelay } from './outbox-relay.ts';
import { db } from '../src/core/db/client.ts';
// Upper modules' reactions to lower ones, before any job runs (src/core/reactions.ts).
import '../src/modules/reactions.ts';
import { assertDatabaseRoles } from '../src/core/db/roles.ts';
import { isDatabaseUnavailable, warnUnavailable } from '../src/core/db/unavailable.ts';
import { eventBus } from '../src/core/pubsub.ts';
import { webhookFanOut } from '../src/modules/webhooks/fan-out.ts';
import { billingEmailFanOut } from '../src/modules/invoices/billing-email.ts';
import * as billingEmail from './billing-email.ts';
import * as idempotencyPurge from './idempotency-purge.ts';
import * as sessionPurge from './session-purge.ts';
import * as checkoutExpiry from './checkout-expiry.ts';
import * as paymentMethodExpiry from './payment-method-expiry.ts';
import * as invoicePastDue from './invoice-past-due.ts';
import * as payoutSchedule from './payout-schedule.ts';
import * as webhookDelivery from './webhook-delivery.ts';
import * as webhookPurge from './webhook-purge.ts';
import * as eventRetention from './event-retention.ts';
import * as pendingSweep from './pending-sweep.ts';
import * as testClockAdvance from './test-clock-advance.ts';
import { testClockFanOut } from '../src/modules/test-clocks/service.ts';
import { stopWalks } from '../src/modules/test-clocks/walkers.ts';
import * as billingTick from './billing-tick.ts';
import * as invitationExpiry from './invitation-expiry.ts';
import * as workspacePurge from './workspace-purge.ts';

/**
 * The worker: pg-boss queues (one file per queue) and the outbox relay. pg-boss looks for expired
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
  boss.on('error', (e) =>
    isDatabaseUnavailable(e) ? warnUnavailable('pg-boss', e) : logger.error({ err: e.message }, 'pg-boss error'),
  );
  await startTracing();
  tagJobLogs(boss);
  await boss.start();
  for (const q of [
    idempotencyPurge,
    sessionPurge,
    checkoutExpiry,
    paymentMethodExpiry,
    invoicePastDue,
    payoutSchedule,
    webhookDelivery,
    webhookPurge,
    eventRetention,
    pendingSweep,
    billingEmail,
    testClockAdvance,
    billingTick,
    invitationExpiry,
    workspacePurge,
  ])
    await q.register(boss);
  await eventBus.start(databaseUrl);
  const fanOut = webhookFanOut(boss);
  const billingEmails = billingEmailFanOut(boss);
  const testClocks = testClockFanOut(boss);
  const stopRelay = startRelay(async (client, rows) => {
    await fanOut(client, rows);
    await billingEmails(client, rows);
    await testClocks(client, rows);
  });
  logger.info('worker started');
  return {
    boss,
    async stop() {
      await stopRelay();
      // Walkers stop at their next step first, so the graceful stop below never waits on a long walk.
      await stopWalks();
      await boss.stop({ graceful: true, timeout: 5000 });
      // Its LISTEN connection too, before the database goes (`svc worker` has no API server to stop it).
      await eventBus.stop();
    },
  };
}

/**
 * Every log line a job handler writes carries its queue and job id(s) (src/core/logger.ts), and a
 * webhook attempt's line the request that caused its event: each queue registers through this.
 */
function tagJobLogs(boss: PgBoss) {
  type Handler = (jobs: { id: string }[]) => Promise<unknown>;
  const work = boss.work.bind(boss) as (...args: unknown[]) => Promise<string>;
  boss.work = ((name: string, ...rest: unknown[]) => {
    const handler = rest.pop() as Handler;
    const tagged: Handler = (jobs) =>
      withLogContext({ queue: name, jobId: jobs.map((j) => j.id).join(',') }, () => handler(jobs));
    return work(name, ...rest, tagged);
  }) as typeof boss.work;
}
