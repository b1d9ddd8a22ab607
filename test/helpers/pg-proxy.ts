import net from 'node:net';

/** ReadyForQuery ('Z', length 5): the server has finished the message, COMMIT included. */
const READY_FOR_QUERY = Buffer.from([0x5a, 0, 0, 0, 5]);

/**
 * A TCP proxy in front of a PostgreSQL server that can lose the answer to a COMMIT: armed with
 * `cutNextCommit()`, the next client message carrying `COMMIT` reaches the server, which commits,
 * and the connection is cut before the answer gets back. The client sees "Connection terminated":
 * a commit whose outcome it cannot know.
 */
export async function pgProxy(targetUrl: string) {
  const target = new URL(targetUrl);
  let armed: (() => void) | undefined;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    let cut: (() => void) | undefined;
    let answer = Buffer.alloc(0);
    client.on('data', (d) => {
      if (armed && d.includes('COMMIT')) {
        cut = armed;
        armed = undefined;
      }
      upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (!cut) return void client.write(d);
      answer = Buffer.concat([answer, d]);
      if (!answer.includes(READY_FOR_QUERY)) return;
      client.destroy();
      upstream.destroy();
      cut();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    /** `url` with the proxy's host and port. */
    url(url: string) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    /** Resolves once a COMMIT has reached the server and its answer was thrown away. */
    cutNextCommit() {
      return new Promise<void>((resolve) => {
        armed = resolve;
      });
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
