import { oneBy, type Source } from '../../core/loaders.ts';
import type { ApiKey } from '../../generated/prisma/client.ts';

/** Batched reads of API keys for the graph's edges (src/core/loaders.ts): in the caller's mode. */
const apiKeys: Source<ApiKey> = { table: 'api_keys', scope: 'svc:api_key:read' };

export const apiKeyById = oneBy(apiKeys);
