/**
 * The data folder (`.data/`, SVC_DATA_DIR) and the secrets kept in it: the master key and the
 * embedded PostgreSQL's passwords. Another local user must not read them, nor plant one that svc
 * then trusts (docs/security.md, The data folder).
 */
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';

const processUid = () => process.getuid?.();

/**
 * The folder's mode: 0700; as root 0711, so the OS user "postgres" that runs the embedded server
 * can pass through to its own 0700 subfolder without listing or reading anything else here.
 */
export const dataDirMode = () => (processUid() === 0 ? 0o711 : 0o700);

/** Makes `dir` (and its parents), refuses it when another user owns it, and sets its mode. */
export function ensurePrivateDir(dir: string, mode = dataDirMode()) {
  mkdirSync(dir, { recursive: true, mode });
  const st = statSync(dir);
  const uid = processUid();
  if (uid !== undefined && st.uid !== uid)
    throw new Error(
      `the data folder ${dir} belongs to uid ${st.uid}, not to this process's user (uid ${uid}): ` +
        'run svc as its owner, or set SVC_DATA_DIR to a folder of your own',
    );
  if ((st.mode & 0o777) !== mode) chmodSync(dir, mode);
}

/**
 * A secret file's trimmed text, refused when another user owns it (it may have been planted) or
 * group or others may read or write it.
 */
export function readPrivateFile(file: string): string {
  const st = statSync(file);
  const uid = processUid();
  if (uid !== undefined && st.uid !== uid)
    throw new Error(
      `${file} belongs to uid ${st.uid}, not to this process's user (uid ${uid}), so another user may have ` +
        `written it: check it, then \`chown ${uid} ${file}\` and \`chmod 600 ${file}\`, or delete it`,
    );
  if (st.mode & 0o066)
    throw new Error(
      `${file} is readable or writable by other users (mode ${(st.mode & 0o777).toString(8)}): ` +
        `run \`chmod 600 ${file}\``,
    );
  return readFileSync(file, 'utf8').trim();
}

/** Writes a new secret file, 0600; an existing one is never replaced (`wx`). */
export function writePrivateFile(file: string, text: string) {
  writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
}
