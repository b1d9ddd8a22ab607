import { builder } from '../../graphql/builder.ts';
import { admission } from '../../graphql/operation.ts';
import { exposeFields, type ListArgs } from '../../graphql/fields.ts';
import { templateFields } from './fields.ts';
import { createTemplate, getTemplate, listTemplates, updateTemplate } from './service.ts';

export const Template = builder.prismaObject('Template', {
  description: 'A receipt or invoice template (DECISIONS §3): what the document shows and says.',
  fields: (t) => exposeFields(t, templateFields),
});

const templateInput = (name: string, description: string, kindRequired: boolean, nameRequired: boolean) =>
  builder.inputType(name, {
    description,
    fields: (t) => ({
      kind: t.string({ required: kindRequired, description: '`receipt` or `invoice`; immutable.' }),
      name: t.string({ required: nameRequired }),
      isDefault: t.boolean(),
      footerText: t.string(),
      thankYouText: t.string({ description: 'null restores the default bilingual line.' }),
      showTax: t.boolean(),
      taxLabel: t.string({ description: 'Default PPN; null restores it.' }),
      taxRate: t.float({ description: 'Fractional, 0.11 = 11%; 0.11 when showTax is true and no rate is given.' }),
      cashierLabel: t.string(),
      showMerchantAddress: t.boolean(),
      merchantAddress: t.string(),
      merchantTaxId: t.string(),
      logoUrl: t.string(),
      accentColor: t.string(),
      tagline: t.string(),
    }),
  });
const CreateTemplateInput = templateInput(
  'CreateTemplateInput',
  'The first template of a kind becomes its default unless isDefault is false.',
  true,
  true,
);
const UpdateTemplateInput = templateInput(
  'UpdateTemplateInput',
  'Send only changes; null clears optional text.',
  false,
  false,
);
/** The service's view of both: create checks the required fields itself. */
export type TemplateInput = typeof UpdateTemplateInput.$inferInput;

const listArgs = builder.args((t) => ({ kind: t.string(), isDefault: t.boolean(), order: t.string() }));
export type ListTemplatesArgs = ListArgs<typeof listArgs>;

builder.queryFields((t) => ({
  template: t.field({
    ...admission({ resource: 'template', scope: 'svc:template:read' }),
    type: Template,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getTemplate(ctx, String(id)),
  }),
  templates: t.connection({
    ...admission({ resource: 'template', scope: 'svc:template:read' }),
    type: Template,
    args: listArgs,
    resolve: (_, args, ctx) => listTemplates(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createTemplate: t.field({
    ...admission({ resource: 'template', scope: 'svc:template:write' }),
    type: Template,
    args: { input: t.arg({ type: CreateTemplateInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => createTemplate(ctx, input),
  }),
  updateTemplate: t.field({
    ...admission({ resource: 'template', scope: 'svc:template:write' }),
    type: Template,
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateTemplateInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_, { id, input }, ctx) => updateTemplate(ctx, String(id), input),
  }),
}));
