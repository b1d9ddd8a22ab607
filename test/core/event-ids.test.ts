// Event ids ascend in minting order (src/core/outbox.ts nextEventId): the events list orders by
// occurredAt then id, so events written in one millisecond list in the order they were emitted.
import { describe, expect, it } from 'vitest';
import { nextEventId } from '../../src/core/outbox.ts';
import { isId } from '../../src/core/ids.ts';

describe('event ids', () => {
  it('10,000 minted at once (many per millisecond) are valid, distinct and already sorted', () => {
    const ids = Array.from({ length: 10_000 }, () => nextEventId());
    expect(ids.every((id) => isId('event', id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});
