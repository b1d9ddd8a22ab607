import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant, type Tx } from '../../core/db/client.ts';
import { sql as q, sqlOf, type AnyTx } from '../../core/db/sql.ts';
import { errorsFor } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { emit } from '../../core/outbox.ts';
import { lockName } from '../../core/locks.ts';
import { checkOrder, keysetList, listPageSize } from '../../core/pagination.ts';
import { findScoped, scoped, type RowScope } from '../../core/resource.ts';
import { checkHttpsUrl, checkLength, oneOf } from '../../core/validation.ts';
import { clock } from '../../core/clock.ts';
import { changedFrom, toWire } from '../../core/wire.ts';
import { templateDefaults, templateFields, templateKinds, type TemplateKind } from './fields.ts';
import type { Template } from '../../generated/prisma/client.ts';
import type { ListTemplatesArgs, TemplateInput } from './schema.ts';

const err = errorsFor('template');
const snapshot = (t: Template) => toWire(t, templateFields);

type Patch = Partial<Omit<Template, 'taxRate'>> & { taxRate?: number | null };

/** Optional text: null clears, otherwise 1..max characters. */
const text = (v: string | null, field: string, max: number) =>
  v === null ? null : checkLength(v, field, 1, max, 'template');
const flag = (v: boolean | null, field: string) => {
  if (v === null) throw err.validation(field, `${field} must be true or false`);
  return v;
};

/** Field rules shared by create and update; `undefined` means "not sent". */
function validate(input: TemplateInput): Patch {
  const p: Patch = {};
  if (input.name !== undefined) p.name = checkLength(input.name ?? '', 'name', 1, 255, 'template');
  if (input.isDefault !== undefined) p.isDefault = flag(input.isDefault, 'isDefault');
  if (input.footerText !== undefined) p.footerText = text(input.footerText, 'footerText', 500);
  // null restores the default line rather than leaving the receipt without one
  if (input.thankYouText !== undefined)
    p.thankYouText = text(input.thankYouText, 'thankYouText', 500) ?? templateDefaults.thankYouText;
  if (input.showTax !== undefined) p.showTax = flag(input.showTax, 'showTax');
  if (input.taxLabel !== undefined) p.taxLabel = text(input.taxLabel, 'taxLabel', 32) ?? templateDefaults.taxLabel;
  if (input.taxRate !== undefined) {
    const r = input.taxRate;
    // fractional (0.11 = 11 %), at most five decimal places (the column is numeric(6,5))
    if (r !== null && (!Number.isFinite(r) || r < 0 || r >= 1 || Math.round(r * 1e5) / 1e5 !== r)) {
      throw err.validation(
        'taxRate',
        'taxRate must be a fraction from 0 to below 1 with at most five decimals (0.11 = 11%)',
      );
    }
    p.taxRate = r;
  }
  if (input.cashierLabel !== undefined) p.cashierLabel = text(input.cashierLabel, 'cashierLabel', 64);
  if (input.showMerchantAddress !== undefined)
    p.showMerchantAddress = flag(input.showMerchantAddress, 'showMerchantAddress');
  if (input.merchantAddress !== undefined) p.merchantAddress = text(input.merchantAddress, 'merchantAddress', 500);
  if (input.merchantTaxId !== undefined) p.merchantTaxId = text(input.merchantTaxId, 'merchantTaxId', 64);
  if (input.logoUrl !== undefined) {
    p.logoUrl = input.logoUrl === null ? null : checkHttpsUrl(input.logoUrl, 'logoUrl', 'template');
  }
  if (input.accentColor !== undefined) {
    if (input.accentColor !== null && !/^#[0-9a-fA-F]{6}$/.test(input.accentColor))
      throw err.validation('accentColor', 'accentColor must be a #rrggbb colour');
    p.accentColor = input.accentColor?.toLowerCase() ?? null;
  }
  if (input.tagline !== undefined) p.tagline = text(input.tagline, 'tagline', 255);
  return p;
}

/** spec Receipt: a template that shows tax and names no rate uses the default 0.11. */
const withTaxDefault = (showTax: boolean, rate: number | null | undefined) =>
  showTax && rate == null ? templateDefaults.taxRate : rate;

/** Only one default per kind: the previous default loses the flag (with its own event). */
async function takeDefault(tx: Tx, scope: RowScope, kind: string, except: string | null, requestId: string) {
  const previous = await tx.template.findMany({
    where: { ...scoped(scope), kind, isDefault: true, ...(except ? { id: { not: except } } : {}) },
  });
  for (const t of previous) {
    const updated = await tx.template.update({
      where: { id: t.id },
      data: { isDefault: false, updatedAt: clock.now() },
    });
    await emit(tx, scope, 'template.updated', snapshot(updated), {
      requestId,
      previousAttributes: { isDefault: true },
    });
  }
}

const defaultLock = (tx: Tx, scope: RowScope, kind: string) =>
  lockName(tx, `template-default:${scope.workspaceId}:${scope.mode}:${kind}`);

export async function createTemplate(ctx: Context, input: TemplateInput) {
  const auth = authorize(ctx, 'svc:template:write');
  const kind = oneOf(input.kind ?? '', templateKinds, 'kind', 'template');
  const p = validate(input);
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    await defaultLock(tx, scope, kind);
    // The first template of a kind becomes its default unless the caller says otherwise.
    const hasDefault = (await tx.template.count({ where: { ...scoped(auth), kind, isDefault: true } })) > 0;
    const isDefault = p.isDefault ?? !hasDefault;
    if (isDefault) await takeDefault(tx, scope, kind, null, ctx.requestId);
    const now = clock.now();
    const showTax = p.showTax ?? templateDefaults.showTax;
    const row = await tx.template.create({
      data: {
        ...p,
        id: newId('template'),
        ...scoped(auth),
        kind,
        name: p.name!,
        isDefault,
        showTax,
        showMerchantAddress: p.showMerchantAddress ?? templateDefaults.showMerchantAddress,
        taxLabel: p.taxLabel ?? templateDefaults.taxLabel,
        thankYouText: p.thankYouText ?? templateDefaults.thankYouText,
        taxRate: withTaxDefault(showTax, p.taxRate) ?? null,
        createdAt: now,
        updatedAt: now,
      },
    });
    await emit(tx, scope, 'template.created', snapshot(row), { requestId: ctx.requestId });
    return row;
  });
}

