import type { FieldSpec } from '../../graphql/fields.ts';
import type { Template } from '../../generated/prisma/client.ts';

/** spec Template: kind, name, isDefault and the spec's receipt `template` fields, flat. */
export const templateFields: FieldSpec<Template> = {
  id: { kind: 'id' },
  kind: { kind: 'string' },
  name: { kind: 'string' },
  isDefault: { kind: 'bool' },
  footerText: { kind: 'string', nullable: true },
  thankYouText: { kind: 'string' },
  showTax: { kind: 'bool' },
  taxLabel: { kind: 'string' },
  taxRate: { kind: 'float', nullable: true, from: (r) => (r.taxRate === null ? null : Number(r.taxRate)) },
  cashierLabel: { kind: 'string', nullable: true },
  showMerchantAddress: { kind: 'bool' },
  merchantAddress: { kind: 'string', nullable: true },
  merchantTaxId: { kind: 'string', nullable: true },
  logoUrl: { kind: 'string', nullable: true },
  accentColor: { kind: 'string', nullable: true },
  tagline: { kind: 'string', nullable: true },
  createdAt: { kind: 'date' },
  updatedAt: { kind: 'date' },
};

/** spec Receipt defaults: taxLabel PPN, rate 0.11 once tax is configured, a bilingual thank-you. */
export const templateDefaults = {
  taxLabel: 'PPN',
  taxRate: 0.11,
  thankYouText: 'Terima kasih / Thank you',
  showTax: false,
  showMerchantAddress: true,
} as const;

export const templateKinds = ['receipt', 'invoice'] as const;
export type TemplateKind = (typeof templateKinds)[number];
