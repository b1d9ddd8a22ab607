import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant, tenantQuery, type Tx } from '../../core/db/client.ts';
import { sql } from '../../core/db/sql.ts';
import { errorsFor } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { emit } from '../../core/outbox.ts';
import { checkOrder, keysetList, listPageSize } from '../../core/pagination.ts';
import { scoped, type RowScope } from '../../core/resource.ts';
import { checkLength, validateMetadata } from '../../core/validation.ts';
import { clock } from '../../core/clock.ts';
import { changedFrom, toWire } from '../../core/wire.ts';
import { customerFields } from './fields.ts';
import type { CustomerInput, CustomerPatch, ListCustomersArgs } from './schema.ts';
import { checkClockForCustomer, lockCustomer } from './rows.ts';
import { defaultMethodSet } from './hooks.ts';
import { Prisma, type Customer } from '../../generated/prisma/client.ts';

const err = errorsFor('customer');
const emailShape = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
// Digits with the usual separators and an optional leading +; at least 4 digits.
const phoneShape = /^\+?[0-9 ().-]{4,32}$/;
const externalIdShape = /^[\x21-\x7E]{1,128}$/;

const snapshot = (c: Customer) => toWire(c, customerFields);

/** Field rules shared by create and update; `undefined` means "not sent", null clears. */
function validate(
  input: CustomerInput | CustomerPatch,
): Partial<Pick<Customer, 'name' | 'email' | 'phone' | 'externalId'>> & { metadata?: Record<string, string> | null } {
  const out: ReturnType<typeof validate> = {};
  if (input.name !== undefined)
    out.name = input.name === null ? null : checkLength(input.name, 'name', 1, 255, 'customer');
  if (input.email !== undefined) {
    if (input.email !== null && (input.email.length > 254 || !emailShape.test(input.email)))
      throw err.validation('email', 'email must be an email address');
    out.email = input.email;
  }
  if (input.phone !== undefined) {
    if (input.phone !== null && (!phoneShape.test(input.phone) || (input.phone.match(/\d/g)?.length ?? 0) < 4)) {
      throw err.validation('phone', 'phone must be a telephone number: digits, spaces, ()-. and an optional leading +');
    }
    out.phone = input.phone;
  }
  if (input.externalId !== undefined) {
    if (input.externalId !== null && !externalIdShape.test(input.externalId))
      throw err.validation('externalId', 'externalId is 1-128 printable ASCII characters without spaces');
    out.externalId = input.externalId;
  }
  if (input.metadata !== undefined)
    out.metadata = input.metadata === null ? null : validateMetadata(input.metadata, 'metadata', 'customer');
  return out;
}

/** A taken externalId is 409 `conflict` naming it (a concurrent writer meets the unique index instead). */
async function checkExternalId(tx: Tx, scope: RowScope, externalId: string | null | undefined, self?: string) {
  if (externalId === undefined || externalId === null) return;
  const taken = await tx.customer.findFirst({
    where: { ...scoped(scope), externalId, ...(self ? { id: { not: self } } : {}) },
    select: { id: true },
  });
  if (taken) throw externalIdTaken();
}
const externalIdTaken = () => err.of('conflict', 'Another customer has this externalId', 'externalId');
/** The unique index's refusal (a writer that raced the check above) as the same 409. */
const asConflict = (e: unknown): never => {
  const p = e as { code?: string; meta?: unknown };
  if (p.code === 'P2002' && /externalId/.test(JSON.stringify(p.meta ?? null))) throw externalIdTaken();
  throw e;
};

