import { parseArgs } from 'node:util';
import { signRequest } from '../src/core/auth/signing.ts';
import { isVerb, loadEnvFile, request, usageError } from '../src/cli/api.ts';

const usage = `svc <command> [options]

  start                       API server and worker in one process (development)
  serve                       API server only (PORT, default 4000)
  worker                      pg-boss worker and outbox relay only
  migrate                     apply pending migrations
  rotate-master-key           re-encrypt every stored secret under SVC_MASTER_KEY, reading with
                              SVC_MASTER_KEY_PREVIOUS (the old key; comma-separated for several)
  bootstrap --name <name> [--email <owner>] [--platform-admin] [--environment test|live]
          [--json | --dotenv]
                              create a workspace, its owner and a full_access API key
                              (--dotenv prints SVC_KEY_ID=.. and SVC_SECRET=.. lines for .env);
                              --email is required unless NODE_ENV is development or test
  idp                         the development identity provider for the dashboard's sign-in (users
                              in the README; SVC_IDP_PORT, default 4010); prints SVC_OIDC_* lines.
                              \`svc start\` with SVC_DEV_IDP=1 runs it in process instead
  members accept <token> [--json]
                              accept a member invitation (the token is the end of the emailed
                              link, mem_..._...): the member joins and gets a first API key
  restore-workspace <ws_id> [--json]
                              restore an archived workspace within its 90 days (the dashboard's
                              path) and print a new full_access test key for its owner
  sign [--method GET] [--body <json>] [--key-id <pk_..>] [--secret <sk_..>] <target>
                              print signed headers for a request (key from SVC_KEY_ID / SVC_SECRET,
                              environment or .env)
                              --curl <base_url> prints a complete curl command instead
  listen --forward-to <url> [--events a,b] [--format svc|standard] [--base-url <url>]
                              forward the workspace's events to a local URL, signed like a webhook
                              delivery (key from SVC_KEY_ID / SVC_SECRET, environment or .env; base
                              URL from SVC_BASE_URL, default http://127.0.0.1:$PORT)
  get|post|put|patch|delete <path> [-d name=value | -d name:=json | -d @file.json ...]
          [-H 'Name: value'] [--idempotency-key <k>] [-s data.id] [-v]
          [--key-id ..] [--secret ..] [--base-url ..]
                              one signed API request; prints the response body (indented on a
                              terminal, as received when piped). -d a.b=x nests, := takes JSON
                              (numbers, booleans, lists), a[]=x appends; GET/DELETE send -d as the
                              query string. Writes carry a fresh Idempotency-Key unless given.
                              -s/--select data.id prints one value (for shell variables).
                              Key from SVC_KEY_ID / SVC_SECRET (environment or .env), base URL from
                              SVC_BASE_URL (default http://127.0.0.1:$PORT, PORT 4000)
  trigger <event type> [--json | -s ids.payment] | --list
                              make the service emit that event in test mode through real API calls
                              (e.g. payment.succeeded: a checkout session paid in the sandbox);
                              prints the ids it created and the event id
  events replay <evt_id ...|-> [--batch-size 200]
                              replay events (POST /v1/events/replay) in batches; ids from stdin with -
  webhooks verify --secret <whsec_..> [--tolerance <s>] [--now <epoch>] <file|->
                              verify a captured webhook request and say which part is wrong
                              (secret from SVC_WEBHOOK_SECRET)

Exit codes: 0 success, 1 other failure, 2 usage (nothing sent), 3 network (no answer),
4 the API answered 4xx, 5 the API answered 5xx. Progress bars go to stderr on a terminal only.
`;

