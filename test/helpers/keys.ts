import { db } from './server.ts';
import { signingKeyOf } from '../../src/core/auth/signing.ts';
import { randomHex } from '../../src/core/crypto.ts';
import { seal } from '../../src/core/sealed.ts';
import { newId } from '../../src/core/ids.ts';

/**
 * A key of the given mode (full_access unless `role` says otherwise) for an existing workspace, acting for its owner, minted
 * directly (a key may not mint keys of the other mode).
 */
export async function mintKey(
  workspaceId: string,
  mode: 'test' | 'live',
  opts: { name?: string; role?: string; scopes?: string[]; createdAt?: Date } = {},
): Promise<{ id: string; keyId: string; secret: string }> {
  const secret = `sk_${mode}_${randomHex(24)}`;
  const keyId = `pk_${mode}_${randomHex(6)}`;
  const id = newId('apiKey');
  const { rows } = await db().system.query(`SELECT id FROM members WHERE "workspaceId" = $1 AND role = 'owner'`, [
    workspaceId,
  ]);
  await db().system.query(
    `INSERT INTO api_keys (id, "workspaceId", mode, "keyId", name, role, scopes, "signingKey", "memberId", "createdAt")
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      id,
      workspaceId,
      mode,
      keyId,
      opts.name ?? mode,
      opts.role ?? 'full_access',
      opts.scopes ?? [],
      Buffer.from(seal('api_keys', { id, workspaceId }, signingKeyOf(secret))),
      rows[0].id,
      opts.createdAt ?? new Date(),
    ],
  );
  // A live key works only on a workspace activated for live mode (docs/decisions.md, Workspace
  // lifecycle): minting one behind the API activates it, as the operator's live bootstrap does.
  if (mode === 'live') await db().system.query(`UPDATE workspaces SET mode = 'live' WHERE id = $1`, [workspaceId]);
  return { id, keyId, secret };
}

/** A live-mode full_access key for an existing workspace (a test key may not mint live keys). */
export async function mintLiveKey(workspaceId: string): Promise<{ keyId: string; secret: string }> {
  const { keyId, secret } = await mintKey(workspaceId, 'live');
  return { keyId, secret };
}
