import { builder } from '../../graphql/builder.ts';
import { exposeFields, type ListArgs } from '../../graphql/fields.ts';
import { workspaceFields } from './fields.ts';
import { archiveWorkspace, createWorkspace, getWorkspace, listWorkspaces, updateWorkspace } from './service.ts';

export const Workspace = builder.prismaObject('Workspace', {
  fields: (t) => exposeFields(t, workspaceFields),
});

const CreateWorkspaceInput = builder.inputType('CreateWorkspaceInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    brandName: t.string(),
    businessEmail: t.string(),
    region: t.string(),
    defaultCurrency: t.string(),
  }),
});

const UpdateWorkspaceInput = builder.inputType('UpdateWorkspaceInput', {
  fields: (t) => ({
    name: t.string(),
    slug: t.string(),
    brandName: t.string(),
    businessEmail: t.string(),
    defaultCurrency: t.string(),
    timezone: t.string(),
    region: t.string({ description: 'Immutable: any change answers region_immutable.' }),
  }),
});

export type CreateWorkspaceInput = typeof CreateWorkspaceInput.$inferInput;
export type UpdateWorkspaceInput = typeof UpdateWorkspaceInput.$inferInput;

const listArgs = builder.args((t) => ({ mode: t.string(), archived: t.boolean() }));
export type ListWorkspacesArgs = ListArgs<typeof listArgs>;

builder.queryFields((t) => ({
  workspace: t.field({
    type: Workspace,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getWorkspace(ctx, String(id)),
  }),
  workspaces: t.connection({
    type: Workspace,
    args: listArgs,
    resolve: (_, args, ctx) => listWorkspaces(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createWorkspace: t.field({
    type: Workspace,
    args: { input: t.arg({ type: CreateWorkspaceInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => createWorkspace(ctx, input),
  }),
  updateWorkspace: t.field({
    type: Workspace,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateWorkspaceInput, required: true }) },
    resolve: (_, { id, input }, ctx) => updateWorkspace(ctx, String(id), input),
  }),
  archiveWorkspace: t.field({
    type: Workspace,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => archiveWorkspace(ctx, String(id)),
  }),
}));
