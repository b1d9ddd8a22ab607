/**
 * The invitation link's page (`{hosted_base}/invitations/<mem_id>_<secret>`, the token is the
 * capability): GET shows what the invitation is and an Accept button; the button's POST accepts
 * (service.ts `acceptInvitation`) and shows the member's first API key once. GET never accepts, so
 * a mail scanner that follows links cannot use the invitation up.
 */
import { escapeHtml as e } from '../documents/render/html.ts';
import { config } from '../../core/config.ts';
import { messages } from '../../core/i18n/index.ts';
import { acceptInvitation, invitationView } from './service.ts';

const page = (title: string, body: string) =>
  '<!doctype html><html lang="en"><meta charset="utf-8">' +
  '<meta name="viewport" content="width=device-width, initial-scale=1">' +
  `<title>${e(title)}</title>` +
  '<body style="font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:0 auto;padding:32px 16px;color:#111827">' +
  `<main><h1 style="font-size:1.3rem">${e(title)}</h1>${body}</main></body></html>`;

// The role names of the dashboard's accept page (src/core/i18n); this page stays English.
const roleLabel: Record<string, string> = messages('en').memberInvitation.roles;

export async function invitationPage(token: string): Promise<string> {
  const v = await invitationView(token);
  return page(
    `Join ${v.workspaceName}`,
    `<p>${e(v.email)} is invited to join <strong>${e(v.workspaceName)}</strong> as ${e(roleLabel[v.role] ?? v.role)}.</p>` +
      `<p style="color:#6b7280;font-size:14px">The invitation expires at ${e(v.expiresAt.toISOString())}.</p>` +
      '<form method="post"><button type="submit" style="font:inherit;padding:12px 24px;border:0;border-radius:8px;' +
      'background:#0f766e;color:#fff;cursor:pointer">Accept the invitation</button></form>' +
      // With an identity provider: the dashboard's accept page (docs/dashboard.md, Accepting an invitation).
      (config.oidc.issuer
        ? `<p><a href="${e(`${config.publicUrl?.replace(/\/$/, '') ?? ''}/dashboard/auth/login?invitation=${encodeURIComponent(token)}`)}">` +
          'Accept by signing in to the dashboard</a></p>'
        : ''),
  );
}

export async function acceptInvitationPage(token: string): Promise<string> {
  const { member, workspace, apiKey } = await acceptInvitation(token);
  const key = apiKey
    ? `<p>Your first API key (${e(apiKey.environment)} mode, acting for you). The secret is shown only now:</p>` +
      `<dl><dt>Key id</dt><dd><code>${e(apiKey.keyId)}</code></dd>` +
      `<dt>Secret</dt><dd><code data-secret>${e(apiKey.key)}</code></dd></dl>`
    : '<p>The workspace has reached its API key limit: ask an admin to make room, then mint a key.</p>';
  return page(
    `Welcome to ${workspace.name}`,
    `<p>${e(member.email)} joined as ${e(roleLabel[member.role] ?? member.role)}.</p>${key}`,
  );
}
