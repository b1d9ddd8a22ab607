import { useState } from 'preact/hooks';
import type {
  DashboardBillingQuery,
  DashboardBillingQueryVariables,
  DashboardCancelSubscriptionMutationVariables,
} from './generated/operations.ts';
import { dateTime } from './format.ts';
import { useQuery } from './hooks.ts';
import {
  BillingDocument,
  CancelSubscriptionDocument,
  PauseSubscriptionDocument,
  ResumeSubscriptionDocument,
} from './operations.ts';
import type { ScreenProps } from './screens.tsx';

const ENDED = new Set(['canceled', 'incomplete_expired']);

/** Subscriptions and plans; a subscription can be canceled (now or at the period end), paused and resumed. */
export function Billing(p: ScreenProps) {
  const [again, setAgain] = useState(0);
  const [note, setNote] = useState<string | null>(null);
  const q = useQuery<DashboardBillingQuery, DashboardBillingQueryVariables>(
    p.client,
    BillingDocument,
    {},
    p.tick + again,
  );
  /** Cancel, pause and resume share their variables (pause and resume without `input`). */
  async function act(doc: string, id: string, input?: { atPeriodEnd: boolean }) {
    const variables: DashboardCancelSubscriptionMutationVariables = {
      id,
      idempotencyKey: crypto.randomUUID(),
      ...(input ? { input } : {}),
    };
    const r = await p.client.mutation(doc, variables).toPromise();
    setNote(r.error ? (r.error.graphQLErrors[0]?.message ?? r.error.message) : p.t.subscriptionUpdated);
    if (!r.error) setAgain((n) => n + 1);
  }
  const plans = q.data?.plans.edges ?? [];
  const subs = q.data?.subscriptions.edges ?? [];
  return (
    <section aria-labelledby="billing-title">
      <h1 id="billing-title">{p.t.billing}</h1>
      {q.error ? <p role="alert">{q.error}</p> : null}
      {note ? <p role="status">{note}</p> : null}
      <h2>{p.t.subscriptions}</h2>
      <div class="scroll">
        <table data-testid="subscriptions-table">
          <thead>
            <tr>
              <th scope="col">ID</th>
              <th scope="col">{p.t.plan}</th>
              <th scope="col">{p.t.customer}</th>
              <th scope="col">{p.t.status}</th>
              <th scope="col">{p.t.periodEnd}</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {subs.map(({ node: x }) => (
              <tr key={x.id} data-subscription-id={x.id}>
                <td>
                  <code>{x.id}</code>
                </td>
                <td>{x.plan?.name ?? '—'}</td>
                <td>{x.customerId}</td>
                <td>
                  {x.status}
                  {x.cancelAtPeriodEnd ? ` (${p.t.cancelAtEnd})` : ''}
                </td>
                <td>{dateTime(x.currentPeriodEnd, p.lang)}</td>
                <td class="actions">
                  {p.canAct && !ENDED.has(x.status) ? (
                    <>
                      {x.status === 'paused' ? (
                        <button type="button" onClick={() => act(ResumeSubscriptionDocument, x.id)}>
                          {p.t.resume}
                        </button>
                      ) : null}
                      {x.status === 'active' ? (
                        <button type="button" onClick={() => act(PauseSubscriptionDocument, x.id)}>
                          {p.t.pause}
                        </button>
                      ) : null}{' '}
                      {x.cancelAtPeriodEnd ? null : (
                        <button type="button" onClick={() => act(CancelSubscriptionDocument, x.id, { atPeriodEnd: true })}>
                          {p.t.cancelAtEnd}
                        </button>
                      )}{' '}
                      <button type="button" onClick={() => act(CancelSubscriptionDocument, x.id)}>
                        {p.t.cancelNow}
                      </button>
                    </>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {!q.fetching && subs.length === 0 ? <p>{p.t.none}</p> : null}
      <h2>{p.t.plans}</h2>
      <ul data-testid="plans">
        {!q.fetching && plans.length === 0 ? <li>{p.t.none}</li> : null}
        {plans.map(({ node: x }) => (
          <li key={x.id}>
            <strong>{x.name}</strong> <code>{x.id}</code> — {x.intervalCount} × {x.interval}
          </li>
        ))}
      </ul>
    </section>
  );
}
