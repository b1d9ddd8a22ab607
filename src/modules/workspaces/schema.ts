import { builder } from '../../graphql/builder.ts';
import { admission } from '../../graphql/operation.ts';
import { exposeFields, type ListArgs } from '../../graphql/fields.ts';
import { workspaceFields } from './fields.ts';
import {
  activateWorkspace,
  archiveWorkspace,
  createWorkspace,
  getWorkspace,
  listWorkspaces,
  updateWorkspace,
} from './service.ts';
import { restoreWorkspace } from './lifecycle.ts';

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

const PortalSettingsInput = builder.inputType('PortalSettingsInput', {
  description: 'spec Portal sessions: the workspace portal toggles; send only the ones to change.',
  fields: (t) => ({
    cancel: t.boolean(),
    updatePaymentMethod: t.boolean(),
    viewInvoices: t.boolean(),
    changePlan: t.boolean(),
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
    portalSettings: t.field({ type: PortalSettingsInput }),
    region: t.string({ description: 'Immutable: any change answers region_immutable.' }),
  }),
});

export type CreateWorkspaceInput = typeof CreateWorkspaceInput.$inferInput;
export type UpdateWorkspaceInput = typeof UpdateWorkspaceInput.$inferInput;

const listArgs = builder.args((t) => ({ mode: t.string(), archived: t.boolean() }));
export type ListWorkspacesArgs = ListArgs<typeof listArgs>;

builder.queryFields((t) => ({
  workspace: t.field({
    ...admission({ resource: 'workspace', scope: 'svc:workspace:read' }),
    type: Workspace,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getWorkspace(ctx, String(id)),
  }),
  workspaces: t.connection({
    ...admission({ resource: 'workspace', scope: 'svc:workspace:read' }),
    type: Workspace,
    args: listArgs,
    resolve: (_, args, ctx) => listWorkspaces(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createWorkspace: t.field({
    ...admission({ resource: 'workspace', scope: 'svc:workspace:write' }),
    type: Workspace,
    args: { input: t.arg({ type: CreateWorkspaceInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => createWorkspace(ctx, input),
  }),
  updateWorkspace: t.field({
    ...admission({ resource: 'workspace', scope: 'svc:workspace:write' }),
    type: Workspace,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateWorkspaceInput, required: true }) },
    resolve: (_, { id, input }, ctx) => updateWorkspace(ctx, String(id), input),
  }),
  archiveWorkspace: t.field({
    ...admission({ resource: 'workspace', scope: 'svc:workspace:write' }),
    type: Workspace,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => archiveWorkspace(ctx, String(id)),
  }),
  activateWorkspace: t.field({
    ...admission({ resource: 'workspace', scope: 'svc:workspace:write' }),
    type: Workspace,
    description: 'DECISIONS §7: owner only; needs businessEmail and an active adapter; sets mode to live.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => activateWorkspace(ctx, String(id)),
  }),
  restoreWorkspace: t.field({
    ...admission({ resource: 'workspace', scope: 'svc:workspace:write' }),
    type: Workspace,
    description: "Within 90 days of archive: the partner's platform-admin key restores its merchant.",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => restoreWorkspace(ctx, String(id)),
  }),
}));
