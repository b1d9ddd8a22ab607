import { builder } from '../../graphql/builder.ts';
import { admission } from '../../graphql/operation.ts';
import { exposeFields, type FieldSpec, type ListArgs } from '../../graphql/fields.ts';
import type { ApiKey as Row } from '../../generated/prisma/client.ts';
import { createApiKey, getApiKey, listApiKeys, revokeApiKey } from './service.ts';

type ApiKeyShape = Row & { key?: string };

export const apiKeyFields: FieldSpec<ApiKeyShape> = {
  id: { kind: 'id' },
  keyId: { kind: 'string' },
  name: { kind: 'string' },
  role: { kind: 'string' },
  scopes: { kind: 'strings' },
  environment: { kind: 'string', from: (r) => r.mode },
  lastUsedAt: { kind: 'date', nullable: true },
  createdAt: { kind: 'date' },
  revokedAt: { kind: 'date', nullable: true },
  key: { kind: 'string', nullable: true, secret: true, from: (r) => r.key ?? null },
};

export const ApiKey = builder.prismaObject('ApiKey', {
  description: 'An HMAC credential. `key` is set only in the create response.',
  fields: (t) => exposeFields(t, apiKeyFields),
});

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    environment: t.string(),
    role: t.string(),
    scopes: t.stringList(),
  }),
});

export type CreateApiKeyInput = typeof CreateApiKeyInput.$inferInput;

export const listArgs = builder.args((t) => ({ environment: t.string(), includeRevoked: t.boolean() }));
export type ListApiKeysArgs = ListArgs<typeof listArgs>;

builder.queryFields((t) => ({
  apiKey: t.field({
    ...admission({ resource: 'api_key', scope: 'svc:api_key:read' }),
    type: ApiKey,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getApiKey(ctx, String(id)),
  }),
  apiKeys: t.connection({
    ...admission({ resource: 'api_key', scope: 'svc:api_key:read' }),
    type: ApiKey,
    args: listArgs,
    resolve: (_, args, ctx) => listApiKeys(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createApiKey: t.field({
    ...admission({ resource: 'api_key', scope: 'svc:api_key:write' }),
    type: ApiKey,
    args: { input: t.arg({ type: CreateApiKeyInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => createApiKey(ctx, input),
  }),
  revokeApiKey: t.field({
    ...admission({ resource: 'api_key', scope: 'svc:api_key:write' }),
    type: ApiKey,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => revokeApiKey(ctx, String(id)),
  }),
}));
