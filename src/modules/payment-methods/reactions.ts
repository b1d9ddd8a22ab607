// The payment methods' reactions to the modules below them (src/core/reactions.ts), registered when
// this file loads: src/modules/reactions.ts imports it for every process.
import { defaultMethodSet } from '../customers/hooks.ts';
import { checkDefaultMethod } from './service.ts';

// A customer's new default is one of its active methods, flagged in the customer's transaction.
defaultMethodSet.register('payment-methods: check and flag the default', checkDefaultMethod);
