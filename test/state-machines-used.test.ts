// A rule over src/, jobs/ and rest-compat/: every status and event type a machine owns comes from its
// table (src/modules/<module>/states.ts), never from a literal: the checker is test/helpers/status-literals.ts,
// its probes test/meta-status-probes.test.ts.
import { describe, expect, it } from 'vitest';
import { machines } from '../src/modules/state-machines.ts';
import { invoiceMachine } from '../src/modules/invoices/states.ts';
import { finalActions } from '../src/modules/dunning-policies/service.ts';
import { ALLOWED, scannedFiles, treeFindings, vocabularyOf } from './helpers/status-literals.ts';

describe('every status and event from its machine', () => {
  const vocabulary = vocabularyOf(Object.values(machines));

  it('no status or event type is written by hand', () => {
    expect(vocabulary.events.size).toBeGreaterThan(20);
    expect(vocabulary.statuses.size).toBeGreaterThan(30);
    expect(treeFindings(vocabulary)).toEqual([]);
  });

  it('the allowlist is small and names files that exist and words that are statuses', () => {
    const files = new Set(scannedFiles());
    expect(Object.keys(ALLOWED).length).toBeLessThanOrEqual(16);
    for (const [file, { words }] of Object.entries(ALLOWED)) {
      expect(files.has(file), file).toBe(true);
      for (const w of words) expect(vocabulary.statuses.has(w), `${file}: ${w}`).toBe(true);
    }
  });

  it("a dunning policy's final actions are invoice statuses", () => {
    for (const a of finalActions) expect(invoiceMachine.statuses).toContain(a);
  });
});
