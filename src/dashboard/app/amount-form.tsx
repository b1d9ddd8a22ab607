// The form of an amount of money and, where the API asks one, a reason: a refund, a credit note, a
// payout (docs/dashboard.md, Screens). Empty means all that can be (`all`, shown as the placeholder).
// Amounts are typed as the dashboard shows them ("25.000" in IDR, "1,250.50" in USD): `readAmount`.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { amountText, readAmount } from './format.ts';
import type { Answer } from './hooks.ts';
import type { Lang } from './i18n.ts';

/** An amount input with what is wrong with it said beside it (and tied to it for screen readers). */
export function AmountField(p: {
  id: string;
  label: string;
  currency: string;
  value: string;
  error: string | null;
  required?: boolean;
  placeholder?: string;
  onInput(value: string): void;
}) {
  // The message sits outside the label: it describes the input (aria-describedby) and is not part of its name.
  return (
    <>
      <label>
        {p.label} ({p.currency}){' '}
        <input
          inputMode="decimal"
          required={p.required}
          value={p.value}
          placeholder={p.placeholder}
          aria-invalid={p.error ? 'true' : undefined}
          aria-describedby={p.error ? `${p.id}-error` : undefined}
          onInput={(e) => p.onInput((e.target as HTMLInputElement).value)}
        />
      </label>
      {p.error ? (
        <span class="field-error" id={`${p.id}-error`} data-testid={`${p.id}-error`} role="alert">
          {p.error}
        </span>
      ) : null}
    </>
  );
}

export interface AmountFormProps {
  testId: string;
  label: string;
  currency: string;
  lang: Lang;
  /** What an empty amount means, in minor units. */
  all: number;
  /** The API's reasons (value to label) and the one picked first; none: no reason is asked. */
  reasons?: { label: string; options: Record<string, string>; initial: string };
  button: string;
  /** Asked before sending (a refund): the question for this amount, and the two answers. */
  confirm?: { question(minor: number): string; yes: string; no: string };
  /** The mutation: its answer goes to `report`, which says whether it succeeded (the form then empties). */
  submit(minor: number, reason: string | undefined): Promise<Answer>;
  report(r: Answer): boolean;
  children?: ComponentChildren;
}

export function AmountForm(p: AmountFormProps) {
  const [amount, setAmount] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [reason, setReason] = useState(p.reasons?.initial);
  const [busy, setBusy] = useState(false);
  /** The amount waiting for the member's confirmation. */
  const [pending, setPending] = useState<number | null>(null);
  async function send(minor: number) {
    setPending(null);
    setBusy(true);
    const r = await p.submit(minor, reason);
    setBusy(false);
    if (p.report(r)) setAmount('');
  }
  function check(e: Event) {
    e.preventDefault();
    const read = amount.trim() ? readAmount(amount, p.currency, p.lang) : { minor: p.all };
    if ('error' in read) return setError(read.error);
    setError(null);
    if (p.confirm) setPending(read.minor);
    else void send(read.minor);
  }
  return (
    <form class="refund" data-testid={p.testId} onSubmit={check}>
      {p.children}
      <AmountField
        id={`${p.testId}-amount`}
        label={p.label}
        currency={p.currency}
        value={amount}
        error={error}
        placeholder={amountText(p.all, p.currency)}
        onInput={(v) => {
          setAmount(v);
          setError(null);
          setPending(null);
        }}
      />{' '}
      {p.reasons ? (
        <label>
          {p.reasons.label}{' '}
          <select
            value={reason}
            onChange={(e) => {
              setReason((e.target as HTMLSelectElement).value);
              setPending(null);
            }}
          >
            {Object.entries(p.reasons.options).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
      ) : null}{' '}
      <button type="submit" disabled={busy || pending !== null}>
        {p.button}
      </button>
      {p.confirm && pending !== null ? (
        <div class="confirm" role="alertdialog" aria-labelledby={`${p.testId}-question`} data-testid={`${p.testId}-confirm`}>
          <p id={`${p.testId}-question`}>{p.confirm.question(pending)}</p>
          <button type="button" onClick={() => send(pending)}>
            {p.confirm.yes}
          </button>{' '}
          <button type="button" onClick={() => setPending(null)}>
            {p.confirm.no}
          </button>
        </div>
      ) : null}
    </form>
  );
}
