// A root list's default page, one source (src/core/pagination.ts listPageSize): what the resolver
// returns without `first` (the connection's `limit`, over HTTP) is what the document cost counts.
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { documentCost } from '../../src/graphql/cost.ts';
import { schema } from '../../schema/index.ts';
import { listPageSize } from '../../src/core/pagination.ts';
import { useServer } from '../helpers/server.ts';

const server = useServer({ background: 'none' });

describe('root lists: default page', () => {
  it('the resolver pages by the size the cost counts, for every root list', async () => {
    const ws = await server.workspace();
    // webhookDeliveries needs an endpoint id: its size is checked by the cost test alone.
    const names = Object.keys(listPageSize).filter((n) => n !== 'webhookDeliveries');
    const args: Record<string, string> = { members: `(workspaceId: "${ws.workspaceId}")` };
    // At most 20 root fields per operation (graphql-hardening): asked in pages of 20.
    const data: Record<string, { limit: number }> = {};
    for (let i = 0; i < names.length; i += 20) {
      const doc = `{ ${names
        .slice(i, i + 20)
        .map((n) => `${n}${args[n] ?? ''} { limit }`)
        .join(' ')} }`;
      const res = await ws.client.graphql(doc);
      expect(res.json.errors, res.text).toBeUndefined();
      Object.assign(data, res.json.data);
    }
    for (const n of names) {
      const counted = documentCost(schema, parse(`{ ${n} { edges { node { __typename } } } }`));
      expect({ n, limit: data[n].limit }).toEqual({ n, limit: counted });
      expect(counted).toBe(listPageSize[n as keyof typeof listPageSize]);
    }
  });
});
