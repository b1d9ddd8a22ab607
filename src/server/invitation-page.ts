/**
 * The dashboard's invitation page (docs/dashboard.md, Accepting an invitation): "Join <workspace>
 * (<slug>) as <role>?" with a form that posts the invitation and its CSRF token, or why it cannot
 * be accepted here. No script; English or Indonesian as the dashboard (src/core/i18n).
 */
import { type Language, messages } from '../core/i18n/index.ts';
import { escapeHtml as e } from '../modules/documents/render/html.ts';

export const ACCEPT_PATH = '/dashboard/auth/accept';

const shell = (lang: Language, title: string, body: string) =>
  `<!doctype html><html lang="${lang}"><head><meta charset="utf-8">` +
  '<meta name="viewport" content="width=device-width">' +
  `<meta name="robots" content="noindex"><title>${e(title)}</title></head>` +
  '<body style="font-family:sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#111827">' +
  `<main><h1 style="font-size:1.4rem">${e(title)}</h1>${body}</main></body></html>`;

export interface ShownInvitation {
  workspaceName: string;
  slug: string;
  email: string;
  role: string;
}

/** The question and its form; `signedInAs` when a dashboard session will receive the membership. */
export function confirmPage(
  lang: Language,
  v: ShownInvitation,
  form: { invitation: string; csrf: string; signedInAs: string | null },
): string {
  const L = messages(lang).memberInvitation;
  const role = L.roles[v.role as keyof typeof L.roles] ?? v.role;
  return shell(
    lang,
    L.title,
    `<p style="font-size:1.1rem"><strong>${e(L.question(v.workspaceName, v.slug, role))}</strong></p>` +
      `<p>${e(L.invitedEmail(v.email))}</p>` +
      (form.signedInAs ? `<p>${e(L.signedInAs(form.signedInAs))}</p>` : '') +
      `<form method="post" action="${ACCEPT_PATH}">` +
      `<input type="hidden" name="invitation" value="${e(form.invitation)}">` +
      `<input type="hidden" name="csrf" value="${e(form.csrf)}">` +
      '<button type="submit" style="font:inherit;padding:10px 20px;border:0;border-radius:8px;background:#0f766e;' +
      `color:#fff;cursor:pointer">${e(L.join)}</button> <a href="/dashboard/" style="margin-left:12px">${e(L.notNow)}</a></form>`,
  );
}

/** A page that only says something (a refusal, or that the invitation was accepted), with a way on. */
export function noticePage(lang: Language, title: string, text: string): string {
  const L = messages(lang).memberInvitation;
  return shell(lang, title, `<p>${e(text)}</p><p><a href="/dashboard/">${e(L.openDashboard)}</a></p>`);
}
