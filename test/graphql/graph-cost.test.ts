// The document cost (src/graphql/cost.ts): objects a document may fetch, from the schema and the
// request's variables. The refusal over HTTP, before anything runs, is in graph-edges.test.ts.
import { describe, expect, it } from 'vitest';
import { getNamedType, isObjectType, parse } from 'graphql';
import { schema } from '../../schema/index.ts';
import { costLimits, documentCost } from '../../src/graphql/cost.ts';
import { listPageSize } from '../../src/core/pagination.ts';

const cost = (doc: string, variables?: Record<string, unknown>) => documentCost(schema, parse(doc), null, variables);

describe('document cost', () => {
  it('a to-one field counts 1; scalars and connection plumbing count nothing', () => {
    expect(cost('{ payment(id: "p") { id amount } }')).toBe(1);
    expect(cost('{ payment(id: "p") { id customer { id } checkoutSession { id customer { id } } } }')).toBe(4);
    expect(cost('{ payments(first: 5) { limit pageInfo { hasNextPage } edges { cursor node { id } } } }')).toBe(5);
  });

  it('a connection counts its page and multiplies what is under it', () => {
    // 10 payments, each with its customer (10) and up to 7 refunds (70), each with its payment (70)
    const doc = `{ payments(first: 10) { edges { node { customer { id }
      refunds(first: 7) { edges { node { payment { id } } } } } } } }`;
    expect(cost(doc)).toBe(10 + 10 + 70 + 70);
  });

  it('first from variables (and their defaults); an omitted first is the edge page or the largest default', () => {
    const doc = 'query ($n: Int = 3) { customer(id: "c") { payments(first: $n) { edges { node { id } } } } }';
    expect(cost(doc)).toBe(1 + 3);
    expect(cost(doc, { n: 40 })).toBe(1 + 40);
    // computed once per parsed document, unless a variable sets a page
    const same = parse(doc);
    expect([3, 40, 7].map((n) => documentCost(schema, same, null, { n }))).toEqual([4, 41, 8]);
    // Customer.payments pages 20 by default (declared by the edge); a root list counts its resolver's page
    expect(cost('{ customer(id: "c") { payments { edges { node { id } } } } }')).toBe(1 + 20);
    expect(cost('{ refunds { edges { node { id } } } }')).toBe(listPageSize.refunds);
    expect(cost('{ refunds { edges { node { id } } } }')).toBe(20);
    expect(cost('{ apiKeys { edges { node { id } } } }')).toBe(50);
  });

  it('every root list has its default page in listPageSize (none falls back to the guess)', () => {
    const roots = Object.values(schema.getQueryType()!.getFields())
      .filter((f) => isObjectType(getNamedType(f.type)) && 'pageInfo' in (getNamedType(f.type) as any).getFields())
      .map((f) => f.name)
      .sort();
    expect(roots.length).toBeGreaterThan(10);
    expect(roots.filter((name) => !(name in listPageSize))).toEqual([]);
    expect(Object.keys(listPageSize).sort()).toEqual(roots);
  });

  it('plain lists count their declared size (or 10); fragments and unions count every branch', () => {
    expect(cost('{ payment(id: "p") { ledgerEntries { id } } }')).toBe(1 + costLimits.defaultList);
    const doc = `{ events(first: 2) { edges { node { ...o } } } }
      fragment o on Event { object { ... on Payment { customer { id } } ... on Refund { payment { id } } } }`;
    // 2 events, each: its object (1) + the Payment branch's customer (1) + the Refund branch's payment (1)
    expect(cost(doc)).toBe(2 + 2 * 3);
  });

  it('a customer page is well under the limit; nested full pages are over it', () => {
    const page = `{ customer(id: "c") { payments(first: 20) { edges { node { refunds { edges { node { id } } }
      receipt { receiptId } } } } checkoutSessions(first: 20) { edges { node { id } } } } }`;
    expect(cost(page)).toBe(1 + 20 + 20 * 20 + 20 + 20);
    const deep = `{ customers(first: 100) { edges { node { payments(first: 100) { edges { node { id } } } } } } }`;
    expect(cost(deep)).toBe(100 + 100 * 100);
    expect(cost(deep)).toBeGreaterThan(costLimits.maxNodes);
  });
});
