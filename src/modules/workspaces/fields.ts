import type { FieldSpec } from '../../graphql/fields.ts';
import type { Workspace } from '../../generated/prisma/client.ts';

export const workspaceFields: FieldSpec<Workspace> = {
  id: { kind: 'id' },
  accountId: { kind: 'string' },
  name: { kind: 'string' },
  slug: { kind: 'string' },
  region: { kind: 'string' },
  defaultCurrency: { kind: 'string' },
  timezone: { kind: 'string' },
  mode: { kind: 'string' },
  brandName: { kind: 'string', nullable: true },
  businessEmail: { kind: 'string', nullable: true },
  // spec Portal sessions: the portal toggles (cancel, updatePaymentMethod, viewInvoices, changePlan).
  portalSettings: { kind: 'json' },
  createdAt: { kind: 'date' },
  updatedAt: { kind: 'date' },
  archivedAt: { kind: 'date', nullable: true },
};
