// Members as users get them: invited over the API, the invitation read from the development mail
// outbox, accepted over the link's page (real HTTP), which shows the member's first key.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { config } from '../../src/core/config.ts';
import { leaves, parseMime } from './mime.ts';
import { createClient, type TestServer, type Workspace } from './server.ts';

/** A temporary development outbox for the file (no SMTP): invitation emails land there. */
export function useMailOutbox() {
  const state = { dir: '' };
  const previous = { outbox: config.mailOutboxDir, smtp: config.smtpUrl };
  beforeAll(() => {
    state.dir = mkdtempSync(join(tmpdir(), 'svc-members-'));
    config.mailOutboxDir = state.dir;
    config.smtpUrl = undefined;
  });
  afterAll(() => {
    Object.assign(config, { mailOutboxDir: previous.outbox, smtpUrl: previous.smtp });
    rmSync(state.dir, { recursive: true, force: true });
  });
  return state;
}

/** The newest invitation email kept for a member, and the token of its link. */
export function invitationMail(dir: string, memberId: string) {
  const files = readdirSync(dir)
    .filter((f) => f.includes(memberId))
    .sort();
  expect(files.length, `an invitation email for ${memberId}`).toBeGreaterThan(0);
  const mail = parseMime(readFileSync(join(dir, files[files.length - 1]), 'utf8'));
  const text = leaves(mail)
    .filter((p) => (p.headers['content-type'] ?? '').startsWith('text/plain'))
    .map((p) => p.body.toString('utf8'))
    .join('\n');
  const link = /https?:\/\/\S+\/invitations\/(mem_[0-9A-Z]+_[0-9a-f]{40})/.exec(text);
  expect(link, text).not.toBeNull();
  return { mail, text, link: link![0], token: link![1], count: files.length };
}

/** The key the acceptance page shows (key id and secret). */
export function keyOnPage(html: string) {
  const keyId = /<code>(pk_(?:test|live)_[0-9a-f]{12})<\/code>/.exec(html)?.[1];
  const secret = /<code data-secret>(sk_(?:test|live)_[0-9a-f]{48})<\/code>/.exec(html)?.[1];
  return keyId && secret ? { keyId, secret } : null;
}

export interface Joined {
  id: string;
  email: string;
  keyId: string;
  secret: string;
  client: ReturnType<typeof createClient>;
}

/** Invites `email` as `role` with `by` (default the owner's client) and accepts over HTTP. */
export async function joinMember(
  server: TestServer,
  outbox: { dir: string },
  ws: Workspace,
  role: 'admin' | 'member' | 'read_only',
  opts: { email?: string; by?: ReturnType<typeof createClient> } = {},
): Promise<Joined> {
  const email = opts.email ?? `${role}-${Math.random().toString(36).slice(2, 10)}@example.com`;
  const invited = await (opts.by ?? ws.client).post(`/v1/workspaces/${ws.workspaceId}/members`, { email, role });
  expect(invited.status, invited.text).toBe(201);
  const { token } = invitationMail(outbox.dir, invited.json.data.id);
  const page = await fetch(`${server.url}/invitations/${token}`, { method: 'POST' });
  const html = await page.text();
  expect(page.status, html).toBe(200);
  const key = keyOnPage(html);
  expect(key, html).not.toBeNull();
  return {
    id: invited.json.data.id,
    email,
    ...key!,
    client: createClient({ baseUrl: server.url, keyId: key!.keyId, secret: key!.secret }),
  };
}
