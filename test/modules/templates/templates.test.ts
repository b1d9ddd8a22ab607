import { describe, expect, it } from 'vitest';
import { useServer, createClient } from '../../helpers/server.ts';
import { inTenant } from '../../../src/core/db/client.ts';
import { templateForUse } from '../../../src/modules/templates/service.ts';

const server = useServer();

type Res = { status: number; json: any };
function expectError(res: Res, status: number, code: string, field?: string) {
  expect({ status: res.status, code: res.json?.error?.code, field: res.json?.error?.field }).toEqual({
    status,
    code,
    field: field ?? res.json?.error?.field,
  });
  expect(res.json.data).toBeNull();
}
const ids = (res: Res) => (res.json.data as { id: string }[]).map((r) => r.id);
const FIELDS = [
  'accentColor',
  'cashierLabel',
  'createdAt',
  'footerText',
  'id',
  'isDefault',
  'kind',
  'logoUrl',
  'merchantAddress',
  'merchantTaxId',
  'name',
  'showMerchantAddress',
  'showTax',
  'tagline',
  'taxLabel',
  'taxRate',
  'thankYouText',
  'updatedAt',
];

describe('POST /v1/templates', () => {
  it('creates a receipt template with the spec defaults; the first of a kind is its default', async () => {
    const ws = await server.workspace();
    const res = await ws.client.post('/v1/templates', { kind: 'receipt', name: 'Counter' });
    expect(res.status).toBe(201);
    const t = res.json.data;
    expect(Object.keys(t).sort()).toEqual(FIELDS);
    expect(t).toMatchObject({
      kind: 'receipt',
      name: 'Counter',
      isDefault: true,
      showTax: false,
      taxLabel: 'PPN',
      taxRate: null,
      thankYouText: 'Terima kasih / Thank you',
      showMerchantAddress: true,
      footerText: null,
      cashierLabel: null,
      merchantAddress: null,
      merchantTaxId: null,
      logoUrl: null,
      accentColor: null,
      tagline: null,
    });
    expect(t.id).toMatch(/^tpl_[0-9A-HJKMNP-TV-Z]{26}$/);
    const events = (await ws.client.get(`/v1/events?objectId=${t.id}`)).json.data;
    expect(events.map((e: { type: string }) => e.type)).toEqual(['template.created']);
    expect(events[0].data.object).toEqual(t);
  });

  it('stores every field; showTax without a rate uses 0.11; colours are lower-cased', async () => {
    const ws = await server.workspace();
    const body = {
      kind: 'receipt',
      name: 'Full',
      footerText: 'Barang yang sudah dibeli\ntidak dapat dikembalikan',
      thankYouText: 'Thanks!',
      showTax: true,
      taxLabel: 'VAT',
      cashierLabel: 'Kasir',
      showMerchantAddress: false,
      merchantAddress: 'Jl. Sudirman 1, Jakarta',
      merchantTaxId: '01.234.567.8-901.000',
      logoUrl: 'https://cdn.example.com/logo.png',
      accentColor: '#0F766E',
      tagline: 'Kopi enak',
    };
    const t = (await ws.client.post('/v1/templates', body)).json.data;
    expect(t).toMatchObject({ ...body, taxRate: 0.11, accentColor: '#0f766e' });
    const custom = (
      await ws.client.post('/v1/templates', { kind: 'receipt', name: 'Rate', showTax: true, taxRate: 0.12345 })
    ).json.data;
    expect(custom.taxRate).toBe(0.12345);
    const zero = (await ws.client.post('/v1/templates', { kind: 'invoice', name: 'Zero', showTax: true, taxRate: 0 }))
      .json.data;
    expect(zero.taxRate).toBe(0);
  });

  it.each([
    [{ name: 'x' }, 'kind'],
    [{ kind: 'letter', name: 'x' }, 'kind'],
    [{ kind: 'receipt' }, 'name'],
    [{ kind: 'receipt', name: '' }, 'name'],
    [{ kind: 'receipt', name: 'x'.repeat(256) }, 'name'],
    [{ kind: 'receipt', name: 'x', taxRate: 1 }, 'taxRate'],
    [{ kind: 'receipt', name: 'x', taxRate: -0.1 }, 'taxRate'],
    [{ kind: 'receipt', name: 'x', taxRate: 0.123456 }, 'taxRate'],
    [{ kind: 'receipt', name: 'x', taxRate: '0.11' }, 'taxRate'],
    [{ kind: 'receipt', name: 'x', accentColor: 'red' }, 'accentColor'],
    [{ kind: 'receipt', name: 'x', logoUrl: 'http://cdn.example.com/logo.png' }, 'logoUrl'],
    [{ kind: 'receipt', name: 'x', logoUrl: 'not a url' }, 'logoUrl'],
    [{ kind: 'receipt', name: 'x', footerText: 'f'.repeat(501) }, 'footerText'],
    [{ kind: 'receipt', name: 'x', taxLabel: 'l'.repeat(33) }, 'taxLabel'],
    [{ kind: 'receipt', name: 'x', cashierLabel: '' }, 'cashierLabel'],
    [{ kind: 'receipt', name: 'x', showTax: null }, 'showTax'],
    [{ kind: 'receipt', name: 'x', showTax: 'yes' }, 'showTax'],
    [{ kind: 'receipt', name: 'x', isDefault: null }, 'isDefault'],
    [{ kind: 'receipt', name: 'x', template: {} }, 'template'],
  ])('%j is 400 validation_error naming %s', async (body, field) => {
    const ws = await server.workspace();
    expectError(await ws.client.post('/v1/templates', body), 400, 'validation_error', field);
  });
});

