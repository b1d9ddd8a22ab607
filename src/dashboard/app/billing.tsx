import type { DashboardBillingQuery, DashboardBillingQueryVariables } from './generated/operations.ts';
import { dateTime } from './format.ts';
import { useQuery } from './hooks.ts';
import { BillingDocument } from './operations.ts';
import type { ScreenProps } from './screens.tsx';

/** Subscriptions and plans (read only here; the API changes them). */
export function Billing(p: ScreenProps) {
  const q = useQuery<DashboardBillingQuery, DashboardBillingQueryVariables>(p.client, BillingDocument, {}, p.tick);
  const plans = q.data?.plans.edges ?? [];
  const subs = q.data?.subscriptions.edges ?? [];
  return (
    <section aria-labelledby="billing-title">
      <h1 id="billing-title">{p.t.billing}</h1>
      {q.error ? <p role="alert">{q.error}</p> : null}
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
            </tr>
          </thead>
          <tbody>
            {subs.map(({ node: x }) => (
              <tr key={x.id}>
                <td>
                  <code>{x.id}</code>
                </td>
                <td>{x.plan?.name ?? '—'}</td>
                <td>{x.customerId}</td>
                <td>{x.status}</td>
                <td>{dateTime(x.currentPeriodEnd, p.lang)}</td>
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
