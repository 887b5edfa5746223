// Writes docs/dashboard.png, the screenshot docs/cli.md shows: the local platform with the demo
// schedules in headless Chromium (1280 px wide, the whole page), once the recent results fill the list.
// `npm run screenshot:dashboard`.
import { resolve } from 'node:path';
import { startDashboardDemo } from '../test/dashboard/demo';

const SCREENSHOT = resolve(import.meta.dirname, '../docs/dashboard.png');
const RESULTS_SHOWN = 6;

const demo = await startDashboardDemo();
try {
  await demo.page
    .locator('#result-list li')
    .nth(RESULTS_SHOWN - 1)
    .waitFor({ timeout: 60_000 });
  await demo.page.evaluate('window.scrollTo(0, 0)');
  await demo.page.screenshot({ path: SCREENSHOT, fullPage: true });
  console.log(`wrote ${SCREENSHOT}`);
} finally {
  await demo.stop();
}
