import { afterEach, describe, expect, it } from 'vitest';
import { useServer, db, type Workspace } from '../helpers/server.ts';
import { signRequest } from '../../src/core/auth/signing.ts';
import { clock, epochSeconds } from '../../src/core/clock.ts';
import { newId } from '../../src/core/ids.ts';
import { randomHex } from '../../src/core/crypto.ts';

const server = useServer();

afterEach(() => clock.reset());

/** A signed GET whose timestamp follows the injectable clock (so it still verifies after clock.advance). */
async function getAt(ws: Workspace, target: string) {
  const headers = signRequest({
    keyId: ws.keyId,
    secret: ws.secret,
    method: 'GET',
    target,
    timestamp: epochSeconds(clock.now()),
  });
  const res = await fetch(server.url + target, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: JSON.parse(text) };
}

const BASE = Date.parse('2026-01-01T00:00:00.000Z');

/**
 * Inserts `n` API keys straight into the table (listing needs no usable signing key). Every
 * group of three shares a createdAt, so the id tie-break is exercised; createdAt order is
 * deliberately unrelated to id order.
 */
async function insertKeys(workspaceId: string, n: number, opts: { revoked?: boolean; mode?: 'test' | 'live' } = {}) {
  const rows = Array.from({ length: n }, (_, i) => ({
    id: newId('apiKey'),
    keyId: `pk_${opts.mode ?? 'test'}_${randomHex(6)}`,
    createdAt: new Date(BASE - ((i * 7919) % n) * 1000),
  }));
  // ties: force every third row onto its neighbour's timestamp
  for (let i = 1; i < rows.length; i += 3) rows[i].createdAt = rows[i - 1].createdAt;
  await db().system.query(
    `INSERT INTO api_keys (id, "workspaceId", mode, "keyId", name, role, scopes, "signingKey", "createdAt", "revokedAt")
     SELECT u.id, $1, $5, u.kid, 'bulk', 'read_only', '{}', '\\x00'::bytea, u.at, CASE WHEN $6 THEN u.at ELSE NULL END
     FROM unnest($2::text[], $3::text[], $4::timestamptz[]) AS u(id, kid, at)`,
    [
      workspaceId,
      rows.map((r) => r.id),
      rows.map((r) => r.keyId),
      rows.map((r) => r.createdAt.toISOString()),
      opts.mode ?? 'test',
      !!opts.revoked,
    ],
  );
  return rows;
}

async function insertEvents(workspaceId: string, n: number, type = 'test.bulk') {
  const rows = Array.from({ length: n }, (_, i) => ({
    id: newId('event'),
    occurredAt: new Date(BASE + ((i * 104729) % n) * 1000),
  }));
  for (let i = 1; i < rows.length; i += 4) rows[i].occurredAt = rows[i - 1].occurredAt;
  await db().system.query(
    `INSERT INTO events (id, "workspaceId", mode, type, "objectId", sequence, "occurredAt", "createdAt", data, metadata)
     SELECT u.id, $1, 'test', $2, NULL, 1, u.at, u.at, '{}'::jsonb, '{}'::jsonb
     FROM unnest($3::text[], $4::timestamptz[]) AS u(id, at)`,
    [workspaceId, type, rows.map((r) => r.id), rows.map((r) => r.occurredAt.toISOString())],
  );
  return rows;
}

type Sortable = { id: string; at: number };
const byDesc = (a: Sortable, b: Sortable) => b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
const byAsc = (a: Sortable, b: Sortable) => -byDesc(a, b);

