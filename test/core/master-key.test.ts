// Secrets at rest: each ciphertext is bound to its row and names its master key, old values still
// read, and `svc rotate-master-key` moves everything to a new master key.
import { sealedColumns } from '../../src/core/sealed.ts';
import { describe, expect, it } from 'vitest';
import { createCipheriv, randomBytes, randomUUID } from 'node:crypto';
import { useServer, createClient, db, type Workspace } from '../helpers/server.ts';
import { childEnv, startInstance, svc } from '../helpers/cli.ts';
import { config } from '../../src/core/config.ts';
import { decrypt, masterKeyId } from '../../src/core/crypto.ts';
import { rowAad, seal, unseal } from '../../src/core/sealed.ts';
import { signingKeyOf } from '../../src/core/auth/signing.ts';
import { forgetKey } from '../../src/core/auth/authenticate.ts';

const server = useServer();
const key = () => ({ 'idempotency-key': randomUUID() });

/** The pre-rotation format: iv | tag | ciphertext, no key id, no associated data. */
function legacySeal(plain: Buffer, masterKey = config.masterKey): Buffer {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', masterKey, iv);
  const body = Buffer.concat([c.update(plain), c.final()]);
  return Buffer.concat([iv, c.getAuthTag(), body]);
}

async function mint(ws: Workspace) {
  const res = await ws.client.post('/v1/api-keys', { name: 'k' });
  expect(res.status).toBe(201);
  return { id: res.json.data.id as string, keyId: res.json.data.keyId as string, secret: res.json.data.key as string };
}

describe('ciphertexts bound to their row', () => {
  it('a value decrypts only for its own row, table and workspace', () => {
    const row = { id: 'akey_1', workspaceId: 'ws_a' };
    const sealed = seal('api_keys', row, Buffer.from('secret'));
    expect(unseal('api_keys', row, sealed).toString()).toBe('secret');
    expect(() => unseal('api_keys', { id: 'akey_2', workspaceId: 'ws_a' }, sealed)).toThrow();
    expect(() => unseal('api_keys', { id: 'akey_1', workspaceId: 'ws_b' }, sealed)).toThrow();
    expect(() => unseal('webhook_endpoints', row, sealed)).toThrow();
    const adapter = { workspaceId: 'ws_a', mode: 'live', kind: 'provider_a' };
    const creds = seal('adapters', adapter, Buffer.from('{"secretKey":"x"}'));
    expect(() => unseal('adapters', { ...adapter, mode: 'test' }, creds)).toThrow();
    // the format names the master key
    expect(Buffer.from(sealed).subarray(0, 4).toString()).toBe('svc1');
    expect(Buffer.from(sealed).subarray(4, 8).equals(masterKeyId(config.masterKey))).toBe(true);
  });

  it("an API key whose signing key was copied from another workspace's key does not authenticate", async () => {
    const attacker = await server.workspace({ name: 'Attacker' });
    const victim = await server.workspace({ name: 'Victim' });
    const victimKey = await mint(victim);
    // an attacker able to write one column (say, through an injection) plants its own signing key in the victim's row
    const { rows } = await db().system.query(`SELECT "signingKey" FROM api_keys WHERE id = $1`, [attacker.apiKeyId]);
    await db().system.query(`UPDATE api_keys SET "signingKey" = $1 WHERE id = $2`, [rows[0].signingKey, victimKey.id]);
    forgetKey(victimKey.keyId);
    const forged = createClient({ baseUrl: server.url, keyId: victimKey.keyId, secret: attacker.secret });
    const res = await forged.get('/v1/api-keys');
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('invalid_key');
    // nor does the victim's own secret work with a planted value: the key is unusable, not someone else's
    expect(
      (
        await createClient({ baseUrl: server.url, keyId: victimKey.keyId, secret: victimKey.secret }).get(
          '/v1/api-keys',
        )
      ).status,
    ).toBe(401);
    await db().system.query(`DELETE FROM api_keys WHERE id = $1`, [victimKey.id]);
  });

  it('values written before key ids and row binding still decrypt', async () => {
    const ws = await server.workspace();
    const k = await mint(ws);
    await db().system.query(`UPDATE api_keys SET "signingKey" = $1 WHERE id = $2`, [
      legacySeal(signingKeyOf(k.secret)),
      k.id,
    ]);
    forgetKey(k.keyId);
    expect(
      (await createClient({ baseUrl: server.url, keyId: k.keyId, secret: k.secret }).get('/v1/api-keys')).status,
    ).toBe(200);
    expect(decrypt(legacySeal(Buffer.from('old')), rowAad('api_keys', { id: 'x', workspaceId: 'y' })).toString()).toBe(
      'old',
    );
  });
});

