import type { Tx } from './db/client.ts';

/**
 * A transaction-scoped advisory lock on a name: serialises writers of something that may not
 * exist yet (the first PUT of an adapter kind, the default template of a kind), where a row lock
 * has nothing to hold. Released at commit or rollback.
 */
export async function lockName(tx: Tx, name: string) {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${name}, 0))`;
}
