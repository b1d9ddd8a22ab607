// The dashboard's GraphQL client: urql with graphcache (normalized by `id`), requests carrying the
// session's CSRF token and mode; the live feed over graphql-ws on the same origin, which reconnects
// with backoff and, once back, asks for the events after the last one it saw (docs/dashboard.md, The app).
import { cacheExchange } from '@urql/exchange-graphcache';
import { Client, fetchExchange, type AnyVariables, type TypedDocumentNode } from '@urql/core';
import { createClient as createSocket, type Client as Socket } from 'graphql-ws';
import type { DashboardFeedSubscription } from './generated/operations.ts';
import { FeedDocument } from './operations.ts';

export type Mode = 'test' | 'live';
export interface Session {
  csrf: string;
  member: { id: string; email: string; role: 'owner' | 'admin' | 'member' | 'read_only' };
  workspace: { id: string; name: string; liveEnabled: boolean };
  /** Every workspace this identity has joined (the switcher shows when there are several). */
  workspaces: { id: string; name: string; role: string }[];
}

export async function loadSession(): Promise<Session | null> {
  const res = await fetch('/dashboard/auth/session', { credentials: 'same-origin' });
  return res.status === 200 ? ((await res.json()) as Session) : null;
}

/** A session in another joined workspace (the current one ends); false when refused. */
export async function switchWorkspace(session: Session, workspaceId: string) {
  const res = await fetch('/dashboard/auth/switch', {
    method: 'POST',
    headers: { 'x-svc-csrf': session.csrf, 'content-type': 'application/json' },
    body: JSON.stringify({ workspaceId }),
  });
  return res.status === 200;
}

export async function signOut(session: Session) {
  await fetch('/dashboard/auth/logout', { method: 'POST', headers: { 'x-svc-csrf': session.csrf } });
}

// Types without an id are values inside their parent, not entities.
const embedded = [
  'PayoutBalance',
  'CashFlowReport',
  'CashFlowDay',
  'PageInfo',
  'QueryPaymentsConnection',
  'QueryPaymentsConnectionEdge',
  'QueryEventsConnection',
  'QueryEventsConnectionEdge',
  'QueryCustomersConnection',
  'QueryCustomersConnectionEdge',
  'PaymentRefundsConnection',
  'PaymentRefundsConnectionEdge',
  'QueryMembersConnection',
  'QueryMembersConnectionEdge',
  'QueryApiKeysConnection',
  'QueryApiKeysConnectionEdge',
  'QueryWebhookEndpointsConnection',
  'QueryWebhookEndpointsConnectionEdge',
  'QueryInvoicesConnection',
  'QueryInvoicesConnectionEdge',
  'QueryPayoutsConnection',
  'QueryPayoutsConnectionEdge',
  'PayoutBankAccount',
  'CustomerPaymentsConnection',
  'CustomerPaymentsConnectionEdge',
  'QuerySubscriptionsConnection',
  'QuerySubscriptionsConnectionEdge',
  'QueryPlansConnection',
  'QueryPlansConnectionEdge',
];

/** One client per session and mode: switching modes starts from an empty cache. */
export function createApiClient(session: Session, mode: Mode, onEnded: () => void): Client {
  return new Client({
    url: '/graphql',
    exchanges: [cacheExchange({ keys: Object.fromEntries(embedded.map((t) => [t, () => null])) }), fetchExchange],
    fetchOptions: () => ({ credentials: 'same-origin', headers: { 'x-svc-csrf': session.csrf, 'x-svc-mode': mode } }),
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      if (res.status === 401) onEnded();
      return res;
    },
    preferGetMethod: false,
  });
}

export type FeedEvent = DashboardFeedSubscription['events'];

/**
 * The live feed: every event of the mode as it commits. After a reconnect it resubscribes from the
 * last event it delivered (the subscription's `after`), so nothing committed meanwhile is missed.
 */
export function openFeed(
  session: Session,
  mode: Mode,
  on: { event(e: FeedEvent): void; state(connected: boolean): void; ended(): void },
): () => void {
  let last: string | null = null;
  let stop: (() => void) | null = null;
  let closed = false;
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
  const socket: Socket = createSocket({
    url,
    connectionParams: { csrf: session.csrf, mode },
    retryAttempts: Number.POSITIVE_INFINITY,
    shouldRetry: (e) => {
      const code = (e as CloseEvent)?.code;
      if (code === 4403) {
        on.ended();
        return false;
      }
      return !closed;
    },
    on: {
      connected: () => {
        on.state(true);
        subscribe();
      },
      closed: () => on.state(false),
    },
    lazy: false,
  });
  function subscribe() {
    stop?.();
    stop = socket.subscribe<DashboardFeedSubscription>(
      { query: FeedDocument, variables: { after: last } },
      {
        next: (r) => {
          if (!r.data) return;
          last = r.data.events.id;
          on.event(r.data.events);
        },
        error: () => {},
        complete: () => {},
      },
    );
  }
  return () => {
    closed = true;
    stop?.();
    void socket.dispose();
  };
}

/** A typed document from an operation's text and its generated types. */
export const doc = <R, V extends AnyVariables>(text: string) => text as unknown as TypedDocumentNode<R, V>;