describe('svc rotate-master-key', () => {
  it('re-encrypts every secret under the new key, idempotently, and the server then runs on the new key alone', async () => {
    const ws = await server.workspace({ name: 'Rotating' });
    const minted = await mint(ws);
    const endpoint = await ws.client.post('/v1/webhook-endpoints', { url: 'https://93.184.216.34/rotate' });
    expect(endpoint.status, endpoint.text).toBe(201);
    expect(
      (await ws.client.post(`/v1/webhook-endpoints/${endpoint.json.data.id}/rotate-secret`, { overlapSeconds: 3600 }))
        .status,
    ).toBe(200);
    const adapter = await ws.client.put(
      '/v1/adapters/provider_b',
      { serverKey: 'SB-Mid-server-rotate123', clientKey: 'SB-Mid-client-rotate123', merchantId: 'M123' },
      key(),
    );
    expect(adapter.status, adapter.text).toBe(200);
    // one legacy value too
    const legacy = await mint(ws);
    await db().system.query(`UPDATE api_keys SET "signingKey" = $1 WHERE id = $2`, [
      legacySeal(signingKeyOf(legacy.secret)),
      legacy.id,
    ]);

    // and one value under a key the ring does not hold: reported, left alone, exit 1
    const lost = await mint(ws);
    await db().system.query(`UPDATE api_keys SET "signingKey" = $1 WHERE id = $2`, [
      legacySeal(signingKeyOf(lost.secret), randomBytes(32)),
      lost.id,
    ]);

    const newKey = randomBytes(32).toString('hex');
    const env = childEnv(server.dbUrl, {
      SVC_MASTER_KEY: newKey,
      SVC_MASTER_KEY_PREVIOUS: config.masterKey.toString('hex'),
    });
    const first = await svc(['rotate-master-key'], env, { timeoutMs: 60_000 });
    expect(first.code, first.stderr + first.stdout).toBe(1);
    expect(first.stdout).toMatch(/api_keys\.signingKey: \d+ value\(s\)/);
    expect(first.stdout).toMatch(/webhook_endpoints\.previousSecret/);
    expect(first.stdout).toMatch(/adapters\.secrets: \d+\/\d+ \(re-encrypted [1-9]/);
    expect(first.stdout).toContain(`${lost.id}/${ws.workspaceId}: does not decrypt with any key of the ring`);
    expect(first.stdout).toMatch(/done: re-encrypted [1-9]\d*, already current 0, failed 1/);
    await db().system.query(`DELETE FROM api_keys WHERE id = $1`, [lost.id]);

    // every sealed value of the database now names the new key
    const newId = masterKeyId(Buffer.from(newKey, 'hex'));
    // every registered column, so a column added to the registry is covered here too
    const { rows } = await db().system.query(
      Object.entries(sealedColumns)
        .flatMap(([table, { columns }]) =>
          columns.map((c) => `SELECT "${c}" AS v FROM ${table} WHERE "${c}" IS NOT NULL`),
        )
        .join(' UNION ALL '),
    );
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.filter((r) => !(r.v as Buffer).subarray(4, 8).equals(newId))).toEqual([]);

    const second = await svc(['rotate-master-key'], env, { timeoutMs: 60_000 });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(new RegExp(`done: re-encrypted 0, already current ${rows.length}, failed 0`));

    // a server with only the new key: keys minted before (legacy one included) sign requests
    const instance = await startInstance(server.dbUrl, { env: { SVC_MASTER_KEY: newKey } });
    try {
      for (const k of [minted, legacy, { keyId: ws.keyId, secret: ws.secret }]) {
        const res = await createClient({ baseUrl: instance.url, keyId: k.keyId, secret: k.secret }).get('/v1/api-keys');
        expect(res.status, res.text).toBe(200);
      }
    } finally {
      await instance.stop();
    }
    // and a server still on the old key alone can no longer read them
    forgetKey(minted.keyId);
    expect(
      (await createClient({ baseUrl: server.url, keyId: minted.keyId, secret: minted.secret }).get('/v1/api-keys'))
        .status,
    ).toBe(401);
  });
});
