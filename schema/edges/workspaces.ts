// Workspace's edges and the caller's own view (docs/architecture.md, "Edges").
import { builder } from '../../src/graphql/builder.ts';
import type { Context } from '../../src/core/context.ts';
import { DomainError } from '../../src/core/errors.ts';
import { Adapters } from '../../src/modules/adapters/schema.ts';
import { listAdapters } from '../../src/modules/adapters/service.ts';
import { ApiKey, listArgs as apiKeyListArgs } from '../../src/modules/api-keys/schema.ts';
import { listApiKeys } from '../../src/modules/api-keys/service.ts';
import { apiKeyById } from '../../src/modules/api-keys/loaders.ts';
import { WebhookEndpoint, endpointListArgs } from '../../src/modules/webhooks/schema.ts';
import { listWebhookEndpoints } from '../../src/modules/webhooks/service.ts';
import { Workspace } from '../../src/modules/workspaces/schema.ts';
import { getWorkspace } from '../../src/modules/workspaces/service.ts';

// A workspace's own lists are read in the caller's tenant scope, which is the acting workspace: on
// any other workspace (a partner's list of merchants) they are null; act on it with X-Svc-On-Behalf-Of.
const own = (ctx: Context, workspaceId: string) => ctx.auth?.workspaceId === workspaceId;

builder.objectFields(Workspace, (t) => ({
  apiKeys: t.connection({
    type: ApiKey,
    nullable: true,
    args: apiKeyListArgs,
    resolve: (w, args, ctx) => (own(ctx, w.id) ? listApiKeys(ctx, args) : null),
  }),
  webhookEndpoints: t.connection({
    type: WebhookEndpoint,
    nullable: true,
    args: endpointListArgs,
    resolve: (w, args, ctx) => (own(ctx, w.id) ? listWebhookEndpoints(ctx, args) : null),
  }),
  adapters: t.field({
    type: Adapters,
    nullable: true,
    resolve: (w, _, ctx) => (own(ctx, w.id) ? listAdapters(ctx) : null),
  }),
}));

const Viewer = builder.objectRef<NonNullable<Context['auth']>>('Viewer').implement({
  description: 'The caller: the signing key, the workspace it acts on and its mode.',
  fields: (t) => ({
    mode: t.exposeString('mode'),
    workspaceId: t.exposeString('workspaceId'),
    accountId: t.exposeString('accountId'),
    role: t.exposeString('role'),
    scopes: t.stringList({ resolve: (a) => a.scopes }),
    apiKey: t.field({ type: ApiKey, nullable: true, resolve: (a, _, ctx, info) => apiKeyById(ctx, a.apiKeyId, info) }),
    workspace: t.field({ type: Workspace, resolve: (a, _, ctx) => getWorkspace(ctx, a.workspaceId) }),
  }),
});

builder.queryFields((t) => ({
  me: t.field({
    type: Viewer,
    resolve: (_, __, ctx) => {
      if (!ctx.auth) throw new DomainError('invalid_signature', 'This operation needs a signed request');
      return ctx.auth;
    },
  }),
}));