describe('default templates', () => {
  it('one default per kind and mode: a new default takes the flag, with template.updated for the old one', async () => {
    const ws = await server.workspace();
    const first = (await ws.client.post('/v1/templates', { kind: 'receipt', name: 'First' })).json.data;
    const second = (await ws.client.post('/v1/templates', { kind: 'receipt', name: 'Second' })).json.data;
    expect(second.isDefault).toBe(false);
    const invoice = (await ws.client.post('/v1/templates', { kind: 'invoice', name: 'Invoice' })).json.data;
    expect(invoice.isDefault).toBe(true);
    const third = (await ws.client.post('/v1/templates', { kind: 'receipt', name: 'Third', isDefault: true })).json
      .data;
    expect(third.isDefault).toBe(true);
    expect((await ws.client.get(`/v1/templates/${first.id}`)).json.data.isDefault).toBe(false);
    expect((await ws.client.get(`/v1/templates/${invoice.id}`)).json.data.isDefault).toBe(true);
    const firstEvents = (await ws.client.get(`/v1/events?objectId=${first.id}`)).json.data;
    expect(firstEvents[0]).toMatchObject({
      type: 'template.updated',
      data: { previousAttributes: { isDefault: true }, object: { isDefault: false } },
    });

    // PATCH isDefault moves it back; the list filter sees exactly one default receipt template
    expect((await ws.client.patch(`/v1/templates/${second.id}`, { isDefault: true })).json.data.isDefault).toBe(true);
    expect(ids(await ws.client.get('/v1/templates?kind=receipt&isDefault=true'))).toEqual([second.id]);
    // unsetting the default leaves the kind without one (documents fall back to built-in defaults)
    expect((await ws.client.patch(`/v1/templates/${second.id}`, { isDefault: false })).json.data.isDefault).toBe(false);
    expect(ids(await ws.client.get('/v1/templates?kind=receipt&isDefault=true'))).toEqual([]);
  });

  it('concurrent creates of defaults leave exactly one default and no errors', async () => {
    const ws = await server.workspace();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        ws.client.post('/v1/templates', { kind: 'receipt', name: `T${i}`, isDefault: true }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect((await ws.client.get('/v1/templates?kind=receipt&isDefault=true')).json.data).toHaveLength(1);
  });
});

describe('PATCH /v1/templates/:id', () => {
  it('changes what is sent; null clears optional text and restores default labels; previousAttributes lists changes only', async () => {
    const ws = await server.workspace();
    const t = (
      await ws.client.post('/v1/templates', {
        kind: 'receipt',
        name: 'Old',
        footerText: 'foot',
        thankYouText: 'Makasih',
        taxLabel: 'VAT',
      })
    ).json.data;
    const res = await ws.client.patch(`/v1/templates/${t.id}`, {
      name: 'New',
      footerText: null,
      thankYouText: null,
      taxLabel: null,
      kind: 'receipt',
      tagline: null,
    });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      id: t.id,
      name: 'New',
      footerText: null,
      thankYouText: 'Terima kasih / Thank you',
      taxLabel: 'PPN',
      kind: 'receipt',
      createdAt: t.createdAt,
    });
    const [updated] = (await ws.client.get(`/v1/events?objectId=${t.id}&type=template.updated`)).json.data;
    expect(updated.data.previousAttributes).toEqual({
      name: 'Old',
      footerText: 'foot',
      thankYouText: 'Makasih',
      taxLabel: 'VAT',
    });
  });

  it('turning showTax on applies the default rate; kind is immutable', async () => {
    const ws = await server.workspace();
    const t = (await ws.client.post('/v1/templates', { kind: 'receipt', name: 'T' })).json.data;
    expect((await ws.client.patch(`/v1/templates/${t.id}`, { showTax: true })).json.data).toMatchObject({
      showTax: true,
      taxRate: 0.11,
    });
    expect((await ws.client.patch(`/v1/templates/${t.id}`, { taxRate: 0.1 })).json.data.taxRate).toBe(0.1);
    expectError(await ws.client.patch(`/v1/templates/${t.id}`, { kind: 'invoice' }), 400, 'validation_error', 'kind');
    expectError(await ws.client.patch(`/v1/templates/${t.id}`, { taxRate: 2 }), 400, 'validation_error', 'taxRate');
    expectError(await ws.client.patch(`/v1/templates/${t.id}`, { name: null }), 400, 'validation_error', 'name');
    expectError(await ws.client.patch('/v1/templates/tpl_01HZZZZZZZZZZZZZZZZZZZZZZZ', { name: 'x' }), 404, 'not_found');
  });
});

