import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** Debian's chromium, installed by scripts/ensure-chromium.sh: never a downloaded browser. */
export const CHROMIUM = '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface HeadlessChromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Real headless Chromium with a fresh profile, a 1280×800 window. Fails (never skips) when
 * chromium is missing, saying how to install it.
 */
export async function launchChromium(): Promise<HeadlessChromium> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is not installed; the dashboard tests need it: run scripts/ensure-chromium.sh (as root)`,
    );
  }
  const profile = await mkdtemp(join(tmpdir(), 'sundial-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 800 },
    timezoneId: 'UTC',
    locale: 'en-GB',
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
