import { builder } from '../../graphql/builder.ts';
import { admission } from '../../graphql/operation.ts';
import { exposeFields, type ListArgs } from '../../graphql/fields.ts';
import { memberFields } from './fields.ts';
import {
  type OwnershipTransfer as Transfer,
  inviteMember,
  listMembers,
  removeMember,
  transferOwnership,
  updateMember,
} from './service.ts';

export const Member = builder.prismaObject('Member', {
  description: 'A member of a workspace, or an invitation (`status` invited or expired).',
  fields: (t) => exposeFields(t, memberFields),
});

export const OwnershipTransfer = builder.objectRef<Transfer>('OwnershipTransfer').implement({
  description: 'Both identities of an ownership transfer: the previous owner is now an admin.',
  fields: (t) => ({
    workspaceId: t.exposeString('workspaceId'),
    previousOwner: t.field({ type: Member, resolve: (r) => r.previousOwner }),
    newOwner: t.field({ type: Member, resolve: (r) => r.newOwner }),
  }),
});

const InviteMemberInput = builder.inputType('InviteMemberInput', {
  fields: (t) => ({
    email: t.string({ required: true }),
    role: t.string({ required: true, description: '`admin`, `member` or `read_only` (`owner` cannot be invited).' }),
  }),
});
const UpdateMemberInput = builder.inputType('UpdateMemberInput', {
  fields: (t) => ({ role: t.string({ required: true, description: '`admin`, `member` or `read_only`.' }) }),
});
const TransferOwnershipInput = builder.inputType('TransferOwnershipInput', {
  fields: (t) => ({ memberId: t.string({ required: true, description: 'A joined member; it becomes the owner.' }) }),
});
export type InviteMemberInput = typeof InviteMemberInput.$inferInput;
export type UpdateMemberInput = typeof UpdateMemberInput.$inferInput;
export type TransferOwnershipInput = typeof TransferOwnershipInput.$inferInput;

export const memberListArgs = builder.args((t) => ({
  status: t.string({ description: '`invited`, `joined`, `expired` or `removed`; default every status but removed.' }),
}));
export type ListMembersArgs = ListArgs<typeof memberListArgs>;

builder.queryFields((t) => ({
  members: t.connection({
    ...admission({ resource: 'member', scope: 'svc:member:read' }),
    type: Member,
    args: { workspaceId: t.arg.id({ required: true }), ...memberListArgs },
    resolve: (_, { workspaceId, ...args }, ctx) => listMembers(ctx, String(workspaceId), args),
  }),
}));

builder.mutationFields((t) => ({
  inviteMember: t.field({
    ...admission({ resource: 'member', scope: 'svc:member:write' }),
    type: Member,
    args: {
      workspaceId: t.arg.id({ required: true }),
      input: t.arg({ type: InviteMemberInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_, { workspaceId, input }, ctx) => inviteMember(ctx, String(workspaceId), input),
  }),
  updateMember: t.field({
    ...admission({ resource: 'member', scope: 'svc:member:write' }),
    type: Member,
    args: {
      workspaceId: t.arg.id({ required: true }),
      id: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateMemberInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_, { workspaceId, id, input }, ctx) => updateMember(ctx, String(workspaceId), String(id), input),
  }),
  removeMember: t.field({
    ...admission({ resource: 'member', scope: 'svc:member:write' }),
    type: Member,
    args: { workspaceId: t.arg.id({ required: true }), id: t.arg.id({ required: true }) },
    resolve: (_, { workspaceId, id }, ctx) => removeMember(ctx, String(workspaceId), String(id)),
  }),
  transferWorkspaceOwnership: t.field({
    ...admission({ resource: 'member', scope: 'svc:member:write' }),
    type: OwnershipTransfer,
    args: {
      workspaceId: t.arg.id({ required: true }),
      input: t.arg({ type: TransferOwnershipInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_, { workspaceId, input }, ctx) => transferOwnership(ctx, String(workspaceId), input),
  }),
}));
