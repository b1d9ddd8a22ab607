// The development identity provider's users and password are public, and its owner@example.com is
// the owner `svc bootstrap` makes by default: neither runs in a production configuration.
import { describe, expect, it } from 'vitest';
import { useServer, db } from '../helpers/server.ts';
import { childEnv, freePort, svc as run } from '../helpers/cli.ts';

const server = useServer();
/** Each command starts a Node with TypeScript: on a loaded machine that alone can take many seconds. */
const svc = (args: string[], env: NodeJS.ProcessEnv) => run(args, env, { timeoutMs: 90_000 });

/** The whole of stderr is one `svc: ...` sentence, and the command exited 1. */
function refused(r: { code: number | null; stderr: string }, sentence: string) {
  expect({ code: r.code, stderr: r.stderr.trim() }).toEqual({ code: 1, stderr: `svc: ${sentence}` });
}

const ownersOf = async (name: string) =>
  (
    await db().system.query(
      `SELECT m.email FROM members m JOIN workspaces w ON w.id = m."workspaceId" WHERE w.name = $1 AND m.role = 'owner'`,
      [name],
    )
  ).rows.map((r) => r.email);

describe('SVC_DEV_IDP=1 refuses a production configuration', () => {
  it('NODE_ENV=production: svc start and svc idp exit 1 with one sentence, before anything starts', {
    timeout: 120_000,
  }, async () => {
    const env = childEnv(server.dbUrl, { NODE_ENV: 'production', SVC_DEV_IDP: '1', PORT: String(await freePort()) });
    refused(
      await svc(['start'], env),
      'SVC_DEV_IDP=1 refuses to run with NODE_ENV=production: its users and password are public',
    );
    refused(
      await svc(['idp'], { ...env, SVC_IDP_PORT: String(await freePort()) }),
      'svc idp refuses to run with NODE_ENV=production: its users and password are public',
    );
  });

  it('an explicit SVC_OIDC_ISSUER is never replaced: both set is refused', { timeout: 120_000 }, async () => {
    const env = childEnv(server.dbUrl, {
      SVC_DEV_IDP: '1',
      SVC_OIDC_ISSUER: 'https://id.example.com',
      PORT: String(await freePort()),
      SVC_IDP_PORT: String(await freePort()),
    });
    refused(
      await svc(['start'], env),
      'SVC_DEV_IDP=1 would replace SVC_OIDC_ISSUER (https://id.example.com): unset one of SVC_DEV_IDP and ' +
        'SVC_OIDC_ISSUER',
    );
  });

  it('once a workspace is live, svc start refuses', { timeout: 180_000 }, async () => {
    const live = await svc(
      ['bootstrap', '--name', 'Live Co', '--environment', 'live', '--email', 'ops@live.example'],
      childEnv(server.dbUrl),
    );
    expect(live.code, live.stderr).toBe(0);
    const { rows } = await db().system.query(`SELECT id FROM workspaces WHERE name = 'Live Co'`);
    const env = childEnv(server.dbUrl, {
      SVC_DEV_IDP: '1',
      SVC_IDP_PORT: String(await freePort()),
      PORT: String(await freePort()),
    });
    refused(
      await svc(['start'], env),
      `SVC_DEV_IDP=1 refuses to run beside live workspaces (${rows[0].id} is live): its users and password are public`,
    );
  });
});

describe('svc bootstrap names the owner outside development', () => {
  it('without --email: refused unless NODE_ENV is development or test, and nothing is written', {
    timeout: 180_000,
  }, async () => {
    const sentence =
      '--email is required unless NODE_ENV is development or test: the default owner owner@example.com is a ' +
      'public development sign-in';
    refused(
      await svc(['bootstrap', '--name', 'Prod Co'], childEnv(server.dbUrl, { NODE_ENV: 'production' })),
      sentence,
    );
    const unset = childEnv(server.dbUrl);
    delete unset.NODE_ENV;
    refused(await svc(['bootstrap', '--name', 'Prod Co'], unset), sentence);
    expect(await ownersOf('Prod Co')).toEqual([]);

    const named = await svc(
      ['bootstrap', '--name', 'Prod Co', '--email', 'founder@prod.example'],
      childEnv(server.dbUrl, { NODE_ENV: 'production' }),
    );
    expect(named.code, named.stderr).toBe(0);
    expect(await ownersOf('Prod Co')).toEqual(['founder@prod.example']);

    const dev = await svc(['bootstrap', '--name', 'Local Co'], childEnv(server.dbUrl, { NODE_ENV: 'development' }));
    expect(dev.code, dev.stderr).toBe(0);
    expect(await ownersOf('Local Co')).toEqual(['owner@example.com']);
  });
});
