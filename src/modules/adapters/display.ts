/**
 * What customers read for a payment method: on the checkout page, its instructions, receipts and
 * invoice documents, in the customer's language (the catalog, src/core/i18n). No page shows an
 * internal word: `provider_c` is an adapter kind and a method id in the API (spec), never a name a
 * customer knows.
 */
import { type Language, messages } from '../../core/i18n/index.ts';
import type { PaymentMethod } from './capabilities.ts';

type Display = { label: string; receiptLabel: string; hint: string };

/** Every payment method's label and hint in a language. */
export const methodDisplay = (lang: Language): Record<PaymentMethod, Display> => messages(lang).methods;

/** The receipt's label of a method id (an unknown one as is: older rows, manual bank transfers). */
export const methodReceiptLabel = (method: string, lang: Language = 'en'): string =>
  (messages(lang).methods as Record<string, Display>)[method]?.receiptLabel ?? method;

/** Whether the catalog names this method (else a stored label stands). */
export const isDisplayedMethod = (method: string): boolean => Object.hasOwn(messages('en').methods, method);
