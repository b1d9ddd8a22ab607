/** `p`, or a rejection naming `what` once `ms` have passed (a hang fails the test instead of stalling it). */
export const within = <T>(ms: number, what: string, p: Promise<T>) =>
  Promise.race([
    p,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms).unref(),
    ),
  ]);

const timed = async (url: string) => {
  const t = performance.now();
  const ok = await within(10_000, url, fetch(url)).then(
    async (r) => (await r.arrayBuffer(), r.status === 200),
    () => false,
  );
  return ok ? performance.now() - t : Number.POSITIVE_INFINITY;
};

/**
 * GET /healthz every 100 ms until stopped, each beside a request that needs no database (the cached
 * OpenAPI document) sent at the same moment. `worst` is the slowest /healthz (Infinity when one got
 * no answer within 10 s); `overControl` what each /healthz took beyond its control request: what
 * waiting for the database added, apart from what a starved CPU costs every request alike (the
 * suite runs on two shared cores, where PostgreSQL itself is starved too, hence p95 and not max).
 */
export function watchHealth(url: string) {
  let worst = 0;
  const overControl: number[] = [];
  let on = true;
  const done = (async () => {
    await timed(`${url}/v1/openapi.json`); // built on first request
    while (on) {
      const [health, control] = await Promise.all([timed(`${url}/healthz`), timed(`${url}/v1/openapi.json`)]);
      worst = Math.max(worst, health);
      overControl.push(health - Math.min(control, health));
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return async () => {
    on = false;
    await done;
    const sorted = overControl.sort((a, b) => a - b);
    return {
      worst,
      samples: sorted.length,
      p95OverControl: sorted[Math.ceil(sorted.length * 0.95) - 1] ?? 0,
      worstOverControl: sorted.at(-1) ?? 0,
    };
  };
}
