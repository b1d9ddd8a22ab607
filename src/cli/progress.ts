/**
 * A one-line progress bar for long work (migrations, replays, bench seeding), drawn on stderr only
 * when stderr is a terminal: piped or captured output stays exactly what it was.
 */
export interface Progress {
  /** Adds `n` done units; `note` replaces the text after the bar. */
  tick(n?: number, note?: string): void;
  /** Clears the bar (call before printing anything else, and at the end). */
  done(): void;
}

const WIDTH = 24;
const silent: Progress = { tick() {}, done() {} };

export function progress(
  label: string,
  total: number,
  out: Pick<NodeJS.WriteStream, 'isTTY' | 'write'> = process.stderr,
): Progress {
  if (!out.isTTY || total <= 0) return silent;
  let count = 0;
  let note = '';
  let last = 0;
  const draw = (force = false) => {
    const now = Date.now();
    if (!force && now - last < 50) return; // a redraw per 50 ms is plenty
    last = now;
    const filled = Math.round((Math.min(count, total) / total) * WIDTH);
    out.write(
      `\r\x1b[2K${label} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${count}/${total}${note ? ` ${note}` : ''}`,
    );
  };
  draw(true);
  return {
    tick(n = 1, text) {
      count += n;
      if (text !== undefined) note = text;
      draw(count >= total);
    },
    done() {
      out.write('\r\x1b[2K');
    },
  };
}
