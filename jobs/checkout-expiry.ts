import { logger } from '../src/core/logger.ts';
import { expireDueSessions } from '../src/modules/checkout-sessions/expiry.ts';
import { expireDueSetupSessions } from '../src/modules/setup-sessions/expiry.ts';
import { job } from './job.ts';

/**
 * Queue `checkout-expiry`: every minute, expires live checkout sessions past `expiresAt` (spec: up to about a
 * minute late), and setup sessions the same way (docs/guides/setup-sessions.md, Expiry).
 */
export const checkoutExpiry = job({
  queue: 'checkout-expiry',
  schedule: '* * * * *',
  policy: { retryLimit: 1, expireInSeconds: 120 },
  async handler() {
    const n = await expireDueSessions();
    if (n) logger.info({ expired: n }, 'checkout sessions expired');
    const setups = await expireDueSetupSessions();
    if (setups) logger.info({ expired: setups }, 'setup sessions expired');
  },
});
