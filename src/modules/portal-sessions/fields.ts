import type { FieldSpec } from '../../graphql/fields.ts';
import type { Mode } from '../../core/db/client.ts';
import type { PortalSession } from '../../generated/prisma/client.ts';
import { portalUrl } from './token.ts';

/** A session row with its workspace's `acc_` id (spec `accountId`, `arn`). */
export type PortalSessionRow = PortalSession & { accountId: string };

/** spec Portal session: the REST object and the GraphQL type (no event: the spec lists none). */
export const portalSessionFields: FieldSpec<PortalSessionRow> = {
  id: { kind: 'id' },
  // spec Shared conventions: portal-session uses `/` before the id.
  arn: { kind: 'string', from: (r) => `arn:svc:${r.accountId}:portal-session/${r.id}` },
  accountId: { kind: 'string' },
  customerId: { kind: 'string' },
  url: {
    kind: 'string',
    from: (r) =>
      portalUrl({
        sessionId: r.id,
        workspaceId: r.workspaceId,
        mode: r.mode as Mode,
        customerId: r.customerId,
        expiresAt: r.expiresAt,
      }),
  },
  returnUrl: { kind: 'string' },
  expiresAt: { kind: 'date' },
  createdAt: { kind: 'date' },
};