/** One command's part of `usage` (the lines from its name to the next command's), then the exit codes. */
function commandUsage(command: string): string | null {
  const [, commands, exits] = usage.split('\n\n');
  const blocks: string[][] = [];
  for (const line of commands.split('\n')) {
    if (/^ {2}\S/.test(line)) blocks.push([line]);
    else blocks.at(-1)?.push(line);
  }
  const block = blocks.find((b) => b[0].trim().split(/\s/)[0].split('|').includes(command));
  return block ? `usage: svc ${block.join('\n').trim()}\n\n${exits}` : null;
}

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  // `svc <command> --help` (or -h, or `svc help <command>`): that command's usage, nothing run or sent.
  const helpFor = command === 'help' ? rest[0] : rest.some((a) => a === '--help' || a === '-h') ? command : undefined;
  const help = helpFor ? commandUsage(helpFor) : null;
  if (help) return void process.stdout.write(help);
  // One-shot commands keep stdout for their result (`bootstrap --json` is parsed by scripts): logs
  // go to stderr. Set before the first dynamic import of the logger.
  if (
    [
      'migrate',
      'bootstrap',
      'members',
      'sign',
      'webhooks',
      'listen',
      'rotate-master-key',
      'restore-workspace',
    ].includes(command)
  )
    process.env.SVC_LOG_STDERR = '1';
  if (isVerb(command)) return request(command, rest);
  switch (command) {
    case 'start':
    case 'serve':
    case 'worker':
      noOptions(rest); // e.g. `serve --port 5000` must not start a server on 4000
      return (await import('./run.ts')).run(command);
    case 'idp':
      noOptions(rest);
      return (await import('../src/cli/idp.ts')).runIdp();
    case 'migrate': {
      noOptions(rest); // e.g. `migrate --dry-run` must not migrate
      const { config } = await import('../src/core/config.ts');
      const { startEmbeddedPostgres } = await import('../src/core/db/embedded.ts');
      const { migrate } = await import('../src/core/db/migrate.ts');
      const { progress } = await import('../src/cli/progress.ts');
      const embedded = config.databaseUrl ? null : await startEmbeddedPostgres();
      // On a terminal a bar names each migration; piped, one `applying <name>` line each, as before.
      const tty = Boolean(process.stderr.isTTY);
      let bar = progress('migrating', 0); // silent until the number of pending migrations is known
      const applied = await migrate(
        config.databaseUrl ?? embedded!.url,
        (line) =>
          tty && line.startsWith('applying ') ? bar.tick(1, line.slice('applying '.length)) : console.error(line),
        (pending) => {
          bar = progress('migrating', pending);
        },
      );
      bar.done();
      console.log(applied.length ? `applied ${applied.length} migration(s)` : 'database is up to date');
      await embedded?.stop();
      return;
    }
    case 'rotate-master-key': {
      noOptions(rest);
      const { config } = await import('../src/core/config.ts');
      const { startEmbeddedPostgres } = await import('../src/core/db/embedded.ts');
      const { rotateMasterKey } = await import('../src/cli/rotate-master-key.ts');
      const embedded = config.databaseUrl ? null : await startEmbeddedPostgres();
      try {
        const reports = await rotateMasterKey(config.databaseUrl ?? embedded!.url, (l) => console.log(l));
        const sum = (k: 'rewritten' | 'current' | 'failed') => reports.reduce((n, r) => n + r[k], 0);
        console.log(
          `done: re-encrypted ${sum('rewritten')}, already current ${sum('current')}, failed ${sum('failed')}`,
        );
        if (sum('failed')) process.exitCode = 1;
      } finally {
        await embedded?.stop();
      }
      return;
    }
    case 'bootstrap':
      return bootstrap(rest);
    case 'members':
      return (await import('../src/cli/members.ts')).members(rest);
    case 'restore-workspace':
      return restoreWorkspace(rest);
    case 'sign':
      return sign(rest);
    case 'listen':
      return (await import('../src/cli/listen.ts')).listen(rest);
    case 'webhooks':
      return (await import('../src/cli/webhooks.ts')).webhooks(rest);
    case 'trigger':
      return (await import('../src/cli/trigger.ts')).trigger(rest);
    case 'events':
      return (await import('../src/cli/events.ts')).events(rest);
    default:
      if (!command || command === 'help' || command === '--help') return void process.stdout.write(usage);
      process.stderr.write(`svc: unknown command ${JSON.stringify(command)}\n\n${usage}`);
      process.exitCode = 2;
  }
}

/** Commands configured only by the environment: any argument is a mistake, not something to ignore. */
function noOptions(args: string[]) {
  parseArgs({ args, options: {}, strict: true, allowPositionals: false });
}

