import type { Client as WsClient } from 'graphql-ws';

/**
 * Collects what a graphql-ws subscription yields. `until(pred, poke)` waits for `pred`, re-running
 * `poke` (a commit) meanwhile: a subscription starts asynchronously, so the first commits may
 * land before it is live.
 */
export function collect<T>(client: WsClient, query: string, field: string, describe: () => string = () => '') {
  const received: T[] = [];
  const errors: unknown[] = [];
  let notify: (() => void) | undefined;
  const dispose = client.subscribe<Record<string, T>>(
    { query },
    {
      next: (v) => {
        if (v.data?.[field]) received.push(v.data[field]);
        else errors.push(v.errors);
        notify?.();
      },
      error: (e) => {
        errors.push(e instanceof Error ? e.message : e);
        notify?.();
      },
      complete: () => {},
    },
  );
  const until = async (pred: () => boolean, poke?: () => Promise<unknown>, ms = 10_000) => {
    const deadline = Date.now() + ms;
    while (!pred()) {
      if (errors.length) throw new Error(`subscription failed: ${JSON.stringify(errors)}`);
      if (Date.now() > deadline) throw new Error(`timed out; received ${JSON.stringify(received)}${describe()}`);
      if (poke) await poke();
      await new Promise<void>((r) => {
        notify = r;
        setTimeout(r, 300);
      });
    }
  };
  return { received, errors, dispose, until };
}
