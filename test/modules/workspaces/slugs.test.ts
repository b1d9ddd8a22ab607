import { describe, expect, it } from 'vitest';
import { db, useServer } from '../../helpers/server.ts';

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
});
