// The form of an amount of money and, where the API asks one, a reason: a refund, a credit note, a
// payout (docs/dashboard.md, Screens). Empty means all that can be (`all`, shown as the placeholder).
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { fromMinor, toMinor } from './format.ts';
import type { Answer } from './hooks.ts';

export interface AmountFormProps {
  testId: string;
  label: string;
  currency: string;
  /** What an empty amount means, in minor units. */
  all: number;
  /** The API's reasons (value to label) and the one picked first; none: no reason is asked. */
  reasons?: { label: string; options: Record<string, string>; initial: string };
  button: string;
  /** The mutation: its answer goes to `report`, which says whether it succeeded (the form then empties). */
  submit(minor: number, reason: string | undefined): Promise<Answer>;
  report(r: Answer): boolean;
  /** An amount that is not a number: the screen's error note. */
  invalid(): void;
  children?: ComponentChildren;
}

export function AmountForm(p: AmountFormProps) {
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState(p.reasons?.initial);
  const [busy, setBusy] = useState(false);
  async function send(e: Event) {
    e.preventDefault();
    const minor = amount.trim() ? toMinor(amount, p.currency) : p.all;
    if (!minor) return p.invalid();
    setBusy(true);
    const r = await p.submit(minor, reason);
    setBusy(false);
    if (p.report(r)) setAmount('');
  }
  return (
    <form class="refund" data-testid={p.testId} onSubmit={send}>
      {p.children}
      <label>
        {p.label} ({p.currency}){' '}
        <input
          inputMode="decimal"
          value={amount}
          placeholder={fromMinor(p.all, p.currency)}
          onInput={(e) => setAmount((e.target as HTMLInputElement).value)}
        />
      </label>{' '}
      {p.reasons ? (
        <label>
          {p.reasons.label}{' '}
          <select value={reason} onChange={(e) => setReason((e.target as HTMLSelectElement).value)}>
            {Object.entries(p.reasons.options).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
      ) : null}{' '}
      <button type="submit" disabled={busy}>
        {p.button}
      </button>
    </form>
  );
}
