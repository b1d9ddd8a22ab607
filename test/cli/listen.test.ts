// `svc listen` as users run it (a child process): a real server, a real HTTP receiver on
// loopback, events caused through the API, and the forwards verified as a receiver would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { untilPublished, useServer, type Workspace } from '../helpers/server.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { childEnv, freePort, ROOT, startInstance, SVC_BIN } from '../helpers/cli.ts';
import { verifyWebhook, verifyWebhookDelivery } from '../../src/client/index.ts';
import { futureClockEvent } from '../helpers/events.ts';

const server = useServer(); // with the outbox relay: subscriptions yield what it publishes

// ---- a receiver on loopback (500 on /fail): records every request with its raw body ----

let rx: Receiver;
let receiverUrl: string;
beforeAll(async () => {
  rx = await startReceiver((_n, r) => (r.path === '/fail' ? 500 : 200));
  receiverUrl = rx.origin;
});
afterAll(() => rx.close());

const forwardsOf = (eventId: string) => rx.received.filter((r) => r.headers['x-svc-event-id'] === eventId);

async function until<T>(
  what: string,
  get: () => T,
  ms = 15_000,
  detail: () => string = () => '',
): Promise<Exclude<T, null | undefined | false | 0 | ''>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v) return v as Exclude<T, null | undefined | false | 0 | ''>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${detail()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// ---- svc listen as a child process ----

interface Listener {
  child: ChildProcess;
  secret: string;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const listeners: Listener[] = [];
afterAll(async () => {
  await Promise.all(listeners.map((l) => l.stop()));
});

async function startListen(
  ws: Pick<Workspace, 'keyId' | 'secret'>,
  baseUrl: string,
  args: string[],
): Promise<Listener> {
  await untilPublished(); // the stream starts after the newest event: let the relay publish the bootstrap's first
  const child = spawn(process.execPath, [SVC_BIN, 'listen', '--base-url', baseUrl, ...args], {
    cwd: ROOT,
    env: childEnv(server.dbUrl, { SVC_KEY_ID: ws.keyId, SVC_SECRET: ws.secret }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => {
      done = true;
      r({ code, signal });
    }),
  );
  const stop = async () => {
    if (!done) child.kill('SIGINT');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    const out = await exited;
    clearTimeout(killer);
    return out;
  };
  const l: Listener = { child, secret: '', stdout: () => stdout, stderr: () => stderr, exited, stop };
  listeners.push(l);
  const ready = await until(
    'the Ready line',
    () =>
      done ||
      /^Ready! Forwarding to (\S+)\. Webhook signing secret: (whsec_[0-9a-f]{48}) \(Ctrl-C to quit\)$/m.exec(stderr),
    30_000,
    () => `; stderr:\n${stderr}`,
  );
  if (ready === true) throw new Error(`svc listen exited before it was ready:\n${stderr}`);
  expect(ready[1]).toBe(args[args.indexOf('--forward-to') + 1]);
  l.secret = ready[2];
  return l;
}

/** Creates a customer and returns its customer.created event as `GET /v1/events/:id` has it. */
async function createCustomer(ws: Workspace, name: string) {
  const res = await ws.client.post('/v1/customers', { name });
  expect(res.status, res.text).toBe(201);
  return eventOf(ws, 'customer.created', res.json.data.id);
}

/** The event as `GET /v1/events/:id` returns it once published (publishedAt set): what subscribers see. */
async function eventOf(ws: Workspace, type: string, objectId: string) {
  await untilPublished();
  const list = await ws.client.get(`/v1/events?type=${type}&objectId=${objectId}`);
  expect(list.json.data, list.text).toHaveLength(1);
  const res = await ws.client.get(`/v1/events/${list.json.data[0].id}`);
  expect(res.status).toBe(200);
  return res.json.data;
}

describe('svc listen', () => {
  it('forwards each event to the URL, signed like a delivery with the printed secret, body as GET /v1/events/:id', async () => {
    const ws = await server.workspace();
    const forwardTo = `${receiverUrl}/hooks`;
    const l = await startListen(ws, server.url, ['--forward-to', forwardTo]);
    // the secret is stable per API key: whsec_ + HMAC-SHA256(api secret, "svc listen"), 48 hex
    expect(l.secret).toBe(`whsec_${createHmac('sha256', ws.secret).update('svc listen').digest('hex').slice(0, 48)}`);

    const events = [await createCustomer(ws, 'A'), await createCustomer(ws, 'B')];
    for (const event of events) {
      const [hit] = await until(
        `the forward of ${event.id}`,
        () => forwardsOf(event.id).length && forwardsOf(event.id),
        15_000,
        () => `\nstdout:\n${l.stdout()}\nstderr:\n${l.stderr()}`,
      );
      expect(hit.path).toBe('/hooks');
      expect(hit.headers).toMatchObject({
        'content-type': 'application/json',
        'x-svc-event-type': 'customer.created',
        'x-svc-signature': expect.stringMatching(/^t=\d+,v1=[0-9a-f]{64}$/),
      });
      expect(hit.headers['x-svc-delivery-id']).toMatch(/^whdel_[0-9A-HJKMNP-TV-Z]{26}$/);
      const verified = verifyWebhook({ payload: hit.body, headers: hit.headers, secret: l.secret });
      expect(verified).toEqual(event);
      expect(hit.body.toString()).toBe(JSON.stringify(event)); // same fields, same order, same bytes
      // another secret does not verify it
      expect(() =>
        verifyWebhook({ payload: hit.body, headers: hit.headers, secret: `whsec_${'0'.repeat(48)}` }),
      ).toThrow(/no signature matches/);
    }
    // in commit order, one forward each, and one line each way per event
    const ours = rx.received.filter((r) => events.some((e) => e.id === r.headers['x-svc-event-id']));
    expect(ours.map((r) => r.headers['x-svc-event-id'])).toEqual(events.map((e) => e.id));
    await until('the response lines', () => (l.stdout().match(/<-- \[200\]/g) ?? []).length >= 2);
    for (const e of events)
      expect(l.stdout()).toMatch(
        new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z  --> customer\\.created \\[${e.id}\\]$`, 'm'),
      );
    expect(l.stdout()).toMatch(
      new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z  <-- \\[200\\] POST ${forwardTo} \\(\\d+ ms\\)$`, 'm'),
    );
    // nothing from before "Ready!" (the workspace.created of the bootstrap) was forwarded
    expect(
      rx.received.some((r) => r.headers['x-svc-event-type'] === 'workspace.created' && r.body.includes(ws.workspaceId)),
    ).toBe(false);

    expect(await l.stop()).toEqual({ code: 0, signal: null }); // SIGINT: a clean exit
  });

  it("starts after the newest event in commit order: a test clock's 2027 event and older ones stay unsent", async () => {
    const ws = await server.workspace();
    const future = await futureClockEvent(ws);
    const before = await createCustomer(ws, 'Before listen');
    const forwardTo = `${receiverUrl}/after-ready`;
    const l = await startListen(ws, server.url, ['--forward-to', forwardTo]);
    const after = await createCustomer(ws, 'After ready');
    // The event committed after "Ready!" is the sentinel: once it is in, whatever came before would have been too.
    await until(
      'the forward of the event after Ready',
      () => forwardsOf(after.id).length,
      15_000,
      () => `\nstderr:\n${l.stderr()}`,
    );
    const sent = rx.received.filter((r) => r.path === '/after-ready').map((r) => r.headers['x-svc-event-id']);
    expect(sent).toEqual([after.id]);
    expect(sent).not.toContain(future.id);
    expect(sent).not.toContain(before.id);
    expect(await l.stop()).toEqual({ code: 0, signal: null });
  });

  it("--events filters by type; --format standard signs Standard Webhooks headers; the receiver's status is printed", async () => {
    const ws = await server.workspace();
    const forwardTo = `${receiverUrl}/fail`;
    const l = await startListen(ws, server.url, [
      '--forward-to',
      forwardTo,
      '--events',
      'customer.updated',
      '--format',
      'standard',
    ]);
    const created = await createCustomer(ws, 'C');
    const patched = await ws.client.patch(`/v1/customers/${created.data.id}`, { name: 'C2' });
    expect(patched.status, patched.text).toBe(200);
    const updated = await eventOf(ws, 'customer.updated', created.data.id);

    const [hit] = await until(
      'the customer.updated forward',
      () => forwardsOf(updated.id).length && forwardsOf(updated.id),
      15_000,
      () => `\nstderr:\n${l.stderr()}`,
    );
    expect(hit.headers).toMatchObject({
      'webhook-id': updated.id,
      'webhook-timestamp': expect.stringMatching(/^\d+$/),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
    });
    expect(hit.headers['x-svc-signature']).toBeUndefined();
    const out = verifyWebhookDelivery({ payload: hit.body, headers: hit.headers, secret: l.secret });
    expect(out.format).toBe('standard');
    expect(out.event).toEqual(updated);
    // the same key prints the same secret in every session
    expect(l.secret).toBe(`whsec_${createHmac('sha256', ws.secret).update('svc listen').digest('hex').slice(0, 48)}`);

    await until('the 500 line', () => l.stdout().includes(`<-- [500] POST ${forwardTo}`));
    expect(forwardsOf(created.id)).toEqual([]); // customer.created is filtered out
    expect(l.stdout()).not.toContain('customer.created');
    expect(await l.stop()).toEqual({ code: 0, signal: null });
  });

  it('an unreachable URL is reported per event and listening goes on', async () => {
    const ws = await server.workspace();
    const dead = `http://127.0.0.1:${await freePort()}/hooks`;
    const l = await startListen(ws, server.url, ['--forward-to', dead]);
    const e1 = await createCustomer(ws, 'D');
    await until(
      'the error line',
      () => l.stdout().includes(`<-- [error] POST ${dead} failed: ECONNREFUSED`),
      15_000,
      () => `\nstdout:\n${l.stdout()}`,
    );
    const e2 = await createCustomer(ws, 'E');
    await until('the second event', () => l.stdout().includes(`--> customer.created [${e2.id}]`));
    expect(l.stdout()).toContain(`--> customer.created [${e1.id}]`);
    expect(await l.stop()).toEqual({ code: 0, signal: null });
  });

  it('after the server goes away, it reconnects and resumes after the last event seen: nothing skipped, nothing twice', async () => {
    const ws = await server.workspace();
    const port = await freePort();
    const api = await startInstance(server.dbUrl, { port });
    try {
      const forwardTo = `${receiverUrl}/resume`;
      const l = await startListen(ws, api.url, ['--forward-to', forwardTo]);
      const before = await createCustomer(ws, 'F'); // committed through the in-process server: same database
      await until('the first forward', () => forwardsOf(before.id).length);

      await api.stop();
      await until(
        'the lost connection',
        () => /Connection lost/.test(l.stderr()),
        15_000,
        () => `\nstderr:\n${l.stderr()}`,
      );
      const during = [await createCustomer(ws, 'G'), await createCustomer(ws, 'H')];
      const api2 = await startInstance(server.dbUrl, { port });
      try {
        await until(
          'the forwards missed while down',
          () => during.every((e) => forwardsOf(e.id).length),
          30_000,
          () => `\nstderr:\n${l.stderr()}`,
        );
        expect(l.stderr()).toMatch(/Reconnected\./);
        const after = await createCustomer(ws, 'I');
        await until('the forward after reconnecting', () => forwardsOf(after.id).length);
        const ours = rx.received.filter((r) => r.path === '/resume').map((r) => JSON.parse(r.body.toString()));
        expect(ours.map((e) => e.id)).toEqual([before, ...during, after].map((e) => e.id));
        for (const r of rx.received.filter((x) => x.path === '/resume'))
          expect(verifyWebhook({ payload: r.body, headers: r.headers, secret: l.secret }).type).toBe(
            'customer.created',
          );
        expect(await l.stop()).toEqual({ code: 0, signal: null });
      } finally {
        await api2.stop();
      }
    } finally {
      await api.stop();
    }
  }, 90_000);

  it('a refused key is a clean failure, not a retry loop', async () => {
    const child = spawn(
      process.execPath,
      [SVC_BIN, 'listen', '--forward-to', `${receiverUrl}/x`, '--base-url', server.url],
      {
        cwd: ROOT,
        env: childEnv(server.dbUrl, {
          SVC_KEY_ID: `pk_test_${'0'.repeat(26)}`,
          SVC_SECRET: `sk_test_${'0'.repeat(48)}`,
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(1);
    expect(stderr).toMatch(/^svc: the server refused the API key \(401/m);
    expect(stderr).not.toMatch(/^\s+at .+[(:]\d+/m);
  });
});
