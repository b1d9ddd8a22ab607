/** The one source of "now": sweeps, expiries and retries are tested by moving it, never by sleeping. */
export interface Clock {
  now(): Date;
}

let offsetMs = 0;
export const clock: Clock & { advance(ms: number): void; reset(): void } = {
  now: () => new Date(Date.now() + offsetMs),
  advance(ms: number) {
    offsetMs += ms;
  },
  reset() {
    offsetMs = 0;
  },
};

export const epochSeconds = (d: Date = clock.now()) => Math.floor(d.getTime() / 1000);
