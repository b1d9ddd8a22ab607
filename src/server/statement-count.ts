import type { FastifyInstance, FastifyRequest } from 'fastify';
import { countingStatements, withStatementCounter, type StatementCounter } from '../core/db/statements.ts';

const counters = new WeakMap<FastifyRequest, StatementCounter>();

/**
 * With statement counting on (src/core/db/statements.ts), each request's handler runs inside its
 * own counter and the count goes back in `x-svc-statements`. preHandler, not onRequest: the body is
 * read on the socket's callbacks, which would leave the counter's async context.
 */
export function countStatementsPerRequest(fastify: FastifyInstance) {
  if (!countingStatements()) return;
  fastify.addHook('preHandler', (req, _reply, done) => {
    const counter = { count: 0 };
    counters.set(req, counter);
    withStatementCounter(counter, done);
  });
  fastify.addHook('onSend', async (req, reply, payload) => {
    const counter = counters.get(req);
    if (counter) reply.header('x-svc-statements', String(counter.count));
    return payload;
  });
}
