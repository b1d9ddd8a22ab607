import { config } from '../src/core/config.ts';
import { eventBus } from '../src/core/pubsub.ts';
import { logger } from '../src/core/logger.ts';
import { isDatabaseUnavailable, warnUnavailable } from '../src/core/db/unavailable.ts';
import { foldTurn } from '../src/modules/usage-rollups/fold.ts';

/**
 * How often an idle folder looks without a notification. Ingestion and voids notify, and a reconnect
 * of the event bus wakes every folder (`resync`), so this only bounds a notification lost otherwise;
 * polling every 100 ms cost each worker 20 queries a second while idle.
 */
const POLL_MS = 2_000;

/**
 * Queue: none (loops in the worker, docs/usage.md, Fold). `SVC_USAGE_FOLDERS` loops (default 2), each
 * folding turn after turn while there is work, woken by `svc_usage` notifications and a 2 s timer.
 * The stop function resolves once the turns in flight have finished (before the pools close).
 */
export function startFolds(folders = config.usageFolders) {
  let stopped = false;
  const loops = Array.from({ length: Math.max(0, folders) }, () => startLoop(() => stopped));
  const unsubscribe = eventBus.subscribe((n) => {
    if (n.kind === 'usage' || n.kind === 'resync') for (const l of loops) l.wake();
  });
  return async () => {
    stopped = true;
    unsubscribe();
    await Promise.all(loops.map((l) => l.stop()));
  };
}

function startLoop(isStopped: () => boolean) {
  let running: Promise<void> | undefined;
  let again = false;
  // While the database is away, turns back off (0.25 s doubling to 4 s) instead of failing every tick.
  let failures = 0;
  let notBefore = 0;
  const run = async () => {
    try {
      do {
        again = false;
        while (!isStopped() && (await foldTurn()) > 0);
      } while (again && !isStopped());
      failures = 0;
    } catch (e) {
      notBefore = Date.now() + Math.min(4000, 250 * 2 ** failures++);
      if (isDatabaseUnavailable(e)) warnUnavailable('usage fold', e);
      else logger.warn({ err: (e as Error).message }, 'usage fold turn failed');
    } finally {
      running = undefined;
    }
  };
  const wake = () => {
    if (isStopped() || Date.now() < notBefore) return;
    if (running) {
      again = true;
      return;
    }
    running = run();
  };
  const timer = setInterval(wake, POLL_MS);
  wake();
  return {
    wake,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
