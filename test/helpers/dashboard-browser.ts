// The dashboard in Chromium, as test/dashboard/dashboard.test.ts drives it: sign-in through the
// development identity provider's form (optionally accepting an invitation), axe-core on the page,
// screenshots at 1280 and 390 px under test/output/.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { DEV_PASSWORD } from '../../src/auth/dev-idp.ts';
import { OUT } from './browser.ts';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Signs `email` in at `/dashboard/` (or through an invitation's link) and waits for the app. */
export async function signInPage(
  context: BrowserContext,
  serverUrl: string,
  email: string,
  opts: { invitation?: string } = {},
): Promise<Page> {
  const page = await context.newPage();
  if (opts.invitation) await page.goto(`${serverUrl}/dashboard/auth/login?invitation=${opts.invitation}`);
  else {
    await page.goto(`${serverUrl}/dashboard/`);
    await page.getByRole('link', { name: /Sign in|Masuk/ }).click();
  }
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(DEV_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // An invitation is accepted only by the accept page's button (docs/dashboard.md, Accepting an invitation).
  if (opts.invitation) await page.getByRole('button', { name: /Join the workspace|Bergabung ke workspace/ }).click();
  await page.waitForURL(`${serverUrl}/dashboard/`);
  await page.getByTestId('mode-banner').waitFor();
  return page;
}

/** axe-core on the page as it is: no serious or critical violation. */
export async function expectAccessible(page: Page, what: string) {
  await page.evaluate(`${axeSource}\n;0`);
  const violations = await page.evaluate(async () => {
    const r = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
      .map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
  });
  expect(violations, `${what}: axe violations`).toEqual([]);
}

export async function shoot(page: Page, name: string) {
  mkdirSync(OUT, { recursive: true });
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.screenshot({ path: join(OUT, `dashboard-${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}