export async function createCustomer(ctx: Context, input: CustomerInput) {
  const auth = authorize(ctx, 'svc:customer:write');
  const fields = validate(input);
  const scope = tenant(auth);
  const testClockId = input.testClockId ?? null;
  return inTenant(scope, async (tx) => {
    const now = clock.now();
    if (testClockId !== null) await checkClockForCustomer(tx, auth, testClockId);
    await checkExternalId(tx, auth, fields.externalId);
    const row = await tx.customer
      .create({
        data: {
          id: newId('customer'),
          ...scoped(auth),
          name: fields.name ?? null,
          email: fields.email ?? null,
          phone: fields.phone ?? null,
          externalId: fields.externalId ?? null,
          metadata: fields.metadata ?? undefined,
          testClockId,
          createdAt: now,
          updatedAt: now,
        },
      })
      .catch(asConflict);
    await emit(tx, scope, 'customer.created', snapshot(row), { requestId: ctx.requestId });
    return row;
  });
}

export async function getCustomer(ctx: Context, id: string) {
  const auth = authorize(ctx, 'svc:customer:read');
  // One statement on the raw path, not a Prisma transaction: a dashboard's customer page starts here (bench:graph).
  const [row] = await tenantQuery<Customer>(
    tenant(auth),
    sql`SELECT * FROM customers WHERE "workspaceId" = ${auth.workspaceId} AND mode = ${auth.mode} AND id = ${id}`,
  );
  if (!row) throw err.notFound('customer');
  return row;
}

/** Metadata replaces the stored object wholesale; null clears it (as on plans). */
export async function updateCustomer(ctx: Context, id: string, input: CustomerPatch) {
  const auth = authorize(ctx, 'svc:customer:write');
  const patch = validate(input);
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    // Locked first (lock order: customer, then its methods): two PATCHes of one customer run one after
    // the other, each announcing what the other left.
    const found = await lockCustomer(tx, scope, id);
    if (!found) throw err.notFound('customer');
    const { metadata, ...rest } = patch;
    const data: Prisma.CustomerUpdateInput = { ...rest, updatedAt: clock.now() };
    if (metadata !== undefined) data.metadata = metadata === null ? Prisma.DbNull : metadata;
    const defaultId = input.defaultPaymentMethodId;
    if (defaultId !== undefined) {
      await defaultMethodSet.run(tx, scope, id, defaultId, {
        accountId: auth.accountId,
        requestId: ctx.requestId,
        source: ctx.source ?? 'api',
        at: clock.now(),
      });
      data.defaultPaymentMethodId = defaultId;
    }
    await checkExternalId(tx, scope, patch.externalId, id);
    const row = await tx.customer.update({ where: { id }, data }).catch(asConflict);
    const after = snapshot(row);
    await emit(tx, scope, 'customer.updated', after, {
      requestId: ctx.requestId,
      // The portal's default change says so (`metadata.source: portal`).
      source: ctx.source,
      previousAttributes: changedFrom(snapshot(found), after),
    });
    return row;
  });
}

export async function listCustomers(ctx: Context, args: ListCustomersArgs) {
  const auth = authorize(ctx, 'svc:customer:read');
  checkOrder(args.order, 'customer');
  const metadata = args.metadata ? validateMetadata(args.metadata, 'metadata', 'customer') : null;
  const filters = {
    email: args.email ?? null,
    since: args.since?.toISOString() ?? null,
    until: args.until?.toISOString() ?? null,
    metadata: metadata ? Object.entries(metadata).sort() : null,
  };
  return keysetList(
    { args, workspaceId: auth.workspaceId, filters, limit: listPageSize.customers, column: 'createdAt' },
    (ks) =>
      inTenant(tenant(auth), (tx) =>
        tx.customer.findMany({
          where: {
            ...scoped(auth),
            ...(args.email ? { email: { equals: args.email, mode: 'insensitive' } } : {}),
            AND: [
              args.since ? { createdAt: { gte: args.since } } : {},
              args.until ? { createdAt: { lt: args.until } } : {},
              // spec Conventions: metadata[<key>] is an exact match
              ...Object.entries(metadata ?? {}).map(([k, v]) => ({ metadata: { path: [k], equals: v } })),
              ks.where,
            ],
          },
          orderBy: ks.orderBy,
          take: ks.take,
        }),
      ),
  );
}
