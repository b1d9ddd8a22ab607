// An invoice: its amounts, lines and credit notes (Invoice.creditNotes), each note's PDF on
// this origin as the invoice's is (docs/dashboard.md, Invoice PDF).
import { useState } from 'preact/hooks';
import { AmountForm } from './amount-form.tsx';
import type {
  DashboardCreateCreditNoteMutation,
  DashboardCreateCreditNoteMutationVariables,
  DashboardInvoiceQuery,
  DashboardInvoiceQueryVariables,
} from './generated/operations.ts';
import { dateTime, money } from './format.ts';
import { useActions, useQuery } from './hooks.ts';
import { sameOrigin } from './invoices.tsx';
import { CreateCreditNoteDocument, InvoiceDocument } from './operations.ts';
import type { ScreenProps } from './screens.tsx';
import { invoiceDraft, invoiceVoid } from './statuses.ts';
import { Table } from './table.tsx';

export function InvoiceDetail(p: ScreenProps & { id: string }) {
  // After a note is issued the invoice's amounts and notes are asked again (as the live feed does).
  const { note, again, report } = useActions();
  const q = useQuery<DashboardInvoiceQuery, DashboardInvoiceQueryVariables>(
    p.client,
    InvoiceDocument,
    { id: p.id },
    p.tick + again,
  );
  const inv = q.data?.invoice;
  const m = (n: number) => money(n, inv?.currency ?? 'IDR', p.lang);
  /** The API's rules decide (docs/credit-notes.md): statuses, what remains; the paid part goes to the balance. */
  const issue = (amount: number, reason: string | undefined) =>
    p.client
      .mutation<DashboardCreateCreditNoteMutation, DashboardCreateCreditNoteMutationVariables>(CreateCreditNoteDocument, {
        input: { invoiceId: inv!.id, amount, reason },
        idempotencyKey: crypto.randomUUID(),
      })
      .toPromise();
  const creditable = inv && ![invoiceDraft, invoiceVoid].some((s) => s === inv.status) && inv.amountRemaining > 0;
  return (
    <section aria-labelledby="invoice-title">
      <p>
        <a
          href="/dashboard/invoices"
          onClick={(e) => {
            e.preventDefault();
            p.navigate('/dashboard/invoices');
          }}
        >
          {p.t.backToInvoices}
        </a>
      </p>
      <h1 id="invoice-title">
        {p.t.invoice} {inv?.number ?? <code>{p.id}</code>}
      </h1>
      {q.error ? <p role="alert">{q.error}</p> : null}
      {inv ? (
        <>
          <dl class="facts">
            <dt>{p.t.status}</dt>
            <dd data-testid="invoice-status">{inv.status}</dd>
            <dt>{p.t.customer}</dt>
            <dd>
              <code>{inv.customerId}</code>
            </dd>
            <dt>{p.t.total}</dt>
            <dd data-testid="invoice-total">{m(inv.total)}</dd>
            <dt>{p.t.amountDue}</dt>
            <dd>{m(inv.amountDue)}</dd>
            <dt>{p.t.credited}</dt>
            <dd data-testid="invoice-credited">{m(inv.creditedAmount)}</dd>
            <dt>{p.t.created}</dt>
            <dd>{dateTime(inv.createdAt, p.lang)}</dd>
          </dl>
          {inv.status !== invoiceDraft ? (
            <p>
              <a href={sameOrigin(inv.pdfUrl)} target="_blank" rel="noopener">
                {p.t.pdf}
              </a>
            </p>
          ) : null}
          <Table testId="invoice-lines" heads={[p.t.description, p.t.quantity, p.t.amount]}>
                {inv.lines.map((l) => (
                  <tr key={l.id}>
                    <td>{l.description}</td>
                    <td>{l.quantity}</td>
                    <td>{m(l.amount)}</td>
                  </tr>
                ))}
          </Table>
          <h2>{p.t.creditNotes}</h2>
          {creditable && p.canAct ? (
            <AmountForm
              testId="credit-note-form"
              label={p.t.creditAmount}
              currency={inv.currency}
              all={inv.amountRemaining}
              // The API's reasons (creditNoteReasons, src/modules/credit-notes/states.ts).
              reasons={{ label: p.t.refundReason, options: p.t.creditReasons, initial: 'product_unsatisfactory' }}
              button={p.t.issueCreditNote}
              submit={issue}
              report={(r) => report(r, p.t.creditNoteIssued)}
              lang={p.lang}
            >
              <p class="hint">{p.t.creditNoteHint}</p>
            </AmountForm>
          ) : null}
          {note ? <p role="status">{note}</p> : null}
          {inv.creditNotes.length === 0 ? <p>{p.t.none}</p> : null}
          {inv.creditNotes.length ? (
            <Table testId="credit-notes" heads={[p.t.number, p.t.status, p.t.refundReason, p.t.total, p.t.created, 'PDF']}>
                  {inv.creditNotes.map((c) => (
                    <tr key={c.id ?? c.number} data-credit-note-id={c.id ?? undefined}>
                      <td>{c.number ?? '—'}</td>
                      <td>{c.status}</td>
                      <td>{c.reason ?? c.memo ?? '—'}</td>
                      <td>{money(c.total, c.currency, p.lang)}</td>
                      <td>{dateTime(c.issuedAt, p.lang)}</td>
                      <td>
                        {c.pdfUrl ? (
                          <a href={sameOrigin(c.pdfUrl)} target="_blank" rel="noopener">
                            {p.t.pdf}
                          </a>
                        ) : (
                          '—'
                        )}
                      </td>
                    </tr>
                  ))}
            </Table>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
