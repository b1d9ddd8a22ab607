import { oneBy, type Source } from '../../core/loaders.ts';
import type { Event } from '../../generated/prisma/client.ts';

/** Batched reads of events for the graph's edges (src/core/loaders.ts). */
const events: Source<Event> = { table: 'events', scope: 'svc:event:read' };

export const eventById = oneBy(events);
