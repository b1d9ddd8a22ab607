import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { apiRequest, CliError, connection, connectionOptions, exitCodeOf, exitCodes, usageError } from './api.ts';
import { progress } from './progress.ts';

/** Ids per request: small enough that the bar moves and a failure loses little, well under the API's cap. */
const BATCH = 200;

/**
 * `svc events replay <evt_id ...|->`: POST /v1/events/replay (spec Events) in batches, one line per
 * replayed event (`original new`) on stdout, a progress bar on a terminal. Stops at the first
 * refused batch; the lines already printed are the replays that happened.
 */
export async function events(args: string[]) {
  const [sub, ...rest] = args;
  if (sub !== 'replay') throw usageError('usage: svc events replay <evt_id ...|-> (ids from stdin with -)');
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { ...connectionOptions, 'batch-size': { type: 'string' } },
  });
  const ids = (positionals.length === 1 && positionals[0] === '-' ? readFileSync(0, 'utf8').split(/\s+/) : positionals)
    .map((s) => s.trim())
    .filter(Boolean);
  if (!ids.length) throw usageError('usage: svc events replay <evt_id ...|-> (no event ids given)');
  const size = Number(values['batch-size'] ?? BATCH);
  if (!Number.isInteger(size) || size < 1 || size > 10_000) throw usageError('--batch-size must be 1..10000');
  const conn = connection(values);
  const bar = progress('replaying', ids.length);
  try {
    for (let i = 0; i < ids.length; i += size) {
      const batch = ids.slice(i, i + size);
      const res = await apiRequest(
        conn,
        'POST',
        '/v1/events/replay',
        { eventIds: batch },
        { 'idempotency-key': randomUUID() },
      );
      if (res.status !== 201) {
        const e = res.json?.error;
        throw new CliError(
          `replay of ids ${i + 1}..${i + batch.length} answered ${res.status}${e ? ` ${e.code}: ${e.message}` : ''} ` +
            `(${i} replayed before it)`,
          exitCodeOf(res.status) || exitCodes.error,
        );
      }
      const replayed: string[] = res.json.data.eventIds;
      process.stdout.write(batch.map((id, k) => `${id} ${replayed[k]}\n`).join(''));
      bar.tick(batch.length);
    }
  } finally {
    bar.done();
  }
}
