import { useState } from 'preact/hooks';
import type {
  DashboardCreateInvoiceMutation,
  DashboardCreateInvoiceMutationVariables,
  DashboardFinalizeInvoiceMutation,
  DashboardFinalizeInvoiceMutationVariables,
  DashboardInvoicesQuery,
  DashboardInvoicesQueryVariables,
  DashboardSendInvoiceMutation,
  DashboardSendInvoiceMutationVariables,
  DashboardVoidInvoiceMutation,
  DashboardVoidInvoiceMutationVariables,
} from './generated/operations.ts';
import { AmountField } from './amount-form.tsx';
import { dateTime, money, readAmount } from './format.ts';
import { useActions, useQuery } from './hooks.ts';
import {
  CreateInvoiceDocument,
  FinalizeInvoiceDocument,
  InvoicesDocument,
  SendInvoiceDocument,
  VoidInvoiceDocument,
} from './operations.ts';
import type { ScreenProps } from './screens.tsx';
import { invoiceDraft, invoiceOpen, invoicePastDue } from './statuses.ts';
import { Table } from './table.tsx';

/** The signed PDF link on this origin (its path and signature; docs/dashboard.md, The app). */
export const sameOrigin = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

export function Invoices(p: ScreenProps) {
  const { note, again, report: say } = useActions();
  const [after, setAfter] = useState<string | null>(null);
  const q = useQuery<DashboardInvoicesQuery, DashboardInvoicesQueryVariables>(
    p.client,
    InvoicesDocument,
    { first: 20, after },
    p.tick + again,
  );
  const customers = q.data?.customers.edges.map((e) => e.node) ?? [];
  const [customerId, setCustomerId] = useState('');
  const [description, setDescription] = useState('');
  const [amount, setAmount] = useState('');
  const [amountError, setAmountError] = useState<string | null>(null);
  async function create(e: Event) {
    e.preventDefault();
    const read = readAmount(amount, 'IDR', p.lang);
    setAmountError('error' in read ? read.error : null);
    if ('error' in read) return;
    const unitAmount = read.minor;
    const r = await p.client
      .mutation<DashboardCreateInvoiceMutation, DashboardCreateInvoiceMutationVariables>(CreateInvoiceDocument, {
        input: {
          customerId: customerId || customers[0]?.id,
          currency: 'IDR',
          lines: [{ description, quantity: 1, unitAmount }],
        },
        idempotencyKey: crypto.randomUUID(),
      })
      .toPromise();
    say(r, p.t.draftCreated);
    if (!r.error) {
      setDescription('');
      setAmount('');
    }
  }
  const finalize = async (id: string) =>
    say(
      await p.client
        .mutation<DashboardFinalizeInvoiceMutation, DashboardFinalizeInvoiceMutationVariables>(
          FinalizeInvoiceDocument,
          { id, idempotencyKey: crypto.randomUUID() },
        )
        .toPromise(),
      p.t.finalized,
    );
  const voidIt = async (id: string) =>
    say(
      await p.client
        .mutation<DashboardVoidInvoiceMutation, DashboardVoidInvoiceMutationVariables>(VoidInvoiceDocument, {
          id,
          idempotencyKey: crypto.randomUUID(),
        })
        .toPromise(),
      p.t.voided,
    );
  const send = async (id: string) => {
    const r = await p.client
      .mutation<DashboardSendInvoiceMutation, DashboardSendInvoiceMutationVariables>(SendInvoiceDocument, {
        id,
        idempotencyKey: crypto.randomUUID(),
      })
      .toPromise();
    const mail = r.data?.sendInvoiceEmail;
    say(r, `${mail?.sent ? p.t.invoiceSent : p.t.invoiceKept} ${mail?.to ?? ''}`);
  };
  const rows = q.data?.invoices.edges ?? [];
  return (
    <section aria-labelledby="invoices-title">
      <h1 id="invoices-title">{p.t.invoices}</h1>
      {q.error ? <p role="alert">{q.error}</p> : null}
      {p.canAct && customers.length ? (
        <form class="refund" onSubmit={create} data-testid="invoice-form">
          <h2>{p.t.newInvoice}</h2>
          <label>
            {p.t.customer}{' '}
            <select value={customerId || customers[0]?.id} onChange={(e) => setCustomerId((e.target as HTMLSelectElement).value)}>
              {customers.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name ?? c.email ?? c.id}
                </option>
              ))}
            </select>
          </label>{' '}
          <label>
            {p.t.description}{' '}
            <input required value={description} onInput={(e) => setDescription((e.target as HTMLInputElement).value)} />
          </label>{' '}
          <AmountField
            id="invoice-amount"
            label={p.t.amount}
            currency="IDR"
            required
            value={amount}
            error={amountError}
            onInput={(v) => {
              setAmount(v);
              setAmountError(null);
            }}
          />{' '}
          <button type="submit">{p.t.createDraft}</button>
        </form>
      ) : null}
      {note ? <p role="status">{note}</p> : null}
      <InvoicesTable p={p} rows={rows} finalize={finalize} voidIt={voidIt} send={send} />
      {!q.fetching && rows.length === 0 ? <p>{p.t.none}</p> : null}
      {q.data?.invoices.pageInfo.hasNextPage ? (
        <button type="button" onClick={() => setAfter(q.data!.invoices.pageInfo.endCursor)}>
          {p.t.next}
        </button>
      ) : null}
    </section>
  );
}

type Act = (id: string) => Promise<unknown>;

/** One row per invoice: its link, number, status, total; the actions its status allows and its PDF. */
function InvoicesTable({
  p,
  rows,
  finalize,
  voidIt,
  send,
}: {
  p: ScreenProps;
  rows: DashboardInvoicesQuery['invoices']['edges'];
  finalize: Act;
  voidIt: Act;
  send: Act;
}) {
  return (
    <Table testId="invoices-table" heads={['ID', p.t.number, p.t.status, p.t.total, p.t.created]} actions>
      {rows.map(({ node: i }) => (
        <tr key={i.id} data-invoice-id={i.id}>
          <td>
            <a
              href={`/dashboard/invoices/${i.id}`}
              onClick={(e) => {
                e.preventDefault();
                p.navigate(`/dashboard/invoices/${i.id}`);
              }}
            >
              <code>{i.id}</code>
            </a>
          </td>
          <td>{i.number ?? '—'}</td>
          <td>{i.status}</td>
          <td>{money(i.total, i.currency, p.lang)}</td>
          <td>{dateTime(i.createdAt, p.lang)}</td>
          <td class="actions">
            {p.canAct && i.status === invoiceDraft ? (
              <button type="button" onClick={() => finalize(i.id)}>
                {p.t.finalize}
              </button>
            ) : null}
            {p.canAct && i.status === invoiceOpen ? (
              <button type="button" onClick={() => voidIt(i.id)}>
                {p.t.void}
              </button>
            ) : null}{' '}
            {p.canAct && (i.status === invoiceOpen || i.status === invoicePastDue) ? (
              <button type="button" onClick={() => send(i.id)}>
                {p.t.sendInvoice}
              </button>
            ) : null}{' '}
            {i.status !== invoiceDraft ? (
              <a href={sameOrigin(i.pdfUrl)} target="_blank" rel="noopener" data-testid="invoice-pdf">
                {p.t.pdf}
              </a>
            ) : null}
          </td>
        </tr>
      ))}
    </Table>
  );
}
