// Collection's reactions to the modules below it (src/core/reactions.ts), registered when this file
// loads: src/modules/reactions.ts imports it for every process.
import { paymentSimulated } from '../payments/hooks.ts';
import { simulateWaiting } from './waiting.ts';

// A waiting off-session charge is collection's to settle (waiting.ts).
paymentSimulated.register('collection: settle waiting charge', simulateWaiting);
