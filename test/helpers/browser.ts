// Chromium for the browser tests (playwright-core driving Debian's chromium). .ci/run installs it, so in CI a
// missing browser fails the run; elsewhere the file says so loudly and skips its browser tests.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Screenshots and other artifacts of the browser tests. */
export const OUT = join(import.meta.dirname, '..', 'output');
export const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI)
  throw new Error(`Chromium not found at ${CHROMIUM}: CI runs the browser tests (apt-get install chromium)`);

/** One headless browser for the calling test file (a fresh temporary profile per launch); `what` names its tests. */
export function useBrowser(what: string): { readonly browser: Browser } {
  if (!haveChromium)
    console.warn(
      `\n*** Chromium not found at ${CHROMIUM}: ${what} SKIPPED (apt-get install chromium, or set CHROMIUM_PATH) ***\n`,
    );
  const held = {} as { browser: Browser };
  beforeAll(async () => {
    if (!haveChromium) return;
    held.browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  afterAll(async () => {
    await held.browser?.close();
  });
  return held;
}
