/**
 * The HTML report in a real browser: headless Debian chromium through playwright-core loads
 * it from a file with the network blocked, logs no console error, and shows the table and the
 * SVG charts. Skips with an install hint where chromium is missing, except under CI=true.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { diagnose } from '../../src/report/diagnose/index.js';
import { renderHtmlReport } from '../../src/report/html.js';
import { chromiumSkip, launchChromium } from '../helpers/browser.js';
import { sampleRuns } from './helpers.js';

describe('HTML report in headless chromium', { skip: chromiumSkip() }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'servelab-report-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('loads offline with no console errors and shows the table and the charts', async () => {
    const runs = sampleRuns();
    const file = join(dir, 'report.html');
    writeFileSync(file, renderHtmlReport(runs, diagnose(runs)));
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      const requests: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(e.message));
      // Any request other than the file itself would be a dependency on the network.
      await page.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith('file:') || url.startsWith('data:')) return route.continue();
        requests.push(url);
        return route.abort();
      });
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      assert.deepEqual(errors, []);
      assert.deepEqual(requests, []);
      assert.equal(await page.locator('#verdict').count(), 1);
      assert.equal(await page.locator('table.comparison tbody tr').count(), 2);
      const charts = await page.locator('figure[data-chart] svg').count();
      assert.equal(charts, 8);
      // The charts were laid out: the first one has its rendered size.
      const box = await page.locator('figure[data-chart] svg').first().boundingBox();
      assert.ok(box && box.width > 600 && box.height > 300, JSON.stringify(box));
      assert.ok(
        (await page.locator('figure[data-chart="ttft-cdf"] svg text').allTextContents()).includes('TTFT CDF'),
      );
    } finally {
      await browser.close();
    }
  });
});
