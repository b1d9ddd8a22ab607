import { useState } from 'preact/hooks';
import type {
  DashboardDevelopersQuery,
  DashboardDevelopersQueryVariables,
  DashboardInviteMutation,
  DashboardInviteMutationVariables,
  DashboardTeamQuery,
  DashboardTeamQueryVariables,
} from './generated/operations.ts';
import { dateTime } from './format.ts';
import { useActions, useQuery } from './hooks.ts';
import { DevelopersDocument, InviteDocument, TeamDocument } from './operations.ts';
import type { ScreenProps } from './screens.tsx';
import { Table } from './table.tsx';

/** Roles a member may invite: those strictly below its own (docs/decisions.md, Members). */
const invitable: Record<string, string[]> = {
  owner: ['admin', 'member', 'read_only'],
  admin: ['member', 'read_only'],
};

export function Team(p: ScreenProps & { workspaceId: string; role: string }) {
  const { note, again, report } = useActions();
  const q = useQuery<DashboardTeamQuery, DashboardTeamQueryVariables>(
    p.client,
    TeamDocument,
    { workspaceId: p.workspaceId },
    p.tick + again,
  );
  const roles = invitable[p.role] ?? [];
  const [email, setEmail] = useState('');
  const [role, setRole] = useState(roles[roles.length - 1] ?? 'read_only');
  async function invite(e: Event) {
    e.preventDefault();
    const r = await p.client
      .mutation<DashboardInviteMutation, DashboardInviteMutationVariables>(InviteDocument, {
        workspaceId: p.workspaceId,
        input: { email, role },
        idempotencyKey: crypto.randomUUID(),
      })
      .toPromise();
    if (report(r, p.t.invited)) setEmail('');
  }
  return (
    <section aria-labelledby="team-title">
      <h1 id="team-title">{p.t.team}</h1>
      {q.error ? <p role="alert">{q.error}</p> : null}
      <Table testId="team-table" heads={[p.t.email, p.t.role, p.t.status, p.t.joined]}>
            {(q.data?.members.edges ?? []).map(({ node: m }) => (
              <tr key={m.id} data-member-email={m.email}>
                <td>{m.email}</td>
                <td>{m.role}</td>
                <td>{m.status}</td>
                <td>{m.joinedAt ? dateTime(m.joinedAt, p.lang) : '—'}</td>
              </tr>
            ))}
      </Table>
      {p.canAct && roles.length ? (
        <form class="refund" onSubmit={invite} data-testid="invite-form">
          <h2>{p.t.invite}</h2>
          <label>
            {p.t.email}{' '}
            <input type="email" required value={email} onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
          </label>{' '}
          <label>
            {p.t.role}{' '}
            <select value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value)}>
              {roles.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>{' '}
          <button type="submit">{p.t.invite}</button>
        </form>
      ) : null}
      {note ? <p role="status">{note}</p> : null}
    </section>
  );
}

export function Developers(p: ScreenProps) {
  const q = useQuery<DashboardDevelopersQuery, DashboardDevelopersQueryVariables>(
    p.client,
    DevelopersDocument,
    {},
    p.tick,
  );
  return (
    <section aria-labelledby="developers-title">
      <h1 id="developers-title">{p.t.developers}</h1>
      {q.error ? <p role="alert">{q.error}</p> : null}
      <h2>{p.t.apiKeys}</h2>
      <Table testId="keys-table" heads={[p.t.keyName, 'Key id', p.t.role, p.t.environment, p.t.lastUsed]}>
            {(q.data?.apiKeys.edges ?? []).map(({ node: k }) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td>
                  <code>{k.keyId}</code>
                </td>
                <td>{k.role}</td>
                <td>{k.environment}</td>
                <td>{k.lastUsedAt ? dateTime(k.lastUsedAt, p.lang) : '—'}</td>
              </tr>
            ))}
      </Table>
      <h2>{p.t.webhooks}</h2>
      <ul>
        {(q.data?.webhookEndpoints.edges ?? []).length === 0 ? <li>{p.t.none}</li> : null}
        {(q.data?.webhookEndpoints.edges ?? []).map(({ node: w }) => (
          <li key={w.id}>
            <code>{w.url}</code> — {w.status} ({w.events.join(', ')})
          </li>
        ))}
      </ul>
      <h2 id="request-log-title">{p.t.requestLog}</h2>
      <Table
        testId="audit-table"
        labelledBy="request-log-title"
        heads={[p.t.when, p.t.action, p.t.actor, p.t.target, p.t.requestId]}
      >
            {(q.data?.auditLog.edges ?? []).map(({ node: a }) => (
              <tr key={a.id}>
                <td>{dateTime(a.at, p.lang)}</td>
                <td>
                  <code>{a.action}</code>
                </td>
                <td>
                  <code>{a.actorMemberId ?? a.actorKeyId ?? '—'}</code>
                </td>
                <td>{a.targetId ? <code>{a.targetId}</code> : '—'}</td>
                <td>{a.requestId ? <code>{a.requestId}</code> : '—'}</td>
              </tr>
            ))}
      </Table>
      <h2>{p.t.events}</h2>
      <ol class="timeline">
        {(q.data?.events.edges ?? []).map(({ node: e }) => (
          <li key={e.id}>
            <code>{e.type}</code> <time dateTime={e.occurredAt}>{dateTime(e.occurredAt, p.lang)}</time>
          </li>
        ))}
      </ol>
    </section>
  );
}
