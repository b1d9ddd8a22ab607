import { parseArgs } from 'node:util';
import { usageError } from './api.ts';

const usage = 'usage: svc members accept <token> [--json]   (the token is the end of the invitation link)';

/** `svc members <subcommand>`: the development way to accept an invitation (docs/decisions.md, Members). */
export async function members(args: string[]) {
  const [sub, ...rest] = args;
  if (sub === 'accept') return accept(rest);
  throw usageError(sub ? `unknown members command ${JSON.stringify(sub)}; ${usage}` : usage);
}

async function accept(args: string[]) {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' } } });
  if (positionals.length !== 1) throw usageError(usage);
  // The whole link is accepted too: its last path segment is the token.
  const token = positionals[0].replace(/\/+$/, '').split('/').pop()!;
  const { connectAndMigrate, stopEmbedded } = await import('../core/db/setup.ts');
  const { closeDatabase } = await import('../core/db/client.ts');
  const { acceptInvitation, memberSnapshot } = await import('../modules/members/service.ts');
  await connectAndMigrate();
  try {
    const out = await acceptInvitation(token);
    const result = { workspaceId: out.workspace.id, member: memberSnapshot(out.member), apiKey: out.apiKey };
    if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    else {
      console.log(`${out.member.email} joined ${out.workspace.name} (${out.workspace.id}) as ${out.member.role}`);
      if (out.apiKey) console.log(`key id  ${out.apiKey.keyId}\nsecret  ${out.apiKey.key}   (shown once)`);
      else console.log('no API key: the workspace is at its key limit');
    }
  } finally {
    await closeDatabase();
    await stopEmbedded();
  }
}
