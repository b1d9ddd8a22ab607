/**
 * The invitation email (spec Workspace and member: "invited ... joined on acceptance"): MJML
 * compiled to HTML, a plain-text part, sent through the one mail path (src/core/mail.ts: SMTP, or
 * the development outbox). It carries the acceptance link, whose secret exists only in this
 * message (the row keeps its hash), so it is sent by the request that made it, after commit.
 */
import { config } from '../../core/config.ts';
import { defang } from '../../core/defang.ts';
import { DomainError } from '../../core/errors.ts';
import { logger } from '../../core/logger.ts';
import { keepInOutbox, transportFor } from '../../core/mail.ts';
import { escapeHtml as e } from '../documents/render/html.ts';

export interface InvitationMail {
  to: string;
  memberId: string;
  workspaceName: string;
  role: string;
  inviterEmail: string | null;
  acceptUrl: string;
  expiresAt: Date;
}

let mjml: Promise<typeof import('mjml').default> | undefined;
const oneLine = (s: string) => s.replace(/[\r\n\t]+/g, ' ').trim();
const roleLabel: Record<string, string> = { admin: 'an admin', member: 'a member', read_only: 'a read-only member' };

/**
 * The subject names no workspace, and the body quotes its name defanged (src/core/defang.ts): the
 * name is whoever signed up's choice, so verbatim it would put their words, links included, in a
 * mail sent by us (docs/security.md, Invitation mail).
 */
export const INVITATION_SUBJECT = 'You are invited to join a workspace';

export async function renderInvitation(m: InvitationMail) {
  const who = m.inviterEmail ? `${m.inviterEmail} invited you` : 'You are invited';
  const subject = INVITATION_SUBJECT;
  const until = m.expiresAt.toISOString().slice(0, 16).replace('T', ' ');
  const name = defang(oneLine(m.workspaceName));
  const intro = `${who} to join the workspace “${name}” as ${roleLabel[m.role] ?? m.role}.`;
  const source = `<mjml lang="en">
  <mj-head>
    <mj-title>${e(subject)}</mj-title>
    <mj-preview>${e(intro)}</mj-preview>
    <mj-attributes>
      <mj-all font-family="-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif" />
      <mj-text font-size="14px" line-height="1.45" color="#111827" padding="4px 24px" />
    </mj-attributes>
  </mj-head>
  <mj-body background-color="#f3f4f6" width="560px">
    <mj-section background-color="#0f766e" padding="3px 0"><mj-column><mj-spacer height="0px" /></mj-column></mj-section>
    <mj-section background-color="#ffffff" padding="20px 0">
      <mj-column>
        <mj-text font-size="20px" font-weight="700">${e(name)}</mj-text>
        <mj-text padding="12px 24px 4px">${e(intro)}</mj-text>
        <mj-button href="${e(m.acceptUrl)}" background-color="#0f766e" padding="16px 24px">Accept the invitation</mj-button>
        <mj-text color="#6b7280" font-size="12px">The link works once and expires at ${e(until)} UTC.
          If you did not expect this invitation, ignore this email.</mj-text>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;
  const compile = await (mjml ??= import('mjml').then((mod) => mod.default));
  const { html } = await compile(source, { validationLevel: 'strict', fonts: {}, keepComments: false });
  const text = `${intro}\n\nAccept the invitation: ${m.acceptUrl}\n\nThe link works once and expires at ${until} UTC.\n`;
  return { subject, html, text };
}

/** Sends it (SMTP), or keeps it in the outbox without SMTP; a refusal is 502 email_failed. */
export async function sendInvitation(m: InvitationMail): Promise<{ sent: boolean; file?: string }> {
  const mail = await renderInvitation(m);
  const message = {
    // A fixed display name: the workspace's name is chosen by whoever signs up, so as the sender
    // it would let a free test workspace mail anyone as "Your Bank" (docs/security.md).
    from: config.smtpFrom.includes('<') ? config.smtpFrom : { name: config.smtpFromName, address: config.smtpFrom },
    to: m.to,
    subject: mail.subject,
    html: mail.html,
    text: mail.text,
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
  if (!config.smtpUrl)
    return { sent: false, file: (await keepInOutbox(config.mailOutboxDir, m.memberId, message)).file };
  try {
    await (await transportFor(config.smtpUrl)).sendMail(message);
    return { sent: true };
  } catch (err) {
    logger.warn({ member: m.memberId, err: (err as Error).message }, 'invitation email not sent');
    throw new DomainError(
      'email_failed',
      'The mail server did not accept the invitation; it is saved: invite the same email again to resend',
      { resource: 'member' },
    );
  }
}
