import { logger } from '../src/core/logger.ts';
import { expireDueMethods } from '../src/modules/payment-methods/expiry.ts';
import { job } from './job.ts';

/** Queue `payment-method-expiry`: every minute, expires active cards past `expiresAt` (real-clock customers). */
export const paymentMethodExpiry = job({
  queue: 'payment-method-expiry',
  schedule: '* * * * *',
  policy: { retryLimit: 1, expireInSeconds: 120 },
  async handler() {
    const n = await expireDueMethods();
    if (n) logger.info({ expired: n }, 'payment methods expired');
  },
});
