import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const fixture = join(ROOT, 'test/helpers/log-lines.ts');
const tsx = join(ROOT, 'node_modules/.bin/tsx');
// Default format (chosen by the stream), info level, stdout.
const env = {
  ...process.env,
  LOG_LEVEL: 'info',
  NODE_ENV: 'development',
  SVC_LOG_FORMAT: undefined,
  SVC_LOG_STDERR: undefined,
};
/** A terminal capture without colours and carriage returns. */
const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r/g, '');

describe('logs', () => {
  it('JSON when stdout is not a terminal; a line inside a request carries its id, even after an await', async () => {
    const { stdout } = await run(tsx, [fixture], { cwd: ROOT, env });
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.msg)).toEqual(['inside a request', 'again inside', 'request', 'outside any request']);
    expect(lines[0]).toMatchObject({ requestId: 'req_FROMCONTEXT', amount: 1200, level: 30, service: 'svc' });
    // A line's own fields do not leak into the next line of the same request.
    expect(lines[1].requestId).toBe('req_FROMCONTEXT');
    expect(lines[1].amount).toBeUndefined();
    expect(lines[3].requestId).toBeUndefined();
  });

  it.skipIf(!existsSync('/usr/bin/script'))('readable lines on a terminal (pino-pretty)', async () => {
    // script(1) gives the child a pseudo-terminal as stdout.
    const { stdout } = await run('/usr/bin/script', ['-qec', `${tsx} ${fixture}`, '/dev/null'], {
      cwd: ROOT,
      env,
    });
    const text = plain(stdout);
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: inside a request \{.*"requestId":"req_FROMCONTEXT"/m);
    expect(text).toMatch(/INFO: outside any request/);
    expect(text).not.toMatch(/^\{"level"/m);
    // One line per entry: a request is one line with its fields, not one line per field.
    expect(text.trim().split('\n')).toHaveLength(4);
    expect(text).toMatch(
      /^\[[\d:.]+\] INFO: request \{"requestId":"req_FROMCONTEXT","method":"GET",.*"status":200,"ms":3\}$/m,
    );
  });
});
