import { parseArgs } from 'node:util';
import { signRequest } from '../core/auth/signing.ts';

const usage = `svc <command> [options]

  start                       API server and worker in one process (development)
  serve                       API server only (PORT, default 4000)
  worker                      pg-boss worker and outbox relay only
  migrate                     apply pending migrations
  rotate-master-key           re-encrypt every stored secret under SVC_MASTER_KEY, reading with
                              SVC_MASTER_KEY_PREVIOUS (the old key; comma-separated for several)
  bootstrap --name <name> [--platform-admin] [--environment test|live] [--json]
                              create a workspace, its owner and a full_access API key
  sign [--method GET] [--body <json>] [--key-id <pk_..>] [--secret <sk_..>] <target>
                              print signed headers for a request (key from SVC_KEY_ID / SVC_SECRET)
                              --curl <base_url> prints a complete curl command instead
  listen --forward-to <url> [--events a,b] [--format svc|standard] [--base-url <url>]
                              forward the workspace's events to a local URL, signed like a webhook
                              delivery (key from SVC_KEY_ID / SVC_SECRET, base URL from SVC_BASE_URL)
  webhooks verify --secret <whsec_..> [--tolerance <s>] [--now <epoch>] <file|->
                              verify a captured webhook request and say which part is wrong
                              (secret from SVC_WEBHOOK_SECRET)
`;

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  // One-shot commands keep stdout for their result (`bootstrap --json` is parsed by scripts): logs
  // go to stderr. Set before the first dynamic import of the logger.
  if (['migrate', 'bootstrap', 'sign', 'webhooks', 'listen', 'rotate-master-key'].includes(command))
    process.env.SVC_LOG_STDERR = '1';
  switch (command) {
    case 'start':
    case 'serve':
    case 'worker':
      noOptions(rest); // e.g. `serve --port 5000` must not start a server on 4000
      return (await import('./run.ts')).run(command);
    case 'migrate': {
      noOptions(rest); // e.g. `migrate --dry-run` must not migrate
      const { config } = await import('../core/config.ts');
      const { startEmbeddedPostgres } = await import('../core/db/embedded.ts');
      const { migrate } = await import('../core/db/migrate.ts');
      const embedded = config.databaseUrl ? null : await startEmbeddedPostgres();
      const applied = await migrate(config.databaseUrl ?? embedded!.url, (l) => console.error(l));
      console.log(applied.length ? `applied ${applied.length} migration(s)` : 'database is up to date');
      await embedded?.stop();
      return;
    }
    case 'rotate-master-key': {
      noOptions(rest);
      const { config } = await import('../core/config.ts');
      const { startEmbeddedPostgres } = await import('../core/db/embedded.ts');
      const { rotateMasterKey } = await import('./rotate-master-key.ts');
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
    case 'sign':
      return sign(rest);
    case 'listen':
      return (await import('./listen.ts')).listen(rest);
    case 'webhooks':
      return (await import('./webhooks.ts')).webhooks(rest);
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
      email: { type: 'string' },
    },
  });
  if (!values.name) throw new Error('--name is required');
  if (values.environment && !['test', 'live'].includes(values.environment))
    throw new Error('--environment must be test or live');
  const { connectAndMigrate, stopEmbedded } = await import('../core/db/setup.ts');
  const { closeDatabase } = await import('../core/db/client.ts');
  const { bootstrapWorkspace } = await import('../modules/workspaces/service.ts');
  await connectAndMigrate();
  try {
    const out = await bootstrapWorkspace({
      name: values.name,
      platformAdmin: values['platform-admin'],
      environment: (values.environment as 'test' | 'live') ?? 'test',
      ownerEmail: values.email,
    });
    if (values.json) process.stdout.write(`${JSON.stringify(out)}\n`);
    else {
      console.log(`workspace ${out.workspaceId} (${out.accountId})${out.platformAdmin ? ' platform admin' : ''}`);
      console.log(`key id  ${out.apiKey.keyId}\nsecret  ${out.apiKey.key}   (shown once)`);
    }
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
  const keyId = values['key-id'] ?? process.env.SVC_KEY_ID;
  const secret = values.secret ?? process.env.SVC_SECRET;
  const target = positionals[0];
  if (!keyId || !secret || !target)
    throw new Error('usage: svc sign [--method M] [--body B] --key-id <pk_..> --secret <sk_..> <target>');
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
  process.exit(1);
});
