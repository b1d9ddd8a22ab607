/**
 * The reference the fold is checked against: each aggregation computed by brute force over the
 * events as sent, in scaled bigints (10^12), with canonical decimal output (docs/usage.md, Rollups).
 */
const SCALE = 10n ** 12n;

export interface SentEvent {
  value: string;
  timestamp: number;
  /** Order of receipt: later requests, then higher index. */
  order: number;
  group: string;
}

export function scaled(v: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d{1,12}))?$/.exec(v)!;
  const n = BigInt(m[2]) * SCALE + BigInt((m[3] ?? '').padEnd(12, '0'));
  return m[1] ? -n : n;
}

export function canonical(n: bigint): string {
  const neg = n < 0n;
  const a = neg ? -n : n;
  const whole = a / SCALE;
  const frac = (a % SCALE).toString().padStart(12, '0').replace(/0+$/, '');
  const s = frac ? `${whole}.${frac}` : `${whole}`;
  return neg && s !== '0' ? `-${s}` : s;
}

/** Half away from zero. */
function divRound(num: bigint, den: bigint): bigint {
  const neg = num < 0n;
  const a = neg ? -num : num;
  const q = (a * 2n + den) / (den * 2n);
  return neg ? -q : q;
}

export function reference(aggregation: string, events: SentEvent[]): string {
  if (events.length === 0) return '0';
  const values = events.map((e) => scaled(e.value));
  const sum = values.reduce((s, v) => s + v, 0n);
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  switch (aggregation) {
    case 'count':
      return String(events.length);
    case 'unique_count':
      return String(new Set(events.map((e) => canonical(scaled(e.value)))).size);
    case 'sum':
      return canonical(sum);
    case 'min':
      return canonical(sorted[0]);
    case 'max':
      return canonical(sorted[sorted.length - 1]);
    case 'average':
      return canonical(divRound(sum, BigInt(events.length)));
    case 'latest': {
      const last = [...events].sort((a, b) => a.timestamp - b.timestamp || a.order - b.order).at(-1)!;
      return canonical(scaled(last.value));
    }
  }
  throw new Error(`no reference for ${aggregation}`);
}
