/**
 * spec Workspace: archive "stops webhooks after a 24-hour grace" and keeps the data 90 days, then
 * purges it; restore is possible within that window. The two periods, in one place (no imports:
 * the webhook fan-out and delivery read them too).
 */
export const WEBHOOK_GRACE_MS = 24 * 3600 * 1000;
export const RETENTION_MS = 90 * 24 * 3600 * 1000;

/** Archived before this instant: its webhooks have stopped. */
export const webhooksStopBefore = (now: Date) => new Date(now.getTime() - WEBHOOK_GRACE_MS);
/** Archived before this instant: past the restore window, due for the purge. */
export const retainedSince = (now: Date) => new Date(now.getTime() - RETENTION_MS);

/**
 * SQL condition: the workspace row `alias` still delivers webhooks, given the cutoff
 * (`webhooksStopBefore(now)`) bound as parameter `param` (`$5`).
 */
export const deliversWebhooks = (alias: string, param: string) =>
  `(${alias}."archivedAt" IS NULL OR ${alias}."archivedAt" > ${param}::timestamptz)`;
