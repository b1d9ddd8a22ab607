// What pg-boss reports while the database is away during a failover (its LISTEN connection
// terminated, then a server that answers read-only, 25006, for a moment): warnings that it
// retries, never error lines. The worker runs in process over the test's own database, which is
// made read-only for new sessions and has its sessions terminated.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { useServer } from '../helpers/server.ts';
import { admin } from '../helpers/db.ts';
import { until } from '../helpers/receiver.ts';
import { config } from '../../src/core/config.ts';
import { logger } from '../../src/core/logger.ts';

const server = useServer({ background: 'worker' });
const dbName = () => new URL(server.dbUrl).pathname.slice(1);
const readOnly = (on: boolean) =>
  admin(async (c) => {
    await c.query(
      `ALTER DATABASE ${dbName()} ${on ? 'SET default_transaction_read_only = on' : 'RESET default_transaction_read_only'}`,
    );
    await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [dbName()]);
  });
// Runs before the worker stops (after-hooks run in reverse order).
afterAll(() => readOnly(false));

describe('pg-boss during a failover', () => {
  it('its terminated LISTEN connection and the read-only errors are warnings, not error lines', async () => {
    // Every warning shows (none folded into the interval's count).
    config.dbWarnIntervalMs = 0;
    const warn = vi.spyOn(logger, 'warn');
    const error = vi.spyOn(logger, 'error');
    try {
      const pgBoss = (calls: unknown[][]) =>
        calls.filter(
          ([fields, msg]) =>
            msg === 'pg-boss error' ||
            (msg === 'database unavailable' && (fields as { component?: string }).component === 'pg-boss'),
        );
      await readOnly(true);
      // pg-boss fetches each queue every few seconds: a fetch on the read-only server fails with 25006.
      await until(
        () => pgBoss([...warn.mock.calls, ...error.mock.calls]).some(([f]) => /read-only/.test(JSON.stringify(f))),
        'pg-boss meets the read-only server',
        20_000,
      );
      expect(pgBoss(error.mock.calls)).toEqual([]);
      const codes = new Set(pgBoss(warn.mock.calls).map(([f]) => (f as { code?: string }).code));
      expect(codes.has('25006')).toBe(true);
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });
});
