// Writes log lines, two inside a request's log context, for test/core/logger.test.ts.
import { logger, withLogContext } from '../../src/core/logger.ts';

withLogContext({ requestId: 'req_FROMCONTEXT' }, () => {
  setImmediate(() => {
    logger.info({ amount: 1200 }, 'inside a request');
    logger.info('again inside');
  });
});
setTimeout(() => {
  logger.info('outside any request');
  logger.flush();
}, 20);
