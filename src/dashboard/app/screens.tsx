import type { Client } from '@urql/core';
import { useState } from 'preact/hooks';
import type {
  DashboardCustomerQuery,
  DashboardCustomerQueryVariables,
  DashboardCustomersQuery,
  DashboardCustomersQueryVariables,
  DashboardHomeQuery,
  DashboardHomeQueryVariables,
  DashboardPaymentQuery,
  DashboardPaymentQueryVariables,
  DashboardPaymentsQuery,
  DashboardPaymentsQueryVariables,
  DashboardRefundMutation,
  DashboardRefundMutationVariables,
} from './generated/operations.ts';
import type { FeedEvent } from './api.ts';
import { AmountForm } from './amount-form.tsx';
import { type Answer, problem, useQuery } from './hooks.ts';
import { dateTime, money } from './format.ts';
import type { dictionaries, Lang } from './i18n.ts';
import { CustomerDocument, CustomersDocument, HomeDocument, PaymentDocument, PaymentsDocument, RefundDocument } from './operations.ts';
import {
  paymentFailed,
  paymentPartiallyRefunded,
  paymentPending,
  paymentRefunded,
  paymentSucceeded,
} from './statuses.ts';
import { Table } from './table.tsx';

export interface ScreenProps {
  client: Client;
  t: (typeof dictionaries)['en'];
  lang: Lang;
  tick: number;
  canAct: boolean;
  navigate(path: string): void;
}

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

function Problem({ text }: { text?: string }) {
  return text ? <p role="alert" class="error">{text}</p> : null;
}

export function Home(p: ScreenProps & { feed: FeedEvent[]; connected: boolean }) {
  const now = new Date();
  const from = isoDay(new Date(now.getTime() - 29 * 86400_000));
  const vars = { from, to: isoDay(now) };
  const q = useQuery<DashboardHomeQuery, DashboardHomeQueryVariables>(p.client, HomeDocument, vars, p.tick);
  const d = q.data;
  const days = d?.idrFlow.byDay ?? [];
  const today = days.find((x) => x.date === isoDay(now))?.inflows ?? 0;
  const month = days.filter((x) => x.date.slice(0, 7) === isoDay(now).slice(0, 7)).reduce((s, x) => s + x.inflows, 0);
  const max = Math.max(1, ...days.map((x) => x.inflows));
  // What the socket delivered first (marked `data-live`), then the latest page of the events API.
  const seen = new Set<string>();
  const live = new Set(p.feed.map((e) => e.id));
  const events = [...p.feed, ...(d?.recent.edges.map((e) => e.node) ?? [])].filter((e) =>
    seen.has(e.id) ? false : (seen.add(e.id), true),
  );
  return (
    <section aria-labelledby="home-title">
      <h1 id="home-title">{p.t.home}</h1>
      <Problem text={q.error} />
      <div class="cards">
        {[d?.idr, d?.usd].map((b) =>
          b ? (
            <div class="card" key={b.currency} data-testid={`balance-${b.currency}`}>
              <h2>
                {p.t.balances} {b.currency}
              </h2>
              <p class="big">{money(b.available, b.currency, p.lang)}</p>
              <p class="muted">
                {p.t.ledgerBalance}: {money(b.ledgerBalance, b.currency, p.lang)}
              </p>
            </div>
          ) : null,
        )}
        <div class="card">
          <h2>{p.t.today}</h2>
          <p class="big" data-testid="today-volume">
            {money(today, 'IDR', p.lang)}
          </p>
        </div>
        <div class="card">
          <h2>{p.t.month}</h2>
          <p class="big">{money(month, 'IDR', p.lang)}</p>
        </div>
      </div>
      <h2>{p.t.last30}</h2>
      <svg
        class="chart"
        viewBox={`0 0 ${Math.max(1, days.length) * 10} 100`}
        preserveAspectRatio="none"
        role="img"
        aria-label={p.t.last30}
      >
        {days.map((x, i) => {
          const h = Math.round((x.inflows / max) * 96);
          return (
            <rect key={x.date} x={i * 10 + 1} y={100 - h} width={8} height={h}>
              <title>{`${x.date}: ${money(x.inflows, 'IDR', p.lang)}`}</title>
            </rect>
          );
        })}
      </svg>
      <h2>
        {p.t.liveFeed}{' '}
        <span class={p.connected ? 'dot on' : 'dot'}>{p.connected ? p.t.live : p.t.reconnecting}</span>
      </h2>
      <ol class="feed" data-testid="feed" aria-live="polite">
        {events.length === 0 ? <li>{p.t.feedEmpty}</li> : null}
        {events.slice(0, 30).map((e) => {
          const obj = (e as { data?: { object?: { id?: string } } }).data?.object;
          return (
            <li key={e.id} data-event-type={e.type} data-live={live.has(e.id) ? '' : undefined}>
              <code>{e.type}</code> {obj?.id ? <span class="muted">{obj.id}</span> : null}{' '}
              <time dateTime={e.occurredAt}>{dateTime(e.occurredAt, p.lang)}</time>
            </li>
          );
        })}
      </ol>
    </section>
  );
}