async function bootstrap(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      name: { type: 'string' },
      'platform-admin': { type: 'boolean' },
      environment: { type: 'string' },
      json: { type: 'boolean' },
      dotenv: { type: 'boolean' },
      email: { type: 'string' },
    },
  });
  if (!values.name) throw usageError('--name is required');
  if (values.environment && !['test', 'live'].includes(values.environment))
    throw usageError('--environment must be test or live');
  // The default owner is the development identity provider's public user (docs/security.md,
  // The development identity provider): outside development the owner is named.
  await import('../src/core/config.ts'); // reads .env, which may set NODE_ENV
  if (!values.email && !['development', 'test'].includes(process.env.NODE_ENV ?? ''))
    throw new Error(
      '--email is required unless NODE_ENV is development or test: the default owner owner@example.com ' +
        'is a public development sign-in',
    );
  const { connectAndMigrate, stopEmbedded } = await import('../src/core/db/setup.ts');
  const { closeDatabase } = await import('../src/core/db/client.ts');
  const { bootstrapWorkspace } = await import('../src/modules/workspaces/service.ts');
  await connectAndMigrate();
  try {
    const out = await bootstrapWorkspace({
      name: values.name,
      platformAdmin: values['platform-admin'],
      environment: (values.environment as 'test' | 'live') ?? 'test',
      ownerEmail: values.email,
    });
    if (values.json) process.stdout.write(`${JSON.stringify(out)}\n`);
    else if (values.dotenv) process.stdout.write(`SVC_KEY_ID=${out.apiKey.keyId}\nSVC_SECRET=${out.apiKey.key}\n`);
    else {
      console.log(`workspace ${out.workspaceId} (${out.accountId})${out.platformAdmin ? ' platform admin' : ''}`);
      console.log(`key id  ${out.apiKey.keyId}\nsecret  ${out.apiKey.key}   (shown once)`);
    }
  } finally {
    await closeDatabase();
    await stopEmbedded();
  }
}

async function restoreWorkspace(args: string[]) {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' } } });
  if (positionals.length !== 1) throw new Error('usage: svc restore-workspace <ws_id> [--json]');
  const { connectAndMigrate, stopEmbedded } = await import('../src/core/db/setup.ts');
  const { closeDatabase } = await import('../src/core/db/client.ts');
  const { restoreWorkspaceFromCli } = await import('../src/modules/workspaces/service.ts');
  await connectAndMigrate();
  try {
    const out = await restoreWorkspaceFromCli(positionals[0]);
    if (values.json) process.stdout.write(`${JSON.stringify(out)}\n`);
    else
      console.log(`restored ${out.workspaceId}\nkey id  ${out.apiKey.keyId}\nsecret  ${out.apiKey.key}   (shown once)`);
  } finally {
    await closeDatabase();
    await stopEmbedded();
  }
}

function sign(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      method: { type: 'string', default: 'GET' },
      body: { type: 'string', default: '' },
      'key-id': { type: 'string' },
      secret: { type: 'string' },
      curl: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  loadEnvFile();
  const keyId = values['key-id'] ?? process.env.SVC_KEY_ID;
  const secret = values.secret ?? process.env.SVC_SECRET;
  const target = positionals[0];
  if (!keyId || !secret || !target)
    throw usageError('usage: svc sign [--method M] [--body B] --key-id <pk_..> --secret <sk_..> <target>');
  const headers = signRequest({ keyId, secret, method: values.method!, target, body: values.body });
  if (values.json) return void process.stdout.write(`${JSON.stringify(headers)}\n`);
  if (values.curl) {
    const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const parts = [
      `curl -sS -X ${values.method!.toUpperCase()}`,
      `-H ${q(`Authorization: ${headers.authorization}`)}`,
      `-H ${q(`X-Svc-Timestamp: ${headers['x-svc-timestamp']}`)}`,
    ];
    if (values.body) parts.push(`-H 'Content-Type: application/json'`, `--data-raw ${q(values.body)}`);
    parts.push(q(values.curl.replace(/\/$/, '') + target));
    return void console.log(parts.join(' '));
  }
  console.log(`Authorization: ${headers.authorization}\nX-Svc-Timestamp: ${headers['x-svc-timestamp']}`);
}

main(process.argv.slice(2)).catch((e) => {
  console.error(`svc: ${(e as Error).message}`);
  // CliError carries its exit code (src/cli/api.ts, exitCodes); a bad flag is usage (2); anything else 1.
  const code = (e as { code?: string }).code;
  process.exit((e as { exitCode?: number }).exitCode ?? (code?.startsWith('ERR_PARSE_ARGS') ? 2 : 1));
});
