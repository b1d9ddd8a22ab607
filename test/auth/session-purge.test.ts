// Ended dashboard sessions are purged a day after they end (docs/dashboard.md, Sessions): the table
// stays bounded however many sign-ins it sees, and a live session is never touched.
import { describe, expect, it } from 'vitest';
import { ENDED_SESSION_KEEP_MS, purgeEndedSessions } from '../../src/auth/session.ts';
import { db, useServer } from '../helpers/server.ts';
import { signIn, useDevIdp } from '../helpers/dashboard.ts';

const server = useServer();
useDevIdp(server);

const HOUR = 3600_000;

describe('dashboard session purge', () => {
  it('deletes sessions expired or signed out over a day ago, in batches, and keeps the rest', async () => {
    const ws = await server.workspace();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      await signIn(server.url, 'owner@example.com');
      const { rows } = await db().system.query<{ id: string }>(
        `SELECT id FROM dashboard_sessions WHERE "workspaceId" = $1 AND id <> ALL($2::text[]) ORDER BY "createdAt" DESC LIMIT 1`,
        [ws.workspaceId, ids],
      );
      ids.push(rows[0]!.id);
    }
    const [expiredLong, revokedLong, expiredRecently, revokedRecently, live] = ids;
    const now = Date.now();
    const ago = (ms: number) => new Date(now - ms);
    const set = (id: string, column: string, at: Date) =>
      db().system.query(`UPDATE dashboard_sessions SET "${column}" = $2 WHERE id = $1`, [id, at]);
    await set(expiredLong!, 'expiresAt', ago(ENDED_SESSION_KEEP_MS + HOUR));
    await set(revokedLong!, 'revokedAt', ago(ENDED_SESSION_KEEP_MS + HOUR));
    await set(expiredRecently!, 'expiresAt', ago(HOUR));
    await set(revokedRecently!, 'revokedAt', ago(HOUR));

    // Batches of one: the loop runs until a batch comes back short, and deletes exactly the two.
    expect(await purgeEndedSessions(new Date(now), 1)).toBe(2);
    const { rows } = await db().system.query<{ id: string }>(
      'SELECT id FROM dashboard_sessions WHERE id = ANY($1::text[]) ORDER BY id',
      [ids],
    );
    expect(rows.map((r) => r.id)).toEqual([expiredRecently, revokedRecently, live].sort());
    expect(await purgeEndedSessions(new Date(now))).toBe(0);
  });
});