describe('GET /v1/templates', () => {
  it('lists newest first, filters by kind, pages with cursors; other workspaces see nothing', async () => {
    const ws = await server.workspace();
    const made = [];
    for (const [kind, name] of [
      ['receipt', 'a'],
      ['invoice', 'b'],
      ['receipt', 'c'],
      ['receipt', 'd'],
    ])
      made.push((await ws.client.post('/v1/templates', { kind, name })).json.data);
    const all = await ws.client.get('/v1/templates');
    expect(ids(all)).toEqual(made.map((t) => t.id).reverse());
    expect(all.json.meta.page).toEqual({ limit: 50, hasMore: false, nextCursor: null });
    expect(ids(await ws.client.get('/v1/templates?kind=receipt&order=asc'))).toEqual([
      made[0].id,
      made[2].id,
      made[3].id,
    ]);
    const p1 = await ws.client.get('/v1/templates?kind=receipt&limit=2');
    expect(p1.json.meta.page.hasMore).toBe(true);
    const p2 = await ws.client.get(
      `/v1/templates?kind=receipt&limit=2&cursor=${encodeURIComponent(p1.json.meta.page.nextCursor)}`,
    );
    expect([...ids(p1), ...ids(p2)]).toEqual([made[3].id, made[2].id, made[0].id]);
    expect(p2.json.meta.page).toEqual({ limit: 2, hasMore: false, nextCursor: null });
    expectError(await ws.client.get('/v1/templates?kind=letter'), 400, 'validation_error', 'kind');
    expectError(
      await ws.client.get(
        `/v1/templates?kind=invoice&limit=2&cursor=${encodeURIComponent(p1.json.meta.page.nextCursor)}`,
      ),
      400,
      'invalid_cursor',
    );

    const other = await server.workspace();
    expect((await other.client.get('/v1/templates')).json.data).toEqual([]);
    expectError(await other.client.get(`/v1/templates/${made[0].id}`), 404, 'not_found');
    expectError(await other.client.patch(`/v1/templates/${made[0].id}`, { name: 'mine now' }), 404, 'not_found');
  });

  it('GraphQL returns the same objects and codes', async () => {
    const ws = await server.workspace();
    const t = (await ws.client.post('/v1/templates', { kind: 'invoice', name: 'Inv', showTax: true })).json.data;
    const gql = await ws.client.graphql(
      `query { template(id: "${t.id}") { ${FIELDS.join(' ')} } templates(kind: "invoice") { edges { node { id } } } }`,
    );
    expect(gql.json.errors).toBeUndefined();
    expect(gql.json.data.template).toEqual(t);
    expect(gql.json.data.templates.edges).toEqual([{ node: { id: t.id } }]);
    const bad = await ws.client.graphql(
      'mutation { createTemplate(input: {kind: "receipt", name: "x", accentColor: "blue"}) { id } }',
    );
    expect(bad.json.errors?.[0].extensions).toEqual({ code: 'validation_error', field: 'accentColor' });
  });

  it('read_only keys read; writes need svc:template:write', async () => {
    const ws = await server.workspace();
    const ro = (await ws.client.post('/v1/api-keys', { name: 'ro', role: 'read_only' })).json.data;
    const client = createClient({ baseUrl: server.url, keyId: ro.keyId, secret: ro.key });
    expect((await client.get('/v1/templates')).status).toBe(200);
    expectError(await client.post('/v1/templates', { kind: 'receipt', name: 'x' }), 403, 'insufficient_scope');
  });
});

describe('templateForUse (for checkout sessions and invoices)', () => {
  it('the named template of the right kind, else 404 not_found; without a name the default or null', async () => {
    const ws = await server.workspace();
    const scope = { workspaceId: ws.workspaceId, mode: 'test' as const };
    const use = (id: string | null, kind: 'receipt' | 'invoice') =>
      inTenant({ workspaceId: ws.workspaceId, modes: ['test'] }, (tx) =>
        templateForUse(tx, scope, id, kind, 'checkout_session'),
      );
    expect(await use(null, 'receipt')).toBeNull();
    const r = (await ws.client.post('/v1/templates', { kind: 'receipt', name: 'R' })).json.data;
    const i = (await ws.client.post('/v1/templates', { kind: 'invoice', name: 'I' })).json.data;
    expect((await use(null, 'receipt'))?.id).toBe(r.id);
    expect((await use(r.id, 'receipt'))?.id).toBe(r.id);
    await expect(use(i.id, 'receipt')).rejects.toMatchObject({ canonical: 'not_found' });
    await expect(use('tpl_01HZZZZZZZZZZZZZZZZZZZZZZZ', 'receipt')).rejects.toMatchObject({ canonical: 'not_found' });
    const other = await server.workspace();
    const foreign = (await other.client.post('/v1/templates', { kind: 'receipt', name: 'F' })).json.data;
    await expect(use(foreign.id, 'receipt')).rejects.toMatchObject({ canonical: 'not_found' });
  });
});
