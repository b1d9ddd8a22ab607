import { db } from './server.ts';
import { signingKeyOf } from '../../src/core/auth/signing.ts';
import { encrypt, randomHex } from '../../src/core/crypto.ts';
import { newId } from '../../src/core/ids.ts';

/** A live-mode full_access key for an existing workspace, minted directly (a test key may not mint live keys). */
export async function mintLiveKey(workspaceId: string): Promise<{ keyId: string; secret: string }> {
  const secret = `sk_live_${randomHex(24)}`;
  const keyId = `pk_live_${randomHex(6)}`;
  const { rows } = await db().system.query(`SELECT id FROM members WHERE "workspaceId" = $1 AND role = 'owner'`, [workspaceId]);
  await db().system.query(
    `INSERT INTO api_keys (id, "workspaceId", mode, "keyId", name, role, scopes, "signingKey", "memberId", "createdAt")
     VALUES ($1, $2, 'live', $3, 'live', 'full_access', '{}', $4, $5, now())`,
    [newId('apiKey'), workspaceId, keyId, Buffer.from(encrypt(signingKeyOf(secret))), rows[0].id],
  );
  return { keyId, secret };
}
