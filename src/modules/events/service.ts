import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { db, inTenant, type Mode } from '../../core/db/client.ts';
import { DomainError, errorsFor } from '../../core/errors.ts';
import { checkOrder, listPageSize, pageRequest, toConnection } from '../../core/pagination.ts';
import type { ListEventsArgs } from './schema.ts';
import type { Auth } from '../../core/auth/authenticate.ts';
import { eventBus, eventsAfter, type EventNotice, type PublishedEventRow } from '../../core/pubsub.ts';
import { Repeater } from 'graphql-yoga';

const err = errorsFor('event');

/** spec Events: test-mode keys see test and live events of their workspace; live keys, live only. */
export const visibleModes = (mode: Mode): Mode[] => (mode === 'test' ? ['test', 'live'] : ['live']);

export async function getEvent(ctx: Context, id: string) {
  const auth = authorize(ctx, 'svc:event:read');
  const row = await inTenant(tenant(auth, visibleModes(auth.mode)), (tx) =>
    tx.event.findFirst({ where: { id, workspaceId: auth.workspaceId } }),
  );
  if (!row) throw err.notFound('event');
  return row;
}

/** `workspaceId` lets a partner key read one merchant's events; other keys ignore it (spec). */
async function workspaceFor(auth: Auth, requested: string | null | undefined): Promise<string> {
  if (!requested || !auth.isPlatformAdmin || auth.onBehalfOf || requested === auth.workspaceId) return auth.workspaceId;
  const { rowCount } = await db().system.query('SELECT 1 FROM workspaces WHERE id = $1 AND "partnerId" = $2', [
    requested,
    auth.workspaceId,
  ]);
  if (!rowCount) throw err.notFound('workspace');
  return requested;
}

/**
 * Events newest first in the order they were written: `position`, the insert sequence. Not by
 * `occurredAt`, which is data: a test clock's events occur in its simulated time (docs/decisions.md,
 * Test clocks), and an event of 2027 written last week is not the newest. Not by id either: ids are
 * minted per process (the server's and the worker's interleave within a millisecond), and not by
 * `publishedPosition`, which is set after the commit (null until the relay runs), so a keyset on it
 * would move under a reader. The stream follows `publishedPosition` (commit order).
 */
export async function listEvents(ctx: Context, args: ListEventsArgs) {
  const auth = authorize(ctx, 'svc:event:read');
  const workspaceId = await workspaceFor(auth, args.workspaceId);
  checkOrder(args.order, 'event');
  const filters = {
    type: args.type ?? null,
    occurredAfter: args.occurredAfter?.toISOString() ?? null,
    occurredBefore: args.occurredBefore?.toISOString() ?? null,
    objectId: args.objectId ?? null,
    workspaceId,
    by: 'position',
  };
  const page = pageRequest(args, auth.workspaceId, filters, listPageSize.events);
  const after = page.after ? BigInt(page.after.at) : null;
  const rows = await inTenant({ workspaceId, modes: visibleModes(auth.mode) }, (tx) =>
    tx.event.findMany({
      where: {
        workspaceId,
        ...(args.type ? { type: args.type } : {}),
        ...(args.objectId ? { objectId: args.objectId } : {}),
        ...(after === null ? {} : { position: page.order === 'desc' ? { lt: after } : { gt: after } }),
        AND: [
          args.occurredAfter ? { occurredAt: { gt: args.occurredAfter } } : {},
          args.occurredBefore ? { occurredAt: { lt: args.occurredBefore } } : {},
        ],
      },
      orderBy: { position: page.order },
      take: page.limit + 1,
    }),
  );
  // The cursor holds the position (unique, so no tie to break) and the id it belongs to.
  return toConnection(rows, page, auth.workspaceId, filters, (e) => ({ at: e.position.toString(), id: e.id }));
}

export interface SubscribeArgs {
  types?: string[] | null;
  objectId?: string | null;
  /** Resume: events committed after this event id are sent first. */
  after?: string | null;
}

/** Live events of the caller's workspace and visible modes, as they commit on any instance. */
export function subscribeEvents(ctx: Context, args: SubscribeArgs) {
  const auth = authorize(ctx, 'svc:event:read');
  const modes = visibleModes(auth.mode);
  const wanted = (e: { type: string; objectId: string | null }) =>
    (!args.types?.length || args.types.includes(e.type)) && (!args.objectId || e.objectId === args.objectId);
  return new Repeater<PublishedEventRow>(async (push, stop) => {
    let cursor = -1n; // until startPosition answers: notices meanwhile are covered by the first drain
    let draining: Promise<void> = Promise.resolve();
    // Notices only say "something was published"; rows are read in commit order (the relay's
    // published position), so nothing is skipped or sent twice even when notices merge or are lost.
    const drain = () =>
      (draining = draining
        .then(async () => {
          for (;;) {
            const rows = await eventsAfter(auth.workspaceId, modes, cursor);
            for (const row of rows) {
              cursor = BigInt(row.publishedPosition);
              if (wanted(row)) await push(row);
            }
            if (rows.length < 500) return;
          }
        })
        .catch(() => {}));
    const unsubscribe = eventBus.subscribe((n: EventNotice) => {
      if (cursor < 0n) return;
      if (
        n.kind === 'resync' ||
        (n.kind === 'published' &&
          n.workspaceId === auth.workspaceId &&
          modes.includes(n.mode as Mode) &&
          n.position > cursor)
      )
        drain();
    });
    try {
      cursor = await startPosition(auth.workspaceId, args.after);
    } catch (e) {
      unsubscribe();
      throw e;
    }
    drain();
    await stop;
    unsubscribe();
  });
}

/** Where a stream starts: after the given event, or after everything published so far. */
async function startPosition(workspaceId: string, afterEventId: string | null | undefined): Promise<bigint> {
  if (afterEventId) {
    const { rows } = await db().system.query(
      'SELECT "publishedPosition" AS p FROM events WHERE id = $1 AND "workspaceId" = $2',
      [afterEventId, workspaceId],
    );
    if (!rows[0]) throw new DomainError('not_found', 'No such event', { resource: 'event' });
    // Not published yet: nothing after it can have been seen either, so resume from what was published before it.
    if (rows[0].p !== null) return BigInt(rows[0].p);
  }
  const { rows } = await db().system.query('SELECT COALESCE(max("publishedPosition"), 0) AS p FROM events');
  return BigInt(rows[0].p);
}
