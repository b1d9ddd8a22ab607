/**
 * Hosted URLs under the merchant's slug (spec Workspace `slug`: "used in hosted checkout URLs;
 * renameable; old slugs return 410"; docs/decisions.md, Workspace lifecycle). The capability URLs
 * the API returns (`hostedUrl`, `hostedInvoiceUrl`) stay `/c/<token>` and `/i/<token>`, so a rename
 * never breaks a link a customer already holds; `{hosted_base}/<slug>/c/<token>` and
 * `/<slug>/i/<token>` are the branded form of the same pages: with the workspace's current slug
 * they redirect to the page, with a retired slug they answer 410 at once, anything else 404.
 */
import { db } from '../../core/db/client.ts';
import { DomainError } from '../../core/errors.ts';
import { hostedBase } from '../../core/hosted.ts';
import { parseHostedToken } from '../../core/hosted-link.ts';
import { slugShape } from './service.ts';

const pages = {
  c: { kind: 'checkoutSession', table: 'checkout_sessions', resource: 'checkout_session' },
  i: { kind: 'invoice', table: 'invoices', resource: 'invoice' },
} as const;
export type SluggedPage = keyof typeof pages;

// Slugs are global (no tenant yet): the system pool, by the unique slug (docs/scaling.md).
const SLUG = `SELECT (SELECT id FROM workspaces WHERE slug = $1) AS "workspaceId",
  EXISTS (SELECT 1 FROM retired_slugs WHERE slug = $1) AS retired`;

/** Where `/<slug>/<page>/<token>` leads: the page's canonical URL, or 410 / 404. */
export async function sluggedPage(slug: string, page: SluggedPage, token: string): Promise<string> {
  const { kind, table, resource } = pages[page];
  const notFound = () => new DomainError('not_found', 'No such page', { resource });
  const parsed = parseHostedToken(kind, token);
  if (!slugShape.test(slug) || !parsed) throw notFound();
  const { rows } = await db().system.query<{ workspaceId: string | null; retired: boolean }>(SLUG, [slug]);
  if (rows[0].retired)
    throw new DomainError('gone', 'This merchant address has changed; ask the merchant for a new link', { resource });
  if (!rows[0].workspaceId) throw notFound();
  // The page must belong to the slug's workspace (its secret is checked by the page itself).
  const { rowCount } = await db().system.query(`SELECT 1 FROM ${table} WHERE id = $1 AND "workspaceId" = $2`, [
    parsed.id,
    rows[0].workspaceId,
  ]);
  if (!rowCount) throw notFound();
  return `${hostedBase()}/${page}/${token}`;
}
