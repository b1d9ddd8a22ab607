import { decrypt, encrypt } from './crypto.ts';

/**
 * Every encrypted column, and the columns that name its row. The row's identity is the
 * ciphertext's associated data, so a value copied to another row (another key, endpoint,
 * workspace or table) does not decrypt. `svc rotate-master-key` re-encrypts exactly these.
 */
export const sealedColumns = {
  api_keys: { columns: ['signingKey'], row: ['id', 'workspaceId'] },
  webhook_endpoints: { columns: ['secret', 'previousSecret'], row: ['id', 'workspaceId'] },
  adapters: { columns: ['secrets'], row: ['workspaceId', 'mode', 'kind'] },
  // Stored responses hold what the client was sent (a checkout session's hosted URL, customers'
  // emails): sealed, they are neither readable at rest nor in the statement text that stores them.
  idempotency_keys: { columns: ['body'], row: ['workspaceId', 'mode', 'key'] },
  // Provider tokens of saved payment methods: a token copied to another row, tenant or mode does not decrypt.
  payment_methods: { columns: ['providerToken'], row: ['id', 'workspaceId', 'mode'] },
} as const;

export type SealedTable = keyof typeof sealedColumns;
type RowOf<T extends SealedTable> = Record<(typeof sealedColumns)[T]['row'][number], string>;

/**
 * The associated data: table and row identity (the columns of one table share it, so a row may move a value between
 * them).
 */
export function rowAad<T extends SealedTable>(table: T, row: RowOf<T>): string {
  return ['svc', table, ...sealedColumns[table].row.map((c) => (row as Record<string, string>)[c])].join('\0');
}

export const seal = <T extends SealedTable>(table: T, row: RowOf<T>, plain: Buffer) =>
  encrypt(plain, rowAad(table, row));
export const unseal = <T extends SealedTable>(table: T, row: RowOf<T>, sealed: Buffer | Uint8Array) =>
  decrypt(sealed, rowAad(table, row));
