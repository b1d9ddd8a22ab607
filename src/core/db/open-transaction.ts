import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Whether the code running now is inside a tenant transaction (`inTenant`, `tenantTx`). A provider
 * is never called with a transaction open: the call may take its whole timeout while the transaction
 * holds its locks and a pool connection (write pending, commit, call, record the answer). The
 * providers' HTTP transport refuses a call made inside one (src/providers/http.ts).
 */
const open = new AsyncLocalStorage<true>();

export const transactionOpen = (): boolean => open.getStore() === true;

/** Runs `fn` marked as inside a transaction, for it and everything it awaits. */
export const insideTransaction = <T>(fn: () => Promise<T>): Promise<T> => open.run(true, fn);
