// The data folder and its secrets (docs/security.md, The data folder): the folder is the service
// user's alone, and a master key another user planted, or may read, is refused with the fix.
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ensurePrivateDir, readPrivateFile } from '../../src/core/private-files.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-private-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const root = process.getuid?.() === 0;

/** config.ts as a fresh process would load it, over a data folder of the test's. */
async function masterKeyIn(dataDir: string) {
  const saved = { dir: process.env.SVC_DATA_DIR, key: process.env.SVC_MASTER_KEY };
  process.env.SVC_DATA_DIR = dataDir;
  delete process.env.SVC_MASTER_KEY;
  vi.resetModules();
  try {
    const { config } = await import('../../src/core/config.ts');
    return () => config.masterKey;
  } finally {
    process.env.SVC_DATA_DIR = saved.dir;
    if (saved.key !== undefined) process.env.SVC_MASTER_KEY = saved.key;
  }
}
afterEach(() => vi.resetModules());

describe('the development master key in .data/', () => {
  it('a master.key group or others may read is refused, naming the file and chmod 600', async () => {
    const data = join(dir, 'readable');
    mkdirSync(data, { mode: 0o700 });
    const file = join(data, 'master.key');
    writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o644 });
    chmodSync(file, 0o644);
    const read = await masterKeyIn(data);
    expect(read).toThrow(`${file} is readable or writable by other users (mode 644): run \`chmod 600 ${file}\``);
    chmodSync(file, 0o600);
    expect(read()).toHaveLength(32);
  });

  it.runIf(root)('a master.key another user owns is refused: it may have been planted', async () => {
    const data = join(dir, 'planted');
    mkdirSync(data, { mode: 0o700 });
    const file = join(data, 'master.key');
    writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
    chownSync(file, 65534, 65534);
    const read = await masterKeyIn(data);
    expect(read).toThrow(
      `${file} belongs to uid 65534, not to this process's user (uid 0), so another user may have written it: ` +
        `check it, then \`chown 0 ${file}\` and \`chmod 600 ${file}\`, or delete it`,
    );
  });

  it('a new one is generated 0600 into a folder that only its user may enter', async () => {
    const data = join(dir, 'fresh');
    const key = (await masterKeyIn(data))();
    expect(key).toHaveLength(32);
    expect(statSync(join(data, 'master.key')).mode & 0o777).toBe(0o600);
    expect(statSync(data).mode & 0o777).toBe(root ? 0o711 : 0o700);
  });
});

describe('the data folder', () => {
  it('a folder left open to everyone (0777, as older versions made it) is closed again', () => {
    const data = join(dir, 'open');
    mkdirSync(data);
    chmodSync(data, 0o777);
    ensurePrivateDir(data);
    expect(statSync(data).mode & 0o777).toBe(root ? 0o711 : 0o700);
  });

  it.runIf(root)('a folder another user owns is refused', () => {
    const data = join(dir, 'theirs');
    mkdirSync(data, { mode: 0o700 });
    chownSync(data, 65534, 65534);
    expect(() => ensurePrivateDir(data)).toThrow(
      `the data folder ${data} belongs to uid 65534, not to this process's user (uid 0): run svc as its owner, ` +
        'or set SVC_DATA_DIR to a folder of your own',
    );
  });

  it('a secret file written by group or others is refused too', () => {
    const file = join(dir, 'app-db.password');
    writeFileSync(file, 'x', { mode: 0o600 });
    chmodSync(file, 0o620);
    expect(() => readPrivateFile(file)).toThrow(/run `chmod 600 /);
  });
});
