import { logger } from '../src/core/logger.ts';
import { expireInvitations } from '../src/modules/members/service.ts';
import { job } from './job.ts';

/** Queue `invitation-expiry`: every minute, pending member invitations past `expiresAt` (7 days) become expired. */
export const invitationExpiry = job({
  queue: 'invitation-expiry',
  schedule: '* * * * *',
  policy: { retryLimit: 1, expireInSeconds: 120 },
  async handler() {
    const n = await expireInvitations();
    if (n) logger.info({ expired: n }, 'member invitations expired');
  },
});