const STATUSES = [paymentSucceeded, paymentRefunded, paymentPartiallyRefunded, paymentPending, paymentFailed];

export function Payments(p: ScreenProps) {
  const [status, setStatus] = useState('');
  const [after, setAfter] = useState<string | null>(null);
  const [search, setSearch] = useState('');
  const vars = { first: 20, after, status: status || null };
  const q = useQuery<DashboardPaymentsQuery, DashboardPaymentsQueryVariables>(p.client, PaymentsDocument, vars, p.tick);
  const rows = q.data?.payments.edges ?? [];
  return (
    <section aria-labelledby="payments-title">
      <h1 id="payments-title">{p.t.payments}</h1>
      <div class="toolbar">
        <label>
          {p.t.status}{' '}
          <select
            value={status}
            onChange={(e) => {
              setStatus((e.target as HTMLSelectElement).value);
              setAfter(null);
            }}
          >
            <option value="">{p.t.all}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (search.trim()) p.navigate(`/dashboard/payments/${encodeURIComponent(search.trim())}`);
          }}
        >
          <label>
            {p.t.searchById}{' '}
            <input value={search} onInput={(e) => setSearch((e.target as HTMLInputElement).value)} placeholder="pay_…" />
          </label>{' '}
          <button type="submit">{p.t.search}</button>
        </form>
      </div>
      <Problem text={q.error} />
      <Table testId="payments-table" heads={['ID', p.t.amount, p.t.status, p.t.method, p.t.created]}>
            {rows.map(({ node: r }) => (
              <tr key={r.id} data-payment-id={r.id}>
                <td>
                  <a
                    href={`/dashboard/payments/${r.id}`}
                    onClick={(e) => {
                      e.preventDefault();
                      p.navigate(`/dashboard/payments/${r.id}`);
                    }}
                  >
                    {r.id}
                  </a>
                </td>
                <td>{money(r.amount, r.currency, p.lang)}</td>
                <td>
                  <span class={`status ${r.status}`}>{r.status}</span>
                </td>
                <td>{r.method ?? '—'}</td>
                <td>{dateTime(r.createdAt, p.lang)}</td>
              </tr>
            ))}
      </Table>
      {!q.fetching && rows.length === 0 ? <p>{p.t.none}</p> : null}
      <div class="toolbar">
        {after ? (
          <button type="button" onClick={() => setAfter(null)}>
            {p.t.first}
          </button>
        ) : null}
        {q.data?.payments.pageInfo.hasNextPage ? (
          <button type="button" onClick={() => setAfter(q.data!.payments.pageInfo.endCursor)}>
            {p.t.next}
          </button>
        ) : null}
      </div>
    </section>
  );
}

