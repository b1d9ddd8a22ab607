/**
 * Every module's reactions (src/core/reactions.ts; docs/architecture.md, Layers), registered by
 * importing this file: the compositions (schema/index.ts for the HTTP server, jobs/worker.ts) import
 * it, so no process runs a lower module's change without its upper modules' reactions.
 * test/core/reactions.test.ts checks that every declared reaction is registered here.
 */
import './checkout-sessions/reactions.ts';
import './collection/reactions.ts';
import './credit-notes/reactions.ts';
import './payment-methods/reactions.ts';
import './subscriptions/reactions.ts';
