import { useState } from 'preact/hooks';
import type { DashboardPayoutsQuery, DashboardPayoutsQueryVariables } from './generated/operations.ts';
import { dateTime, money } from './format.ts';
import { useQuery } from './hooks.ts';
import { PayoutsDocument } from './operations.ts';
import type { ScreenProps } from './screens.tsx';

/** Payouts and the bank account (read only here; the API changes them). */
export function Payouts(p: ScreenProps) {
  const [after, setAfter] = useState<string | null>(null);
  const q = useQuery<DashboardPayoutsQuery, DashboardPayoutsQueryVariables>(
    p.client,
    PayoutsDocument,
    { first: 20, after },
    p.tick,
  );
  const d = q.data;
  const bank = d?.payoutBankAccount;
  const rows = d?.payouts.edges ?? [];
  return (
    <section aria-labelledby="payouts-title">
      <h1 id="payouts-title">{p.t.payouts}</h1>
      {q.error ? <p role="alert">{q.error}</p> : null}
      <div class="cards">
        {d ? (
          <div class="card" data-testid="payout-balance">
            <h2>
              {p.t.available} {d.idr.currency}
            </h2>
            <p class="big">{money(d.idr.available, d.idr.currency, p.lang)}</p>
            <p class="muted">
              {p.t.locked}: {money(d.idr.locked, d.idr.currency, p.lang)}
            </p>
          </div>
        ) : null}
        <div class="card">
          <h2>{p.t.bankAccount}</h2>
          {bank?.bankAccountNumber ? (
            <p>
              {bank.bankName} {bank.bankAccountNumber}
              <br />
              {bank.bankAccountHolder}
            </p>
          ) : (
            <p>{p.t.noBankAccount}</p>
          )}
        </div>
      </div>
      <div class="scroll">
        <table data-testid="payouts-table">
          <thead>
            <tr>
              <th scope="col">ID</th>
              <th scope="col">{p.t.amount}</th>
              <th scope="col">{p.t.status}</th>
              <th scope="col">{p.t.bankAccount}</th>
              <th scope="col">{p.t.created}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ node: o }) => (
              <tr key={o.id}>
                <td>
                  <code>{o.id}</code>
                </td>
                <td>{money(o.amount, o.currency, p.lang)}</td>
                <td>{o.status}</td>
                <td>{o.bankName}</td>
                <td>{dateTime(o.createdAt, p.lang)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {!q.fetching && rows.length === 0 ? <p>{p.t.none}</p> : null}
      {d?.payouts.pageInfo.hasNextPage ? (
        <button type="button" onClick={() => setAfter(d.payouts.pageInfo.endCursor)}>
          {p.t.next}
        </button>
      ) : null}
    </section>
  );
}