/** Follows nextCursor to the end; checks meta.page on every page. */
async function walk(ws: Workspace, path: string, limit: number) {
  const sep = path.includes('?') ? '&' : '?';
  const seen: any[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 1000; pages++) {
    const res: { status: number; text: string; json: any } = await ws.client.get(
      `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(res.status, res.text).toBe(200);
    const page: { limit: number; hasMore: boolean; nextCursor: string | null } = res.json.meta.page;
    expect(Object.keys(page).sort()).toEqual(['hasMore', 'limit', 'nextCursor']);
    expect(page.limit).toBe(limit);
    seen.push(...res.json.data);
    if (!page.hasMore) {
      expect(page.nextCursor).toBeNull();
      return seen;
    }
    expect(res.json.data).toHaveLength(limit);
    expect(page.nextCursor).toMatch(/^cur_/);
    cursor = page.nextCursor;
  }
  throw new Error('pagination did not terminate');
}

async function firstCursor(ws: Workspace, path: string) {
  const res = await ws.client.get(path);
  expect(res.status, res.text).toBe(200);
  expect(res.json.meta.page.hasMore).toBe(true);
  return res.json.meta.page.nextCursor as string;
}

const expectError = (res: { status: number; json: any }, status: number, code: string) => {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  expect(res.json.data).toBeNull();
  expect(res.json.error.code).toBe(code);
};

describe.each(['/v1/api-keys', '/v1/events'])('limit validation on %s', (path) => {
  it.each(['0', '101', 'abc', '-1', '1.5', '', '1e2', '99999'])('limit=%s is 400 invalid_limit', async (limit) => {
    const ws = await server.workspace();
    const res = await ws.client.get(`${path}?limit=${limit}`);
    expectError(res, 400, 'invalid_limit');
  });

  it('limit=1 and limit=100 are accepted, not clamped', async () => {
    const ws = await server.workspace();
    for (const limit of [1, 100]) {
      const res = await ws.client.get(`${path}?limit=${limit}`);
      expect(res.status).toBe(200);
      expect(res.json.meta.page.limit).toBe(limit);
    }
  });
});

describe('walking GET /v1/api-keys', () => {
  it('returns 250 keys exactly once, newest first, across pages of 20', async () => {
    const ws = await server.workspace();
    const inserted = await insertKeys(ws.workspaceId, 249);
    const { rows: boot } = await db().system.query(`SELECT id, "createdAt" FROM api_keys WHERE id = $1`, [ws.apiKeyId]);
    const expected = [
      ...inserted.map((r) => ({ id: r.id, at: r.createdAt.getTime() })),
      { id: ws.apiKeyId, at: boot[0].createdAt.getTime() },
    ].sort(byDesc);

    const seen = await walk(ws, '/v1/api-keys', 20);
    expect(seen).toHaveLength(250);
    expect(new Set(seen.map((k) => k.id)).size).toBe(250);
    expect(seen.map((k) => k.id)).toEqual(expected.map((r) => r.id));
    // newest first, by the visible field as well
    for (let i = 1; i < seen.length; i++)
      expect(Date.parse(seen[i - 1].createdAt)).toBeGreaterThanOrEqual(Date.parse(seen[i].createdAt));
  });

  it('default page is 50 and the last page has nextCursor null', async () => {
    const ws = await server.workspace();
    await insertKeys(ws.workspaceId, 59); // 60 with the bootstrap key
    const first = await ws.client.get('/v1/api-keys');
    expect(first.json.data).toHaveLength(50);
    expect(first.json.meta.page).toEqual({
      limit: 50,
      hasMore: true,
      nextCursor: expect.stringMatching(/^cur_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/),
    });
    const second = await ws.client.get(`/v1/api-keys?cursor=${first.json.meta.page.nextCursor}`);
    expect(second.status).toBe(200);
    expect(second.json.data).toHaveLength(10);
    expect(second.json.meta.page).toEqual({ limit: 50, hasMore: false, nextCursor: null });
  });

  it('an exactly full last page reports hasMore false', async () => {
    const ws = await server.workspace();
    await insertKeys(ws.workspaceId, 39); // 40 = two pages of 20
    const seen = await walk(ws, '/v1/api-keys', 20);
    expect(seen).toHaveLength(40);
  });

  it('includeRevoked and environment filters page consistently', async () => {
    const ws = await server.workspace();
    const revoked = await insertKeys(ws.workspaceId, 30, { revoked: true });
    const live = await insertKeys(ws.workspaceId, 25, { mode: 'live' });
    const active = await walk(ws, '/v1/api-keys', 7);
    expect(active).toHaveLength(26);
    expect(active.every((k) => k.revokedAt === null)).toBe(true);
    const all = await walk(ws, '/v1/api-keys?includeRevoked=true', 7);
    expect(all).toHaveLength(56);
    expect(
      all
        .filter((k) => k.revokedAt !== null)
        .map((k) => k.id)
        .sort(),
    ).toEqual(revoked.map((r) => r.id).sort());
    const liveOnly = await walk(ws, '/v1/api-keys?environment=live', 7);
    expect(liveOnly.map((k) => k.id).sort()).toEqual(live.map((r) => r.id).sort());
    expect(liveOnly.every((k) => k.environment === 'live')).toBe(true);
  });
});

describe('walking GET /v1/events', () => {
  it('returns 250 events exactly once, newest written first by default and oldest first with order=asc', async () => {
    const ws = await server.workspace();
    await insertEvents(ws.workspaceId, 250);
    // In the order they were written (position), whatever their occurredAt (docs/decisions.md, Test clocks).
    const desc = (
      await db().system.query(
        `SELECT id FROM events WHERE "workspaceId" = $1 AND type = 'test.bulk' ORDER BY position DESC`,
        [ws.workspaceId],
      )
    ).rows.map((r) => r.id);

    const seen = await walk(ws, '/v1/events?type=test.bulk', 20);
    expect(seen.map((e) => e.id)).toEqual(desc);

    const seenAsc = await walk(ws, '/v1/events?type=test.bulk&order=asc', 20);
    expect(seenAsc.map((e) => e.id)).toEqual([...desc].reverse());

    const explicitDesc = await walk(ws, '/v1/events?type=test.bulk&order=desc', 33);
    expect(explicitDesc.map((e) => e.id)).toEqual(desc);
  });

  it('includes the workspace.created event when unfiltered', async () => {
    const ws = await server.workspace();
    await insertEvents(ws.workspaceId, 45);
    const seen = await walk(ws, '/v1/events', 20);
    expect(seen).toHaveLength(46);
    expect(new Set(seen.map((e) => e.id)).size).toBe(46);
    expect(seen.filter((e) => e.type === 'workspace.created')).toHaveLength(1);
  });
});

describe('invalid cursors', () => {
  it('a tampered cursor is 400 invalid_cursor', async () => {
    const ws = await server.workspace();
    await insertKeys(ws.workspaceId, 5);
    const cursor = await firstCursor(ws, '/v1/api-keys?limit=2');
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    const dot = cursor.indexOf('.');
    const variants = [
      flip(cursor, 6), // payload
      flip(cursor, dot - 1),
      flip(cursor, dot + 3), // signature
      flip(cursor, cursor.length - 1),
      cursor.slice(0, -1),
      cursor.replace(/^cur_/, ''),
      cursor.replace(/^cur_/, 'cux_'),
      'cur_',
      'garbage',
      `cur_${Buffer.from(JSON.stringify({ w: ws.workspaceId, f: 'x', p: { at: new Date().toISOString(), id: 'akey_x' }, x: 9e9 })).toString('base64url')}.AAAAAAAAAAAAAAAAAAAAAA`,
    ];
    for (const bad of variants) {
      const res = await ws.client.get(`/v1/api-keys?limit=2&cursor=${encodeURIComponent(bad)}`);
      expectError(res, 400, 'invalid_cursor');
    }
    // the untouched cursor still works
    expect((await ws.client.get(`/v1/api-keys?limit=2&cursor=${cursor}`)).status).toBe(200);
  });

  it('a cursor from another workspace is 400 invalid_cursor', async () => {
    const a = await server.workspace();
    const b = await server.workspace();
    await insertKeys(a.workspaceId, 5);
    await insertKeys(b.workspaceId, 5);
    const cursor = await firstCursor(a, '/v1/api-keys?limit=2');
    expectError(await b.client.get(`/v1/api-keys?limit=2&cursor=${cursor}`), 400, 'invalid_cursor');
    await insertEvents(a.workspaceId, 5);
    const evCursor = await firstCursor(a, '/v1/events?limit=2');
    expectError(await b.client.get(`/v1/events?limit=2&cursor=${evCursor}`), 400, 'invalid_cursor');
  });

  it('a cursor older than 24 hours is 400 invalid_cursor', async () => {
    const ws = await server.workspace();
    await insertKeys(ws.workspaceId, 5);
    await insertEvents(ws.workspaceId, 5);
    const keyCursor = await firstCursor(ws, '/v1/api-keys?limit=2');
    const evCursor = await firstCursor(ws, '/v1/events?limit=2');

    clock.advance(24 * 3600_000 - 60_000); // still within the lifetime
    expect((await getAt(ws, `/v1/api-keys?limit=2&cursor=${keyCursor}`)).status).toBe(200);

    clock.reset();
    clock.advance(24 * 3600_000 + 1000);
    expectError(await getAt(ws, `/v1/api-keys?limit=2&cursor=${keyCursor}`), 400, 'invalid_cursor');
    expectError(await getAt(ws, `/v1/events?limit=2&cursor=${evCursor}`), 400, 'invalid_cursor');
  });

  it('a cursor reused with changed filters is 400 invalid_cursor', async () => {
    const ws = await server.workspace();
    await insertKeys(ws.workspaceId, 5);
    await insertEvents(ws.workspaceId, 5, 'test.a');
    const keyCursor = await firstCursor(ws, '/v1/api-keys?limit=2');
    expectError(
      await ws.client.get(`/v1/api-keys?limit=2&includeRevoked=true&cursor=${keyCursor}`),
      400,
      'invalid_cursor',
    );
    expectError(
      await ws.client.get(`/v1/api-keys?limit=2&environment=test&cursor=${keyCursor}`),
      400,
      'invalid_cursor',
    );
    // a different page size is not a different filter
    expect((await ws.client.get(`/v1/api-keys?limit=3&cursor=${keyCursor}`)).status).toBe(200);

    const evCursor = await firstCursor(ws, '/v1/events?limit=2');
    expectError(await ws.client.get(`/v1/events?limit=2&type=test.a&cursor=${evCursor}`), 400, 'invalid_cursor');
    expectError(await ws.client.get(`/v1/events?limit=2&order=asc&cursor=${evCursor}`), 400, 'invalid_cursor');
    expectError(await ws.client.get(`/v1/events?limit=2&since=1&cursor=${evCursor}`), 400, 'invalid_cursor');
    const typed = await firstCursor(ws, '/v1/events?limit=2&type=test.a');
    expectError(await ws.client.get(`/v1/events?limit=2&cursor=${typed}`), 400, 'invalid_cursor');
    expect((await ws.client.get(`/v1/events?limit=2&type=test.a&cursor=${typed}`)).status).toBe(200);
    // order=desc is the default, so spelling it out is the same filter
    expect((await ws.client.get(`/v1/events?limit=2&order=desc&cursor=${evCursor}`)).status).toBe(200);
  });
});

describe('keyset queries', () => {
  it('use the (workspaceId, createdAt, id) and (workspaceId, position) indexes', async () => {
    const ws = await server.workspace();
    await insertKeys(ws.workspaceId, 50);
    await insertEvents(ws.workspaceId, 50);
    const c = await db().system.connect();
    try {
      await c.query('BEGIN');
      await c.query('SET LOCAL enable_seqscan = off'); // the tables are tiny; ask whether an index can serve the query
      const at = new Date(BASE).toISOString();
      const keys = await c.query(
        `EXPLAIN SELECT * FROM api_keys WHERE "workspaceId" = $1 AND "revokedAt" IS NULL AND "createdAt" <= $2
           AND ("createdAt" < $2 OR ("createdAt" = $2 AND id < $3)) ORDER BY "createdAt" DESC, id DESC LIMIT 21`,
        [ws.workspaceId, at, 'akey_Z'],
      );
      const keyPlan = keys.rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(keyPlan).toMatch(/Index Scan Backward using "?api_keys_workspaceId_createdAt_id_idx"?/);
      // the page boundary is a seek (index condition), not a filter over every earlier row
      expect(keyPlan).toMatch(/Index Cond: \(\("workspaceId" = .*\) AND \("createdAt" <= /);
      expect(keyPlan).not.toMatch(/Sort/);
      const events = await c.query(
        `EXPLAIN SELECT * FROM events WHERE "workspaceId" = $1 AND position > $2 ORDER BY position ASC LIMIT 21`,
        [ws.workspaceId, '10'],
      );
      const eventPlan = events.rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(eventPlan).toMatch(/Index Scan using "?events_workspaceId_position_idx"?/);
      expect(eventPlan).toMatch(/Index Cond: \(\("workspaceId" = .*\) AND \("?position"? > /);
      expect(eventPlan).not.toMatch(/Sort/);
      await c.query('ROLLBACK');
    } finally {
      c.release();
    }
  });
});
