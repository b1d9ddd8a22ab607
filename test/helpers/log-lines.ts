// Writes log lines, two inside a request's log context, for test/core/logger.test.ts.
import { logger, withLogContext } from '../../src/core/logger.ts';

withLogContext({ requestId: 'req_FROMCONTEXT' }, () => {
  setImmediate(() => {
    logger.info({ amount: 1200 }, 'inside a request');
    logger.info('again inside');
    // What the server's access log writes for each request (src/server/http.ts, onResponse).
    logger.info({ method: 'GET', url: '/v1/customers', route: '/v1/customers', status: 200, ms: 3 }, 'request');
  });
});
setTimeout(() => {
  logger.info('outside any request');
  logger.flush();
}, 20);
