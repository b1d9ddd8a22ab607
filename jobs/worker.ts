import { PgBoss } from 'pg-boss';
import { logger } from '../src/core/logger.ts';
import { startRelay } from './outbox-relay.ts';
import { eventBus } from '../src/core/pubsub.ts';
import * as idempotencyPurge from './idempotency-purge.ts';
import * as checkoutExpiry from './checkout-expiry.ts';
import * as payoutSchedule from './payout-schedule.ts';
import * as eventRetention from './event-retention.ts';

/** The worker: pg-boss queues (one file per queue) and the outbox relay. */
export async function startWorker(databaseUrl: string) {
  const boss = new PgBoss({ connectionString: databaseUrl, schema: 'pgboss' });
  boss.on('error', (e) => logger.error({ err: e.message }, 'pg-boss error'));
  await boss.start();
  for (const q of [idempotencyPurge, checkoutExpiry, payoutSchedule, eventRetention]) await q.register(boss);
  await eventBus.start(databaseUrl);
  const stopRelay = startRelay();
  logger.info('worker started');
  return {
    boss,
    async stop() {
      stopRelay();
      await boss.stop({ graceful: true, timeout: 5000 });
    },
  };
}
