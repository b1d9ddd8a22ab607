import { useState } from 'preact/hooks';
import type {
  DashboardArchivePlanMutation,
  DashboardArchivePlanMutationVariables,
  DashboardCreatePlanMutation,
  DashboardCreatePlanMutationVariables,
  DashboardBillingQuery,
  DashboardBillingQueryVariables,
  DashboardCancelSubscriptionMutationVariables,
} from './generated/operations.ts';
import { AmountField } from './amount-form.tsx';
import { dateTime, readAmount } from './format.ts';
import { useActions, useQuery } from './hooks.ts';
import {
  ArchivePlanDocument,
  BillingDocument,
  CreatePlanDocument,
  CancelSubscriptionDocument,
  PauseSubscriptionDocument,
  ResumeSubscriptionDocument,
} from './operations.ts';
import type { ScreenProps } from './screens.tsx';
import { subscriptionActive, subscriptionCanceled, subscriptionPaused } from './statuses.ts';
import { Table } from './table.tsx';

const ENDED = new Set<string>([subscriptionCanceled]);
/** The plan's five portal switches (spec Plan portalFeatures), off until the merchant ticks them. */
const PLAN_FEATURES = ['selfServeCancel', 'selfServePause', 'selfServeUpgrade', 'selfServeDowngrade', 'updatePaymentMethod'] as const;
const NEW_PLAN = {
  name: '',
  interval: 'month',
  amount: '',
  portal: Object.fromEntries(PLAN_FEATURES.map((k) => [k, false])) as Record<(typeof PLAN_FEATURES)[number], boolean>,
};

/** Subscriptions and plans; a subscription can be canceled (now or at the period end), paused and resumed. */
export function Billing(p: ScreenProps) {
  const { note, again, report } = useActions();
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
    report(await p.client.mutation(doc, variables).toPromise(), p.t.subscriptionUpdated);
  }
  const [plan, setPlan] = useState(NEW_PLAN);
  const [priceError, setPriceError] = useState<string | null>(null);
  /** A flat monthly (or other interval) plan in IDR; the API's plan rules decide (docs/billing.md, Plans and prices). */
  async function createPlan(e: Event) {
    e.preventDefault();
    const read = readAmount(plan.amount, 'IDR', p.lang);
    setPriceError('error' in read ? read.error : null);
    if ('error' in read) return;
    const unitAmount = read.minor;
    const r = await p.client
      .mutation<DashboardCreatePlanMutation, DashboardCreatePlanMutationVariables>(CreatePlanDocument, {
        input: {
          name: plan.name,
          interval: plan.interval,
          intervalCount: 1,
          prices: [{ currency: 'IDR', model: 'flat', unitAmount }],
          portalFeatures: plan.portal,
        },
        idempotencyKey: crypto.randomUUID(),
      })
      .toPromise();
    if (report(r, p.t.planCreated)) setPlan(NEW_PLAN);
  }
  const archive = async (id: string) =>
    report(
      await p.client
        .mutation<DashboardArchivePlanMutation, DashboardArchivePlanMutationVariables>(ArchivePlanDocument, {
          id,
          idempotencyKey: crypto.randomUUID(),
        })
        .toPromise(),
      p.t.planArchived,
    );
  const plans = q.data?.plans.edges ?? [];
  const subs = q.data?.subscriptions.edges ?? [];
  return (
    <section aria-labelledby="billing-title">
      <h1 id="billing-title">{p.t.billing}</h1>
      {q.error ? <p role="alert">{q.error}</p> : null}
      {note ? <p role="status">{note}</p> : null}
      <h2>{p.t.subscriptions}</h2>
      <SubscriptionsTable p={p} subs={subs} act={act} />
      {!q.fetching && subs.length === 0 ? <p>{p.t.none}</p> : null}
      <h2>{p.t.plans}</h2>
      {p.canAct ? (
        <PlanForm p={p} plan={plan} setPlan={setPlan} priceError={priceError} setPriceError={setPriceError} submit={createPlan} />
      ) : null}
      <ul data-testid="plans">
        {!q.fetching && plans.length === 0 ? <li>{p.t.none}</li> : null}
        {plans.map(({ node: x }) => (
          <li key={x.id} data-plan-id={x.id}>
            <strong>{x.name}</strong> <code>{x.id}</code> — {x.intervalCount} × {x.interval}
            {x.active ? null : ` (${p.t.archived})`}{' '}
            {p.canAct && x.active ? (
              <button type="button" onClick={() => archive(x.id)}>
                {p.t.archivePlan}
              </button>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

type Act = (doc: string, id: string, input?: { atPeriodEnd: boolean }) => Promise<void>;
type Plan = typeof NEW_PLAN;

/** One row per subscription; the actions its status allows (resume, pause, cancel at the end or now). */
function SubscriptionsTable({ p, subs, act }: { p: ScreenProps; subs: DashboardBillingQuery['subscriptions']['edges']; act: Act }) {
  return (
    <Table testId="subscriptions-table" heads={['ID', p.t.plan, p.t.customer, p.t.status, p.t.periodEnd]} actions>
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
                {x.status === subscriptionPaused ? (
                  <button type="button" onClick={() => act(ResumeSubscriptionDocument, x.id)}>
                    {p.t.resume}
                  </button>
                ) : null}
                {x.status === subscriptionActive ? (
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
    </Table>
  );
}

/** The new plan's fields: name, IDR amount, interval, portal switches. */
function PlanForm({
  p,
  plan,
  setPlan,
  priceError,
  setPriceError,
  submit,
}: {
  p: ScreenProps;
  plan: Plan;
  setPlan: (plan: Plan) => void;
  priceError: string | null;
  setPriceError: (error: string | null) => void;
  submit: (e: Event) => Promise<void>;
}) {
  return (
    <form data-testid="plan-form" onSubmit={submit}>
      <label>
        {p.t.planName}{' '}
        <input required value={plan.name} onInput={(e) => setPlan({ ...plan, name: (e.target as HTMLInputElement).value })} />
      </label>{' '}
      <AmountField
        id="plan-amount"
        label={p.t.planAmount}
        currency="IDR"
        required
        value={plan.amount}
        error={priceError}
        onInput={(amount) => {
          setPlan({ ...plan, amount });
          setPriceError(null);
        }}
      />{' '}
      <label>
        {p.t.planInterval}{' '}
        <select value={plan.interval} onChange={(e) => setPlan({ ...plan, interval: (e.target as HTMLSelectElement).value })}>
          {Object.entries(p.t.intervals).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>{' '}
      <fieldset>
        <legend>{p.t.planPortal}</legend>
        {PLAN_FEATURES.map((k) => (
          <label key={k} class="field">
            <input
              type="checkbox"
              checked={plan.portal[k]}
              onChange={(e) => setPlan({ ...plan, portal: { ...plan.portal, [k]: (e.target as HTMLInputElement).checked } })}
            />{' '}
            {p.t.planFeatures[k]}
          </label>
        ))}
      </fieldset>
      <button type="submit">{p.t.createPlan}</button>
    </form>
  );
}
