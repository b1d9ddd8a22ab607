import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { db, useServer } from '../../helpers/server.ts';
import { freeSlug } from '../../../src/modules/workspaces/service.ts';

const server = useServer();

describe('workspace slugs', () => {
  it('workspaces of one name created at once all succeed, each with its own slug', async () => {
    // Without the slug lock each creator saw the name's slug free and all but one failed on
    // workspaces_slug_key (a 500 for the client).
    const made = await Promise.all(Array.from({ length: 8 }, () => server.workspace({ name: 'Same Name Shop' })));
    const { rows } = await db().system.query<{ slug: string }>(`SELECT slug FROM workspaces WHERE id = ANY($1)`, [
      made.map((w) => w.workspaceId),
    ]);
    expect(rows).toHaveLength(8);
    expect(new Set(rows.map((r) => r.slug)).size).toBe(8);
    expect(rows.map((r) => r.slug)).toContain('same-name-shop');
  });

  it("a suffixed slug is free too: never another workspace's, never a retired one", async () => {
    await server.workspace({ name: 'Warung Suffix' }); // warung-suffix
    const ws = await server.workspace({ name: 'Warung Suffix' });
    await db().system.query(`UPDATE workspaces SET slug = 'warung-suffix-aaaaaa' WHERE id = $1`, [ws.workspaceId]);
    await db().system.query(
      `INSERT INTO retired_slugs (slug, "workspaceId", "retiredAt") VALUES ('warung-suffix-bbbbbb', $1, now())`,
      [ws.workspaceId],
    );
    const tries = ['aaaaaa', 'bbbbbb', 'cccccc'];
    const picked = await db().systemPrisma.$transaction((tx) => freeSlug(tx, 'Warung Suffix', () => tries.shift()!));
    expect(picked).toBe('warung-suffix-cccccc');
    expect(tries).toEqual([]);
    // A generator that only repeats a taken suffix ends in an error, not in a duplicate.
    await expect(db().systemPrisma.$transaction((tx) => freeSlug(tx, 'Warung Suffix', () => 'aaaaaa'))).rejects.toThrow(
      /no free slug/,
    );
  });
});

describe('hosted pages under the slug (spec Workspace: old slugs return 410)', () => {
  const get = (path: string) => fetch(`${server.url}${path}`, { redirect: 'manual' });

  it('the current slug redirects to the page; a renamed slug answers 410 at once; other slugs 404', async () => {
    const ws = await server.workspace({ name: 'Kopi Kenangan Senja' });
    const other = await server.workspace({ name: 'Other Shop' });
    const s = await ws.client.post(
      '/v1/checkout-sessions',
      {
        amount: 10000,
        currency: 'IDR',
        methods: ['card'],
        successUrl: 'https://s.example/ok',
        cancelUrl: 'https://s.example/no',
      },
      { 'idempotency-key': randomUUID() },
    );
    expect(s.status).toBe(201);
    const hostedUrl = s.json.data.hostedUrl as string;
    const token = hostedUrl.split('/c/')[1];
    const slug = (await ws.client.get(`/v1/workspaces/${ws.workspaceId}`)).json.data.slug as string;
    const otherSlug = (await other.client.get(`/v1/workspaces/${other.workspaceId}`)).json.data.slug as string;

    const current = await get(`/${slug}/c/${token}`);
    expect(current.status).toBe(302);
    expect(current.headers.get('location')).toBe(hostedUrl);
    // Another merchant's slug, an unknown slug, or a malformed token: 404.
    expect((await get(`/${otherSlug}/c/${token}`)).status).toBe(404);
    expect((await get(`/no-such-shop-here/c/${token}`)).status).toBe(404);
    expect((await get(`/${slug}/c/not-a-token`)).status).toBe(404);

    expect((await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, { slug: 'kopi-senja' })).status).toBe(200);
    const old = await get(`/${slug}/c/${token}`);
    expect(old.status).toBe(410);
    expect(old.headers.get('content-type')).toContain('text/html');
    expect(await old.text()).toContain('address has changed');
    // The invoice page under the old slug too; the new slug leads to the page; the API's URL keeps working.
    const invToken = `inv_01HZZZZZZZZZZZZZZZZZZZZZZZ_${'a'.repeat(40)}`;
    expect((await get(`/${slug}/i/${invToken}`)).status).toBe(410);
    expect((await get(`/kopi-senja/c/${token}`)).headers.get('location')).toBe(hostedUrl);
    expect((await get(`/c/${token}`)).status).toBe(200);
  });
});
