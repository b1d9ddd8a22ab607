/**
 * The provider's off-session answer in the shape collect.ts reconciles (src/modules/collection/offsession.ts;
 * docs/decisions.md, Off-session outcomes): declines keep the provider's code, expired and revoked tokens move the
 * method, requires_action carries the provider's page and expiry, pending stays pending.
 */
import { describe, expect, it } from 'vitest';
import { answerOf, Gate } from '../../../src/modules/collection/offsession.ts';

describe('answerOf', () => {
  it('succeeded: paid, with the provider reference', () => {
    expect(answerOf({ providerRef: 'pr_1', status: 'succeeded', raw: {} })).toEqual({
      ok: true,
      providerReference: 'pr_1',
    });
  });

  it('failed: the normalised code and the provider code; expired and revoked tokens move the method', () => {
    expect(
      answerOf({
        providerRef: 'pr_2',
        status: 'failed',
        failureCode: 'insufficient_funds',
        providerCode: 'INSUFFICIENT_BALANCE',
        failureMessage: 'Not enough',
        raw: {},
      }),
    ).toEqual({
      ok: false,
      failureCode: 'insufficient_funds',
      failureMessage: 'Not enough',
      providerCode: 'INSUFFICIENT_BALANCE',
    });
    expect(answerOf({ providerRef: 'pr_3', status: 'failed', failureCode: 'expired_card', raw: {} })).toMatchObject({
      ok: false,
      methodMove: 'expire',
    });
    expect(
      answerOf({ providerRef: 'pr_4', status: 'failed', failureCode: 'payment_method_revoked', raw: {} }),
    ).toMatchObject({ ok: false, methodMove: 'revoke' });
    // No code from the provider: a plain decline, never a method move.
    const plain = answerOf({ providerRef: 'pr_5', status: 'failed', raw: {} });
    expect(plain).toMatchObject({ ok: false, failureCode: 'payment_declined' });
    expect(plain).not.toHaveProperty('methodMove');
  });

  it('requires_action: the provider page and expiry; pending: no outcome yet', () => {
    expect(
      answerOf({
        providerRef: 'pr_6',
        status: 'requires_action',
        nextAction: {
          type: 'redirect',
          url: 'https://provider.example/3ds/abc',
          expiresAt: '2026-12-01T00:00:00.000Z',
        },
        raw: {},
      }),
    ).toEqual({
      ok: null,
      waiting: 'requires_action',
      providerReference: 'pr_6',
      nextAction: { url: 'https://provider.example/3ds/abc', expiresAt: new Date('2026-12-01T00:00:00.000Z') },
    });
    expect(answerOf({ providerRef: 'pr_7', status: 'requires_action', raw: {} })).toMatchObject({ nextAction: null });
    expect(answerOf({ providerRef: 'pr_8', status: 'pending', raw: {} })).toEqual({
      ok: null,
      waiting: 'pending',
      providerReference: 'pr_8',
    });
  });
});

describe('Gate (SVC_OFFSESSION_CONCURRENCY per adapter)', () => {
  it('never runs more than its limit at once, runs every call, and frees its place when a call throws', async () => {
    const gate = new Gate(() => 3);
    let running = 0;
    let peak = 0;
    const call = (i: number) =>
      gate.run(async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 5 + (i % 4)));
        running--;
        if (i % 7 === 0) throw new Error(`call ${i}`);
        return i;
      });
    const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => call(i)));
    expect(peak).toBe(3);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(34);
    expect(running).toBe(0);
  });
});
