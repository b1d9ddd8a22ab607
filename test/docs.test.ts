import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { eventsDoc, scopesDoc, statesDoc } from '../scripts/docs.ts';

describe('generated docs', () => {
  it('docs/scopes.md matches the scope catalog (run npm run docs)', () => {
    expect(readFileSync('docs/scopes.md', 'utf8')).toBe(scopesDoc());
  });
  it('docs/events.md matches the event catalog (run npm run docs)', () => {
    expect(readFileSync('docs/events.md', 'utf8')).toBe(eventsDoc());
  });
  it('docs/states.md matches the state machines (run npm run docs)', () => {
    expect(readFileSync('docs/states.md', 'utf8')).toBe(statesDoc());
  });
});
