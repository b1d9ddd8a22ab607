// Webhooks: endpoints (list, create), an endpoint's deliveries, replay of a delivery and
// rotation of the signing secret. A delivery that did not succeed offers a replay (the API refuses one
// whose event already reached the endpoint). A secret is shown once, from the mutation's answer, and never kept.
import { useState } from 'preact/hooks';
import type {
  DashboardCreateWebhookMutation,
  DashboardCreateWebhookMutationVariables,
  DashboardRetryDeliveryMutation,
  DashboardRetryDeliveryMutationVariables,
  DashboardRotateWebhookMutation,
  DashboardRotateWebhookMutationVariables,
  DashboardWebhookDeliveriesQuery,
  DashboardWebhookDeliveriesQueryVariables,
  DashboardWebhooksQuery,
  DashboardWebhooksQueryVariables,
} from './generated/operations.ts';
import { dateTime } from './format.ts';
import { problem, useActions, useQuery } from './hooks.ts';
import {
  CreateWebhookDocument,
  RetryDeliveryDocument,
  RotateWebhookDocument,
  WebhookDeliveriesDocument,
  WebhooksDocument,
} from './operations.ts';
import type { ScreenProps } from './screens.tsx';
import { deliverySucceeded } from './statuses.ts';
import { Table } from './table.tsx';


function Deliveries(p: ScreenProps & { endpointId: string; again: number; onNote(text: string): void }) {
  const [more, setMore] = useState(0);
  const q = useQuery<DashboardWebhookDeliveriesQuery, DashboardWebhookDeliveriesQueryVariables>(
    p.client,
    WebhookDeliveriesDocument,
    { endpointId: p.endpointId },
    p.tick + p.again + more,
  );
  async function replay(deliveryId: string) {
    const r = await p.client
      .mutation<DashboardRetryDeliveryMutation, DashboardRetryDeliveryMutationVariables>(RetryDeliveryDocument, {
        endpointId: p.endpointId,
        deliveryId,
        idempotencyKey: crypto.randomUUID(),
      })
      .toPromise();
    p.onNote(problem(r) ?? p.t.replayed);
    if (!r.error) setMore((n) => n + 1);
  }
  const rows = q.data?.webhookDeliveries.edges ?? [];
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">
        {p.t.deliveries} <code>{p.endpointId}</code>
      </h2>
      {q.error ? <p role="alert">{q.error}</p> : null}
      <Table testId="deliveries-table" heads={[p.t.event, p.t.status, p.t.responseCode, p.t.attempts, p.t.created]} actions>
            {rows.map(({ node: d }) => (
              <tr key={d.id} data-delivery-id={d.id} data-event-type={d.eventType} data-status-code={d.statusCode ?? undefined}>
                <td>
                  <code>{d.eventType}</code> <code>{d.eventId}</code>
                </td>
                <td>{d.status}</td>
                <td>{d.statusCode ?? '—'}</td>
                <td>{d.retryCount}</td>
                <td>{d.attemptedAt ? dateTime(d.attemptedAt, p.lang) : '—'}</td>
                <td class="actions">
                  {p.canAct && d.status !== deliverySucceeded ? (
                    <button type="button" onClick={() => replay(d.id)}>
                      {p.t.replay}
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
      </Table>
      {!q.fetching && rows.length === 0 ? <p>{p.t.none}</p> : null}
    </section>
  );
}

export function Webhooks(p: ScreenProps) {
  const { note, setNote, again, report } = useActions();
  const q = useQuery<DashboardWebhooksQuery, DashboardWebhooksQueryVariables>(p.client, WebhooksDocument, {}, p.tick + again);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState('');
  const [description, setDescription] = useState('');
  const [secret, setSecret] = useState<{ id: string; value: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  async function create(e: Event) {
    e.preventDefault();
    const types = events
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    const r = await p.client
      .mutation<DashboardCreateWebhookMutation, DashboardCreateWebhookMutationVariables>(CreateWebhookDocument, {
        input: { url, description: description || undefined, ...(types.length ? { events: types } : {}) },
        idempotencyKey: crypto.randomUUID(),
      })
      .toPromise();
    const made = r.data?.createWebhookEndpoint;
    if (made?.signingSecret) setSecret({ id: made.id, value: made.signingSecret });
    if (report(r, p.t.endpointCreated)) {
      setUrl('');
      setEvents('');
      setDescription('');
    }
  }
  async function rotate(id: string) {
    const r = await p.client
      .mutation<DashboardRotateWebhookMutation, DashboardRotateWebhookMutationVariables>(RotateWebhookDocument, { id })
      .toPromise();
    const failed = problem(r);
    setNote(failed);
    const value = r.data?.rotateWebhookEndpointSecret.signingSecret;
    if (value) setSecret({ id, value });
  }
  const rows = q.data?.webhookEndpoints.edges ?? [];
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">{p.t.webhooksTitle}</h1>
      {q.error ? <p role="alert">{q.error}</p> : null}
      {p.canAct ? (
        <form class="refund" onSubmit={create} data-testid="webhook-form">
          <h2>{p.t.newEndpoint}</h2>
          <label>
            {p.t.url}{' '}
            <input type="url" required value={url} onInput={(e) => setUrl((e.target as HTMLInputElement).value)} />
          </label>{' '}
          <label>
            {p.t.eventTypes}{' '}
            <input value={events} onInput={(e) => setEvents((e.target as HTMLInputElement).value)} />
          </label>{' '}
          <label>
            {p.t.description}{' '}
            <input value={description} onInput={(e) => setDescription((e.target as HTMLInputElement).value)} />
          </label>{' '}
          <button type="submit">{p.t.createEndpoint}</button>
        </form>
      ) : null}
      {note ? <p role="status">{note}</p> : null}
      {secret ? (
        <div class="card secret" data-testid="signing-secret">
          <h2>{p.t.signingSecret}</h2>
          <p>
            <code>{secret.id}</code>: <code data-testid="secret-value">{secret.value}</code>
          </p>
        </div>
      ) : null}
      <Table testId="webhooks-table" heads={[p.t.url, p.t.status, p.t.type, p.t.created]} actions>
            {rows.map(({ node: w }) => (
              <tr key={w.id} data-endpoint-id={w.id}>
                <td>
                  <code>{w.url}</code>
                  {w.description ? <div>{w.description}</div> : null}
                </td>
                <td>{w.status}</td>
                <td>{w.events.length ? w.events.join(', ') : '*'}</td>
                <td>{dateTime(w.createdAt, p.lang)}</td>
                <td class="actions">
                  <button type="button" aria-pressed={open === w.id} onClick={() => setOpen(open === w.id ? null : w.id)}>
                    {p.t.showDeliveries}
                  </button>{' '}
                  {p.canAct ? (
                    <button type="button" onClick={() => rotate(w.id)}>
                      {p.t.rotateSecret}
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
      </Table>
      {!q.fetching && rows.length === 0 ? <p>{p.t.none}</p> : null}
      {open ? <Deliveries {...p} endpointId={open} again={again} onNote={setNote} /> : null}
    </section>
  );
}
