import type { FieldSpec } from '../../graphql/fields.ts';
import type { Payout } from '../../generated/prisma/client.ts';
import { payoutMachine } from './states.ts';

/** spec Payout (`accountId` omitted, as the spec says). */
export const payoutFields: FieldSpec<Payout> = {
  id: { kind: 'id' },
  amount: { kind: 'money' },
  currency: { kind: 'string' },
  status: { kind: 'string', states: payoutMachine },
  method: { kind: 'string' },
  bankCode: { kind: 'string', nullable: true },
  bankName: { kind: 'string' },
  bankAccountNumber: { kind: 'string' },
  bankAccountHolder: { kind: 'string' },
  note: { kind: 'string', nullable: true },
  reference: { kind: 'string', nullable: true },
  failureReason: { kind: 'string', nullable: true },
  ledgerTransactionId: { kind: 'string', nullable: true },
  processedAt: { kind: 'date', nullable: true },
  completedAt: { kind: 'date', nullable: true },
  createdAt: { kind: 'date' },
  updatedAt: { kind: 'date' },
};

export interface Balance {
  ledgerBalance: bigint;
  locked: bigint;
  available: bigint;
  currency: string;
}

export interface BankAccount {
  bankCode: string | null;
  bankName: string | null;
  bankAccountNumber: string | null;
  bankAccountHolder: string | null;
}
