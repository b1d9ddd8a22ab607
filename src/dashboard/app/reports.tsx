// Reports: profit and loss and cash flow of a period (pnlReport, cashFlowReport), a chart of
// the cash flow per day drawn as inline SVG, and the ledger's CSV export (GET /v1/reports/ledger.csv,
// fetched with the session's CSRF header and the mode, then saved by the browser).
import { useState } from 'preact/hooks';
import type { Mode, Session } from './api.ts';
import type { DashboardReportsQuery, DashboardReportsQueryVariables } from './generated/operations.ts';
import { money } from './format.ts';
import { useQuery } from './hooks.ts';
import { ReportsDocument } from './operations.ts';
import type { ScreenProps } from './screens.tsx';

const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const CURRENCIES = ['IDR', 'USD'];

type Day = DashboardReportsQuery['cashFlowReport']['byDay'][number];

/** Money in above the axis, money out below it, one pair of bars per day. */
function CashFlowChart({ days, label, format }: { days: Day[]; label: string; format(n: number): string }) {
  const max = Math.max(1, ...days.map((d) => Math.max(d.inflows, d.outflows)));
  return (
    <svg
      class="chart"
      data-testid="cash-flow-chart"
      viewBox={`0 0 ${Math.max(1, days.length) * 10} 100`}
      preserveAspectRatio="none"
      role="img"
      aria-label={label}
    >
      <line x1={0} x2={Math.max(1, days.length) * 10} y1={50} y2={50} stroke="currentColor" stroke-width={0.3} />
      {days.map((d, i) => {
        const up = Math.round((d.inflows / max) * 48);
        const down = Math.round((d.outflows / max) * 48);
        return (
          <g key={d.date}>
            <title>{`${d.date}: +${format(d.inflows)} / -${format(d.outflows)}`}</title>
            <rect class="in" x={i * 10 + 1} y={50 - up} width={8} height={up} />
            <rect class="out" x={i * 10 + 1} y={50} width={8} height={down} fill="#b3261e" />
          </g>
        );
      })}
    </svg>
  );
}

export function Reports(p: ScreenProps & { session: Session; mode: Mode }) {
  const now = new Date();
  const [from, setFrom] = useState(isoDay(new Date(now.getTime() - 29 * 86400_000)));
  const [to, setTo] = useState(isoDay(now));
  const [currency, setCurrency] = useState('IDR');
  const [note, setNote] = useState<string | null>(null);
  const q = useQuery<DashboardReportsQuery, DashboardReportsQueryVariables>(
    p.client,
    ReportsDocument,
    { currency, from, to },
    p.tick,
  );
  const fmt = (n: number) => money(n, currency, p.lang);
  async function exportCsv() {
    const qs = new URLSearchParams({ from, to, currency });
    const res = await fetch(`/v1/reports/ledger.csv?${qs}`, {
      credentials: 'same-origin',
      headers: { 'x-svc-csrf': p.session.csrf, 'x-svc-mode': p.mode },
    });
    if (!res.ok) return setNote(p.t.error);
    setNote(null);
    const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'ledger.csv';
    const href = URL.createObjectURL(await res.blob());
    const a = document.createElement('a');
    a.href = href;
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(href), 10_000);
  }
  const pnl = q.data?.pnlReport;
  const flow = q.data?.cashFlowReport;
  const row = (label: string, value: number | undefined, testid?: string) => (
    <tr>
      <th scope="row">{label}</th>
      <td data-testid={testid}>{value === undefined ? '—' : fmt(value)}</td>
    </tr>
  );
  return (
    <section aria-labelledby="reports-title">
      <h1 id="reports-title">{p.t.reports}</h1>
      <form class="refund" data-testid="report-period" onSubmit={(e) => e.preventDefault()}>
        <label>
          {p.t.from} <input type="date" required value={from} onChange={(e) => setFrom((e.target as HTMLInputElement).value)} />
        </label>{' '}
        <label>
          {p.t.to} <input type="date" required value={to} onChange={(e) => setTo((e.target as HTMLInputElement).value)} />
        </label>{' '}
        <label>
          {p.t.currency}{' '}
          <select value={currency} onChange={(e) => setCurrency((e.target as HTMLSelectElement).value)}>
            {CURRENCIES.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>{' '}
        <button type="button" onClick={exportCsv}>
          {p.t.exportCsv}
        </button>
      </form>
      {q.error ? <p role="alert">{q.error}</p> : null}
      {note ? <p role="alert">{note}</p> : null}
      <div class="cards">
        <div class="card">
          <h2>{p.t.pnl}</h2>
          <table data-testid="pnl">
            <tbody>
              {(pnl?.revenue ?? []).map((r) => row(`${p.t.revenue}: ${r.code}`, r.amount))}
              {row(p.t.revenue, pnl?.totalRevenue, 'pnl-revenue')}
              {row(p.t.refunds, pnl?.refunds)}
              {row(p.t.fees, pnl?.fees)}
              {row(p.t.tax, pnl?.tax)}
              {row(p.t.netIncome, pnl?.netIncome, 'pnl-net')}
            </tbody>
          </table>
        </div>
        <div class="card">
          <h2>{p.t.cashFlow}</h2>
          <table data-testid="cash-flow">
            <tbody>
              {row(p.t.openingBalance, flow?.openingBalance)}
              {row(p.t.inflows, flow?.inflows, 'cash-in')}
              {row(p.t.outflows, flow?.outflows)}
              {row(p.t.closingBalance, flow?.closingBalance)}
            </tbody>
          </table>
        </div>
      </div>
      <h2>{p.t.cashFlowChart}</h2>
      <CashFlowChart days={flow?.byDay ?? []} label={p.t.cashFlowChart} format={fmt} />
    </section>
  );
}
