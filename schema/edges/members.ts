// Workspace.members (docs/architecture.md, "Edges"): the team of the workspace the caller acts on.
import { builder } from '../../src/graphql/builder.ts';
import { Workspace } from '../../src/modules/workspaces/schema.ts';
import { Member, memberListArgs } from '../../src/modules/members/schema.ts';
import { listMembers } from '../../src/modules/members/service.ts';

builder.objectFields(Workspace, (t) => ({
  members: t.connection({
    type: Member,
    nullable: true,
    args: memberListArgs,
    // Another workspace (a partner's list of merchants) is null: act on it with X-Svc-On-Behalf-Of.
    resolve: (w, args, ctx) => (ctx.auth?.workspaceId === w.id ? listMembers(ctx, w.id, args) : null),
  }),
}));