export function PaymentDetail(p: ScreenProps & { id: string }) {
  const vars = { id: p.id, objectId: p.id };
  const q = useQuery<DashboardPaymentQuery, DashboardPaymentQueryVariables>(p.client, PaymentDocument, vars, p.tick);
  const [note, setNote] = useState<string | null>(null);
  const pay = q.data?.payment;
  const remaining = pay ? pay.amount - pay.amountRefunded : 0;
  const who = pay?.customer;
  const payer = who ? [who.name, who.email && `<${who.email}>`].filter(Boolean).join(' ') || who.id : p.t.thePayer;
  /** The normalized cache updates the payment from the answer: nothing to ask again. */
  const refund = (amount: number, reason: string | undefined) =>
    p.client
      .mutation<DashboardRefundMutation, DashboardRefundMutationVariables>(RefundDocument, {
        input: { chargeId: pay!.id, amount, reason },
        idempotencyKey: crypto.randomUUID(),
      })
      .toPromise();
  const said = (r: Answer) => {
    setNote(problem(r) ?? p.t.refundDone);
    return !r.error;
  };
  return (
    <section aria-labelledby="payment-title">
      <p>
        <a
          href="/dashboard/payments"
          onClick={(e) => {
            e.preventDefault();
            p.navigate('/dashboard/payments');
          }}
        >
          ← {p.t.back}
        </a>
      </p>
      <h1 id="payment-title">{p.id}</h1>
      <Problem text={q.error} />
      {pay ? (
        <>
          <dl class="facts">
            <dt>{p.t.amount}</dt>
            <dd data-testid="payment-amount">{money(pay.amount, pay.currency, p.lang)}</dd>
            <dt>{p.t.refunded}</dt>
            <dd data-testid="payment-refunded">{money(pay.amountRefunded, pay.currency, p.lang)}</dd>
            <dt>{p.t.status}</dt>
            <dd data-testid="payment-status">{pay.status}</dd>
            <dt>{p.t.method}</dt>
            <dd>{pay.method ?? '—'}</dd>
            <dt>{p.t.customer}</dt>
            <dd>{pay.customerId ?? '—'}</dd>
            <dt>{p.t.created}</dt>
            <dd>{dateTime(pay.createdAt, p.lang)}</dd>
          </dl>
          {p.canAct && remaining > 0 && pay.status !== paymentFailed && pay.status !== paymentPending ? (
            <AmountForm
              testId="refund-form"
              label={p.t.refundAmount}
              currency={pay.currency}
              all={remaining}
              // The API's reasons (refundReasons, src/modules/refunds/states.ts).
              reasons={{ label: p.t.refundReason, options: p.t.reasons, initial: 'requested_by_customer' }}
              button={p.t.refund}
              lang={p.lang}
              // The member sees what goes back and to whom before anything is sent.
              confirm={{
                question: (minor) => p.t.confirmRefund(money(minor, pay.currency, p.lang), payer),
                yes: p.t.confirm,
                no: p.t.cancel,
              }}
              submit={refund}
              report={said}
            >
              <h2>{p.t.refund}</h2>
            </AmountForm>
          ) : null}
          {note ? <p role="status">{note}</p> : null}
          <h2>{p.t.refunds}</h2>
          <ul data-testid="refunds">
            {pay.refunds.edges.length === 0 ? <li>{p.t.none}</li> : null}
            {pay.refunds.edges.map(({ node: r }) => (
              <li key={r.id}>
                <code>{r.id}</code> {money(r.amount, pay.currency, p.lang)} — {r.status}
              </li>
            ))}
          </ul>
          <h2>{p.t.timeline}</h2>
          <ol class="timeline" data-testid="timeline">
            {(q.data?.timeline.edges ?? []).map(({ node: e }) => (
              <li key={e.id}>
                <code>{e.type}</code> <time dateTime={e.occurredAt}>{dateTime(e.occurredAt, p.lang)}</time>
              </li>
            ))}
          </ol>
        </>
      ) : null}
    </section>
  );
}

export function Customers(p: ScreenProps) {
  const [after, setAfter] = useState<string | null>(null);
  const q = useQuery<DashboardCustomersQuery, DashboardCustomersQueryVariables>(
    p.client,
    CustomersDocument,
    { first: 20, after },
    p.tick,
  );
  const rows = q.data?.customers.edges ?? [];
  return (
    <section aria-labelledby="customers-title">
      <h1 id="customers-title">{p.t.customers}</h1>
      <Problem text={q.error} />
      <Table testId="customers-table" heads={['ID', p.t.name, p.t.email, p.t.created]}>
            {rows.map(({ node: c }) => (
              <tr key={c.id}>
                <td>
                  <a
                    href={`/dashboard/customers/${c.id}`}
                    onClick={(e) => {
                      e.preventDefault();
                      p.navigate(`/dashboard/customers/${c.id}`);
                    }}
                  >
                    {c.id}
                  </a>
                </td>
                <td>{c.name ?? '—'}</td>
                <td>{c.email ?? '—'}</td>
                <td>{dateTime(c.createdAt, p.lang)}</td>
              </tr>
            ))}
      </Table>
      {!q.fetching && rows.length === 0 ? <p>{p.t.none}</p> : null}
      {q.data?.customers.pageInfo.hasNextPage ? (
        <button type="button" onClick={() => setAfter(q.data!.customers.pageInfo.endCursor)}>
          {p.t.next}
        </button>
      ) : null}
    </section>
  );
}

