// What the hosted page shows for an attempt: the sandbox's instructions, a provider's, a bank transfer's.
import { randomHex } from '../../core/crypto.ts';
import type { PaymentMethod } from '../adapters/capabilities.ts';
import type { Instructions } from '../../providers/index.ts';
import type { CheckoutSession } from '../../generated/prisma/client.ts';
import { methodDisplay } from '../adapters/display.ts';
import { type Language, messages } from '../../core/i18n/index.ts';

/** What the page shows after an attempt (src/hosted/page.ts renders it). */
export interface AttemptView {
  title: string;
  label: string;
  qrSvg?: string;
  code?: string;
  lines: string[];
  redirectUrl?: string;
  canDeclarePaid: boolean;
  canSimulate: boolean;
  waiting: boolean;
}

// A fixed mask pattern: every mask scans, and scoring all eight was most of the attempt's CPU.
const qrSvg = async (text: string) =>
  (await import('qrcode')).default.toString(text, {
    type: 'svg',
    margin: 1,
    errorCorrectionLevel: 'M',
    maskPattern: 2,
  });

/** The test-mode sandbox (spec Payment flow): instructions that look real, settled by `simulate`. */
export async function sandboxAttempt(s: CheckoutSession, method: PaymentMethod, lang: Language) {
  const ref = `sandbox_${randomHex(8)}`;
  const label = methodDisplay(lang)[method].label;
  const M = messages(lang).checkout;
  switch (method) {
    case 'qris': {
      const amountLength = String(s.amount).length.toString().padStart(2, '0');
      const qr =
        `00020101021226570011ID.SVC.WWW0118${ref}5204599953033605802ID5907SANDBOX6007JAKARTA54` +
        `${amountLength}${s.amount}6304ABCD`;
      return {
        ref,
        data: { kind: 'qr', qrString: qr },
        view: { title: M.scanTitle, label, qrSvg: await qrSvg(qr), lines: [M.scanLine] },
      };
    }
    case 'va': {
      const va = `8808${String(BigInt(`0x${randomHex(6)}`) % 10n ** 12n).padStart(12, '0')}`;
      return {
        ref,
        data: { kind: 'va', bankCode: 'BCA', vaNumber: va },
        view: { title: M.vaTitle, label, code: va, lines: [M.bank('BCA (sandbox)'), M.amountExact] },
      };
    }
    case 'retail': {
      const code = `SVC${randomHex(4).toUpperCase()}`;
      return {
        ref,
        data: { kind: 'retail', outlet: 'ALFAMART', paymentCode: code },
        view: { title: M.retailTitle, label, code, lines: [M.retailAnywhere] },
      };
    }
    default:
      return {
        ref,
        data: { kind: 'redirect' },
        view: { title: M.sandboxTitle(label), label, lines: [M.sandboxLine] },
      };
  }
}

/** A provider's instructions as the page shows them. */
export async function instructionsView(i: Instructions, label: string, lang: Language) {
  const M = messages(lang).checkout;
  switch (i.kind) {
    case 'qr':
      return { title: M.scanTitle, label, qrSvg: await qrSvg(i.qrString), lines: [M.scanLine] };
    case 'va':
      return { title: M.vaTitle, label, code: i.vaNumber, lines: [M.bank(i.bankCode), M.amountExact] };
    case 'retail':
      return { title: M.retailTitle, label, code: i.paymentCode, lines: [M.retailAt(i.outlet)] };
    case 'redirect':
      return { title: M.continueTo(label), label, redirectUrl: i.redirectUrl, lines: [] };
    default:
      return { title: label, label, lines: [] };
  }
}

export function manualAttempt(publicConfig: Record<string, unknown>, lang: Language) {
  const accounts = (publicConfig.bankAccounts ?? []) as {
    bankName: string;
    accountNumber: string;
    accountHolder: string;
  }[];
  const lines = accounts.map((a) => `${a.bankName} ${a.accountNumber} (${a.accountHolder})`);
  if (typeof publicConfig.instructions === 'string') lines.push(publicConfig.instructions);
  if (typeof publicConfig.staticQrImageUrl === 'string') lines.push(`QR: ${publicConfig.staticQrImageUrl}`);
  const M = messages(lang);
  return { title: M.checkout.manualTitle, label: M.methods.bank_transfer.label, lines, canDeclarePaid: true };
}