export async function getTemplate(ctx: Context, id: string) {
  const auth = authorize(ctx, 'svc:template:read');
  return inTenant(tenant(auth), (tx) => findScoped(tx.template, auth, id, () => err.notFound('template')));
}

export async function updateTemplate(ctx: Context, id: string, input: TemplateInput) {
  const auth = authorize(ctx, 'svc:template:write');
  const p = validate(input);
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    const found = await findScoped(tx.template, auth, id, () => err.notFound('template'));
    // kind decides where a template may be used (receipts or invoices): fixed at creation.
    if (input.kind !== undefined && input.kind !== found.kind)
      throw err.validation('kind', 'kind cannot change after creation; create a new template');
    await defaultLock(tx, scope, found.kind);
    if (p.isDefault === true && !found.isDefault) await takeDefault(tx, scope, found.kind, id, ctx.requestId);
    const showTax = p.showTax ?? found.showTax;
    const rate = withTaxDefault(
      showTax,
      p.taxRate !== undefined ? p.taxRate : found.taxRate === null ? null : Number(found.taxRate),
    );
    if (rate !== (found.taxRate === null ? null : Number(found.taxRate))) p.taxRate = rate;
    const row = await tx.template.update({ where: { id }, data: { ...p, updatedAt: clock.now() } });
    const after = snapshot(row);
    await emit(tx, scope, 'template.updated', after, {
      requestId: ctx.requestId,
      previousAttributes: changedFrom(snapshot(found), after),
    });
    return row;
  });
}

export async function listTemplates(ctx: Context, args: ListTemplatesArgs) {
  const auth = authorize(ctx, 'svc:template:read');
  checkOrder(args.order, 'template');
  const kind = args.kind ? oneOf(args.kind, templateKinds, 'kind', 'template') : null;
  const filters = { kind, isDefault: args.isDefault ?? null };
  return keysetList(
    { args, workspaceId: auth.workspaceId, filters, limit: listPageSize.templates, column: 'createdAt' },
    (ks) =>
      inTenant(tenant(auth), (tx) =>
        tx.template.findMany({
          where: {
            ...scoped(auth),
            ...(kind ? { kind } : {}),
            ...(args.isDefault != null ? { isDefault: args.isDefault } : {}),
            ...ks.where,
          },
          orderBy: ks.orderBy,
          take: ks.take,
        }),
      ),
  );
}

/**
 * The template a document of `kind` uses: the one named (404 when unknown, in another workspace
 * or mode, or of the other kind: spec Checkout create), else the workspace's default, else null
 * (built-in defaults). For the checkout and invoice services.
 */
export async function templateForUse(
  tx: AnyTx,
  scope: RowScope,
  id: string | null | undefined,
  kind: TemplateKind,
  resource: 'checkout_session' | 'invoice',
): Promise<Template | null> {
  const sql = sqlOf(tx);
  if (id) {
    const [row] = await sql.query<Template>(
      q`SELECT * FROM templates WHERE id = ${id} AND "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}`,
    );
    if (!row || row.kind !== kind) throw errorsFor(resource).notFound(`${kind} template`);
    return row;
  }
  const [row] = await sql.query<Template>(
    q`SELECT * FROM templates
      WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode} AND kind = ${kind} AND "isDefault" LIMIT 1`,
  );
  return row ?? null;
}
