import sparticuzChromium from '@sparticuz/chromium';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';

/** Points the dashboard tests at another Chromium (say, on macOS, where the npm package's Linux build cannot run). */
export const CHROMIUM_OVERRIDE = 'SUNDIAL_TEST_CHROMIUM';

export interface HeadlessChromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * The Chromium that ships inside the npm package `@sparticuz/chromium` (Linux x64/arm64): unpacked
 * into the temp folder on first use (a few seconds), reused after that. Nothing installed by hand.
 */
async function executablePath(): Promise<string> {
  const override = process.env[CHROMIUM_OVERRIDE];
  if (override) return override;
  if (process.platform !== 'linux') {
    throw new Error(
      `@sparticuz/chromium ships a Linux build only; set ${CHROMIUM_OVERRIDE} to a Chromium or Chrome executable`,
    );
  }
  return sparticuzChromium.executablePath();
}

/**
 * The package's flags for sandbox-less containers, less those that switch off the web's security model
 * (same-origin policy, mixed content): the dashboard must work in a browser as its users run it.
 */
const ARGS = sparticuzChromium.args.filter(
  (arg) =>
    ![
      '--disable-web-security',
      '--allow-running-insecure-content',
      '--disable-site-isolation-trials',
    ].includes(arg),
);

/** Real headless Chromium with a fresh profile, a 1280×800 window, UTC and an en-GB locale. */
export async function launchChromium(): Promise<HeadlessChromium> {
  const browser: Browser = await chromium.launch({
    executablePath: await executablePath(),
    args: ARGS,
    headless: true,
  });
  const context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    timezoneId: 'UTC',
    locale: 'en-GB',
  });
  return {
    context,
    async close() {
      await context.close();
      await browser.close();
    },
  };
}