/** A saved method as the customer would recognise it: display fields only (docs/guides/payment-methods.md). */
function methodLabel(m: { type: string; card?: unknown; ewallet?: unknown; directDebit?: unknown; paypal?: unknown }) {
  const f = (m.card ?? m.ewallet ?? m.directDebit ?? m.paypal ?? {}) as Record<string, string | number | undefined>;
  if (m.card) return `${f.brand ?? 'card'} •••• ${f.last4 ?? ''}`;
  if (m.ewallet) return `${f.provider ?? 'ewallet'} ${f.maskedAccount ?? ''}`;
  if (m.directDebit) return `${f.bank ?? 'direct debit'} ${f.maskedAccount ?? ''}`;
  if (m.paypal) return `PayPal ${f.maskedEmail ?? ''}`;
  return m.type;
}

export function CustomerDetail(p: ScreenProps & { id: string }) {
  const q = useQuery<DashboardCustomerQuery, DashboardCustomerQueryVariables>(
    p.client,
    CustomerDocument,
    { id: p.id, customerId: p.id },
    p.tick,
  );
  const c = q.data?.customer;
  const go = (to: string) => (e: Event) => {
    e.preventDefault();
    p.navigate(to);
  };
  return (
    <section aria-labelledby="customer-title">
      <p>
        <a href="/dashboard/customers" onClick={go('/dashboard/customers')}>
          ← {p.t.backToCustomers}
        </a>
      </p>
      <h1 id="customer-title">{c?.name ?? p.id}</h1>
      <Problem text={q.error} />
      {c ? (
        <>
          <dl class="facts">
            <dt>ID</dt>
            <dd>
              <code>{c.id}</code>
            </dd>
            <dt>{p.t.email}</dt>
            <dd>{c.email ?? '—'}</dd>
            <dt>{p.t.phone}</dt>
            <dd>{c.phone ?? '—'}</dd>
            <dt>{p.t.created}</dt>
            <dd>{dateTime(c.createdAt, p.lang)}</dd>
          </dl>
          <h2>{p.t.customerBalance}</h2>
          <ul data-testid="customer-balance">
            {c.balance.balances.length === 0 ? <li>{p.t.none}</li> : null}
            {c.balance.balances.map((b) => (
              <li key={b.currency}>{money(b.amount, b.currency, p.lang)}</li>
            ))}
          </ul>
          <h2>{p.t.paymentMethods}</h2>
          <ul data-testid="customer-payment-methods">
            {c.paymentMethods.edges.length === 0 ? <li>{p.t.none}</li> : null}
            {c.paymentMethods.edges.map(({ node: m }) => (
              <li key={m.id}>
                <code>{m.id}</code> {methodLabel(m)} — {m.status}
                {m.isDefault ? ` (${p.t.defaultMethod})` : ''}
                {m.expiresAt ? ` — ${p.t.expires} ${dateTime(m.expiresAt, p.lang)}` : ''}
              </li>
            ))}
          </ul>
          <h2>{p.t.payments}</h2>
          <ul data-testid="customer-payments">
            {c.payments.edges.length === 0 ? <li>{p.t.none}</li> : null}
            {c.payments.edges.map(({ node: x }) => (
              <li key={x.id}>
                <a href={`/dashboard/payments/${x.id}`} onClick={go(`/dashboard/payments/${x.id}`)}>
                  {x.id}
                </a>{' '}
                {money(x.amount, x.currency, p.lang)} — {x.status}
              </li>
            ))}
          </ul>
          <h2>{p.t.invoices}</h2>
          <ul data-testid="customer-invoices">
            {(q.data?.invoices.edges ?? []).length === 0 ? <li>{p.t.none}</li> : null}
            {(q.data?.invoices.edges ?? []).map(({ node: i }) => (
              <li key={i.id}>
                <code>{i.number ?? i.id}</code> {money(i.total, i.currency, p.lang)} — {i.status}
              </li>
            ))}
          </ul>
          <h2>{p.t.subscriptions}</h2>
          <ul>
            {(q.data?.subscriptions.edges ?? []).length === 0 ? <li>{p.t.none}</li> : null}
            {(q.data?.subscriptions.edges ?? []).map(({ node: x }) => (
              <li key={x.id}>
                <code>{x.id}</code> — {x.status}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
