import { useState } from 'preact/hooks';
import type {
  DashboardCreatePayoutMutation,
  DashboardCreatePayoutMutationVariables,
  DashboardPayoutsQuery,
  DashboardPayoutsQueryVariables,
  DashboardUpdateBankAccountMutation,
  DashboardUpdateBankAccountMutationVariables,
} from './generated/operations.ts';
import { dateTime, money } from './format.ts';
import { AmountForm } from './amount-form.tsx';
import { type Answer, useActions, useQuery, useServerForm } from './hooks.ts';
import { CreatePayoutDocument, PayoutsDocument, UpdateBankAccountDocument } from './operations.ts';
import type { ScreenProps } from './screens.tsx';
import { Table } from './table.tsx';

const BANK_FIELDS = ['bankName', 'bankCode', 'bankAccountNumber', 'bankAccountHolder'] as const;
type BankForm = Record<(typeof BANK_FIELDS)[number], string>;
type Bank = DashboardPayoutsQuery['payoutBankAccount'] | undefined;

/** Payouts and the bank account: a payout of the available IDR balance, and the account it goes to. */
export function Payouts(p: ScreenProps) {
  const [after, setAfter] = useState<string | null>(null);
  const { note, again, report } = useActions();
  const q = useQuery<DashboardPayoutsQuery, DashboardPayoutsQueryVariables>(
    p.client,
    PayoutsDocument,
    { first: 20, after },
    p.tick + again,
  );
  const d = q.data;
  const bank = d?.payoutBankAccount;
  const rows = d?.payouts.edges ?? [];
  const onFile = bank ? (Object.fromEntries(BANK_FIELDS.map((k) => [k, bank[k] ?? ''])) as BankForm) : undefined;
  const bankForm = useServerForm<BankForm>(onFile, { bankName: '', bankCode: '', bankAccountNumber: '', bankAccountHolder: '' });
  const form = bankForm.form;
  const [busy, setBusy] = useState(false);
  const finish = (r: Answer, ok: string) => {
    setBusy(false);
    return report(r, ok);
  };
  /** The API's rules decide (docs/guides/payouts.md): what is available, the bank account on file. */
  const requestPayout = (amount: number) =>
    p.client
      .mutation<DashboardCreatePayoutMutation, DashboardCreatePayoutMutationVariables>(CreatePayoutDocument, {
        input: { amount, currency: d!.idr.currency },
        idempotencyKey: crypto.randomUUID(),
      })
      .toPromise();
  async function saveBank(e: Event) {
    e.preventDefault();
    setBusy(true);
    const input = Object.fromEntries(BANK_FIELDS.map((k) => [k, form[k].trim() || null]));
    if (
      finish(
      await p.client
        .mutation<DashboardUpdateBankAccountMutation, DashboardUpdateBankAccountMutationVariables>(UpdateBankAccountDocument, { input })
          .toPromise(),
        p.t.saved,
      )
    )
      bankForm.saved();
  }
  const label: Record<keyof BankForm, string> = {
    bankName: p.t.bankName,
    bankCode: p.t.bankCode,
    bankAccountNumber: p.t.accountNumber,
    bankAccountHolder: p.t.accountHolder,
  };
  return (
    <section aria-labelledby="payouts-title">
      <h1 id="payouts-title">{p.t.payouts}</h1>
      {q.error ? <p role="alert">{q.error}</p> : null}
      <BalanceCards p={p} d={d} bank={bank} />
      {p.canAct && d ? (
        <>
          <AmountForm
            testId="payout-form"
            label={p.t.payoutAmount}
            currency={d.idr.currency}
            all={d.idr.available}
            button={p.t.requestPayout}
            submit={requestPayout}
            report={(r) => report(r, p.t.payoutRequested)}
            lang={p.lang}
          />
          <form data-testid="bank-account-form" onSubmit={saveBank}>
            {BANK_FIELDS.map((k) => (
              <label key={k} class="field">
                {label[k]}{' '}
                <input value={form[k]} onInput={(e) => bankForm.edit({ ...form, [k]: (e.target as HTMLInputElement).value })} />
              </label>
            ))}{' '}
            <button type="submit" disabled={busy}>
              {p.t.saveBankAccount}
            </button>
          </form>
        </>
      ) : null}
      {note ? <p role="status">{note}</p> : null}
      <PayoutsTable p={p} rows={rows} />
      {!q.fetching && rows.length === 0 ? <p>{p.t.none}</p> : null}
      {d?.payouts.pageInfo.hasNextPage ? (
        <button type="button" onClick={() => setAfter(d.payouts.pageInfo.endCursor)}>
          {p.t.next}
        </button>
      ) : null}
    </section>
  );
}

/** The available IDR balance (and what is locked) beside the bank account payouts go to. */
function BalanceCards({ p, d, bank }: { p: ScreenProps; d: DashboardPayoutsQuery | undefined; bank: Bank }) {
  return (
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
  );
}

/** One row per payout: id, amount, status, the bank it went to, when. */
function PayoutsTable({ p, rows }: { p: ScreenProps; rows: DashboardPayoutsQuery['payouts']['edges'] }) {
  return (
    <Table testId="payouts-table" heads={['ID', p.t.amount, p.t.status, p.t.bankAccount, p.t.created]}>
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
    </Table>
  );
}
