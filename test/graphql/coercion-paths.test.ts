/**
 * A value that fails GraphQL coercion names its whole path in `error.field`, as validation errors
 * do (`lines[0].quantity`, `portalFeatures.selfServeCancel`), over REST and POST /graphql alike
 * (src/graphql/operation.ts `coercionField`).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { allPortalFeatures, planBody } from '../helpers/plans.ts';
import { useServer } from '../helpers/server.ts';

const server = useServer();
const key = () => ({ 'idempotency-key': randomUUID() });
const line = { description: 'Konsultasi', quantity: 1, unitAmount: 50_000 };
const invoiceBody = (lines: unknown[]) => ({ customerId: 'cus_01JAAAAAAAAAAAAAAAAAAAAAAA', currency: 'IDR', lines });

describe('coercion errors name the whole path', () => {
  it('REST: nested fields, list items, unknown and missing-type fields', async () => {
    const ws = await server.workspace();
    const cases: [string, unknown, string][] = [
      ['/v1/invoices', invoiceBody([line, { ...line, quantity: 'two' }]), 'lines[1].quantity'],
      ['/v1/invoices', invoiceBody([{ ...line, bogus: 1 }]), 'lines[0].bogus'],
      ['/v1/invoices', invoiceBody([line, 7]), 'lines[1]'],
      ['/v1/invoices', invoiceBody([{ ...line, unitAmount: 'a lot' }]), 'lines[0].unitAmount'],
      ['/v1/invoices', { ...invoiceBody([line]), currency: 5 }, 'currency'],
      [
        '/v1/plans',
        planBody({ portalFeatures: { ...allPortalFeatures, selfServeCancel: 'yes' } }),
        'portalFeatures.selfServeCancel',
      ],
      [
        '/v1/plans',
        planBody({
          prices: [{ currency: 'IDR', model: 'flat', unitAmount: 1000, tiers: [{ upTo: 1, unitAmount: 'x' }] }],
        }),
        'prices[0].tiers[0].unitAmount',
      ],
    ];
    for (const [path, body, field] of cases) {
      const res = await ws.client.post(path, body, key());
      expect({ status: res.status, field: res.json.error?.field }, JSON.stringify(res.json)).toEqual({
        status: 400,
        field,
      });
      expect(res.json.error.code.toLowerCase()).toBe('validation_error');
    }
  });

  it('GraphQL: the path below the variable, a list variable by its name', async () => {
    const ws = await server.workspace();
    const create = 'mutation($input: CreateInvoiceInput!) { createInvoice(input: $input) { id } }';
    const bad = await ws.client.graphql(create, { input: invoiceBody([line, { ...line, quantity: 'two' }]) });
    expect(bad.json.errors?.[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', field: 'lines[1].quantity' });
    const plan = 'mutation($p: CreatePlanInput!, $k: String) { createPlan(input: $p, idempotencyKey: $k) { id } }';
    const features = await ws.client.graphql(plan, {
      k: randomUUID(),
      p: planBody({ portalFeatures: { ...allPortalFeatures, selfServeCancel: 'yes' } }),
    });
    expect(features.json.errors?.[0].extensions).toMatchObject({ field: 'portalFeatures.selfServeCancel' });
    const listVariable =
      'mutation($lines: [InvoiceLineInput!]!) { createInvoice(input: { customerId: "cus_x", currency: "IDR", lines: $lines }) { id } }';
    const items = await ws.client.graphql(listVariable, { lines: [line, { ...line, quantity: 'two' }] });
    expect(items.json.errors?.[0].extensions).toMatchObject({ field: 'lines[1].quantity' });
    // A scalar's own refusal (Money) too, spelled as the resource spells it on REST.
    const money = await ws.client.graphql(create, { input: invoiceBody([{ ...line, unitAmount: 'a lot' }]) });
    expect(money.json.errors?.[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', field: 'lines[0].unitAmount' });
  });
});
