/**
 * The dashboard in a real browser: headless Debian chromium driven by playwright-core (no
 * browser download). Loads the run list (and sees it refresh by itself), opens an experiment
 * (headline, load curve, verdicts, diagnosis) and a run and checks its charts render, compares
 * two runs, and follows a running run live while records are appended (counters, summary and
 * charts from the one stream), then sees it finish. Every page, at 1400 and 800 px, has its
 * headline, does not scroll sideways and draws ink in every chart; screenshots go to
 * test-results/. No console errors and no request off loopback are allowed. Without chromium the
 * suite skips with an install hint, except under CI=true, where it fails.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { summarize } from '../../src/analysis/summary.js';
import { type Dashboard, startDashboard } from '../../src/dashboard/index.js';
import type { RequestRecord } from '../../src/record/types.js';
import type { Store } from '../../src/store/index.js';
import { chromiumSkip, launchChromium } from '../helpers/browser.js';
import { addFinishedRun, openWriter, serverSeries, streamed, tempStorePath } from './helpers.js';

/**
 * The callbacks passed to `waitForFunction`/`evaluate` run in the page (playwright serialises
 * them); this file compiles without the DOM lib, so the little of it they touch is declared here,
 * module-local.
 */
interface PageEl {
  textContent: string | null;
  width: number;
  height: number;
  querySelector(sel: string): PageEl | null;
  getAttribute(name: string): string | null;
  getContext(
    kind: '2d',
  ): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } | null;
}
declare const document: {
  querySelector(sel: string): PageEl | null;
  querySelectorAll(sel: string): Iterable<PageEl>;
  getElementById(id: string): PageEl | null;
  documentElement: { scrollWidth: number; clientWidth: number };
};

/** Dark pixels of every chart canvas on the page, by chart id (a blank chart has none). */
function inkByChart(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const box of document.querySelectorAll('.chart[data-chart]')) {
    const canvas = box.querySelector('canvas');
    const d = canvas?.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data;
    let dark = 0;
    if (d) for (let i = 0; i < d.length; i += 4) if (d[i] < 200 && d[i + 3] > 0) dark += 1;
    out[box.getAttribute('data-chart') ?? '?'] = dark;
  }
  return out;
}

/** Where the screenshots go (CI keeps the folder as an artefact). */
const SHOTS = 'test-results/dashboard';

/** Text of the first element matching `sel` ('' when it has none). */
async function text(page: Page, sel: string): Promise<string> {
  return (await page.locator(sel).first().textContent()) ?? '';
}

const SKIP = chromiumSkip();
/** Generous: these waits guard against hangs, they do not measure anything. */
const WAIT_MS = 15_000;

describe('dashboard in chromium', { skip: SKIP }, () => {
  const tmp = tempStorePath();
  let writer: Store;
  let dash: Dashboard;
  let browser: Browser;
  let page: Page;
  let runA: string;
  let runB: string;
  let runLive: string;
  let expId: string;
  const liveRecords: RequestRecord[] = [];
  const consoleErrors: string[] = [];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    writer = openWriter(tmp.path);
    expId = writer.createExperiment({ kind: 'sweep', name: 'conc sweep' }).id;
    runA = addFinishedRun(writer, { label: 'c=2', n: 40, nFailed: 1, concurrency: 2, experimentId: expId });
    runB = addFinishedRun(writer, { label: 'c=8', n: 60, concurrency: 8, experimentId: expId });
    writer.finishExperiment(expId, 'completed');
    runLive = writer.createRun({
      kind: 'run',
      label: 'live run',
      config: { load: { mode: 'closed', concurrency: 4 } },
    }).id;
    for (let i = 0; i < 4; i++) {
      const r = streamed(i, { sent: i * 100, ttft: 15, gap: 5, tokens: 5 });
      liveRecords.push(r);
      writer.appendRecord(runLive, r);
    }
    writer.addSeries(runLive, serverSeries(0, 0));
    dash = await startDashboard({ dbPath: tmp.path, livePollMs: 150 });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    page.setDefaultTimeout(WAIT_MS);
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
    // Nothing may leave loopback: every request the page makes goes to the dashboard itself.
    await page.route('**/*', (route) => {
      const u = new URL(route.request().url());
      if (u.origin === new URL(dash.url).origin) return route.continue();
      consoleErrors.push(`external request: ${u.href}`);
      return route.abort();
    });
  });

  /**
   * At 1400 and 800 px: the page does not scroll sideways, every chart has ink, a page other than
   * the home list has its headline; a full-page screenshot of each goes to {@link SHOTS}.
   */
  async function shotsAt(p: Page, name: string): Promise<void> {
    for (const width of [1400, 800]) {
      await p.setViewportSize({ width, height: 1000 });
      // echarts resizes on the window's resize event; give it a frame to redraw.
      await p.waitForTimeout(150);
      const [scroll, client] = await p.evaluate(() => [
        document.documentElement.scrollWidth,
        document.documentElement.clientWidth,
      ]);
      assert.ok(scroll <= client, `${name} at ${width}px scrolls sideways: ${scroll} > ${client}`);
      const ink = await p.evaluate(inkByChart);
      for (const [id, dark] of Object.entries(ink))
        assert.ok(dark > 50, `${name} ${width}px: chart ${id} is blank`);
      if (name !== 'home') assert.ok((await p.locator('#headline').count()) >= 1, `${name}: headline`);
      await p.screenshot({ path: `${SHOTS}/${name}-${width}.png`, fullPage: true });
    }
    await p.setViewportSize({ width: 1600, height: 1000 });
  }

  after(async () => {
    await browser?.close();
    await dash?.close();
    writer?.close();
    tmp.cleanup();
  });

  test('lists the runs', async () => {
    await page.goto(dash.url);
    await page.locator('#runs tbody tr').nth(2).waitFor();
    const ids = await page
      .locator('#runs tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-row')));
    assert.deepEqual(ids, [runLive, runB, runA]);
    assert.equal(await page.locator(`tr[data-run-row="${runLive}"] .status-running`).count(), 1);
  });

  test('lists the experiments and opens one with its runs', async () => {
    await page.locator(`#experiments a[href="#/experiment/${expId}"]`).click();
    await page.locator('#runs tbody tr').nth(1).waitFor();
    const ids = await page
      .locator('#runs tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-row')));
    assert.deepEqual(ids.sort(), [runA, runB].sort());
    assert.match(await text(page, 'h1'), /conc sweep/);
    // The report over its levels: headline, the load curve first, a verdict per level, the diagnosis.
    assert.equal(await page.locator('#experiment-headline #verdict').count(), 1);
    await page.locator('#charts [data-chart="load-curve"] canvas').waitFor();
    assert.equal(await page.locator('#charts .chart').first().getAttribute('data-chart'), 'load-curve');
    assert.equal(await page.locator('#report-table table.comparison tbody tr').count(), 2);
    assert.equal(await page.locator('#diagnosis').count(), 1);
    await page.goto(`${dash.url}#/`);
    await page.locator('#runs tbody tr').nth(2).waitFor();
  });

  test('opens a run: summary, report table and charts render', async () => {
    await page.locator(`a[href="#/run/${runA}"]`).click();
    await page.locator('#summary-latency tr[data-metric="ttft_ms"]').waitFor();
    assert.match(await text(page, 'h1'), /c=2/);
    await page.locator('#report-table table').waitFor();
    // Every chart container gets a drawn canvas; the server series share the timeline's axis.
    await page.waitForFunction(
      () => {
        const boxes = [...document.querySelectorAll('#charts .chart')];
        return boxes.length >= 5 && boxes.every((b) => b.querySelector('canvas, svg'));
      },
      undefined,
      { timeout: WAIT_MS },
    );
    const chartIds = await page
      .locator('#charts .chart')
      .evaluateAll((bs) => bs.map((b) => b.getAttribute('data-chart')));
    assert.ok(chartIds.includes('ttft-cdf'), chartIds.join());
    assert.ok(chartIds.includes('e2e-cdf'));
    assert.ok(chartIds.some((id) => id?.startsWith('timeline-')));
    const panels = await page
      .locator('#server-panels .chart')
      .evaluateAll((bs) => bs.map((b) => b.getAttribute('data-chart')));
    assert.ok(
      panels.some((id) => id?.startsWith('server-')),
      `server series as small panels: ${panels.join()}`,
    );
    // GPU utilisation leads the panels, and is drawn on first load (its box was laid out before
    // echarts drew it: a detached box has no size and stays blank until the window resizes).
    assert.match(panels[0] ?? '', /gpu_util_pct$/);
    const firstInk = await page.evaluate(inkByChart);
    assert.ok(
      (firstInk[panels[0] ?? ''] ?? 0) > 50,
      `the GPU panel has ink before any resize: ${JSON.stringify(firstInk)}`,
    );
    assert.equal(await page.locator('#headline #verdict').count(), 1);
    // A drawn canvas has non-blank pixels.
    const painted = await page
      .locator('[data-chart="ttft-cdf"] canvas')
      .first()
      .evaluate((c) => {
        const canvas = c as unknown as PageEl;
        const d = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data;
        if (!d) return 0;
        let dark = 0;
        for (let i = 0; i < d.length; i += 4) if (d[i] < 200 && d[i + 3] > 0) dark += 1;
        return dark;
      });
    assert.ok(painted > 100, `the CDF canvas has ink (${painted} dark pixels)`);
  });

  test('compares two selected runs', async () => {
    await page.goto(`${dash.url}#/`);
    await page.locator(`input[data-run="${runA}"]`).check();
    await page.locator(`input[data-run="${runB}"]`).check();
    await page.locator('#compare-btn').click();
    await page.locator('#compare').waitFor();
    const heads = await page.locator('#compare thead th').allInnerTexts();
    assert.deepEqual(heads, ['metric', 'c=2', 'c=8']);
    await page.waitForFunction(
      () => document.querySelector('[data-chart="load-curve"] canvas') !== null,
      undefined,
      {
        timeout: WAIT_MS,
      },
    );
  });

  test('follows a running run live, then shows it finished', async () => {
    await page.goto(`${dash.url}#/run/${runLive}`);
    await page.locator('#live').waitFor();
    await page.waitForFunction(
      () => document.getElementById('live-records')?.textContent === '4',
      undefined,
      {
        timeout: WAIT_MS,
      },
    );
    await page.locator('[data-chart="live-timeline"] canvas').waitFor();

    for (let i = 4; i < 12; i++) {
      const r = streamed(i, { sent: i * 100, ttft: 15 + i, gap: 5, tokens: 5 });
      liveRecords.push(r);
      writer.appendRecord(runLive, r);
    }
    writer.addSeries(runLive, serverSeries(1, 1));
    await page.waitForFunction(
      () => document.getElementById('live-records')?.textContent === '12',
      undefined,
      {
        timeout: WAIT_MS,
      },
    );
    assert.equal(await text(page, '#live-ok'), '12');
    assert.equal(await text(page, '#live-inflight'), '4 / 1');
    // The GPU panel: the latest utilisation, and the report's named chart drawn live.
    assert.equal(await text(page, '#live-gpu-util'), '51');
    await page.locator('#live-gpu [data-chart="live-gpu-util"] canvas').waitFor({ timeout: WAIT_MS });
    // The summary and the charts follow the same stream as the counters, not the page load.
    await page.waitForFunction(
      () =>
        document.querySelector('#summary')?.getAttribute('data-records') === '12' &&
        document.querySelector('#charts')?.getAttribute('data-records') === '12',
      undefined,
      { timeout: WAIT_MS },
    );
    assert.equal(await text(page, '#summary-counts td[data-key="records"]'), '12');
    assert.equal(await page.locator('#live #headline').count(), 1);
    await shotsAt(page, 'live');

    writer.finishRun(runLive, summarize(liveRecords) as unknown as Record<string, unknown>, 'completed');
    // On `end` the page reloads the run: now completed, with the stored summary and full charts.
    await page.locator('h1 .status-completed').waitFor();
    await page.locator('#charts [data-chart="ttft-cdf"] canvas').waitFor();
    assert.equal(await page.locator('#live').count(), 0);
    assert.match(await text(page, '.muted'), /summary stored/);
  });

  test('the home list refreshes by itself', async () => {
    await page.goto(`${dash.url}#/`);
    await page.locator('#runs tbody tr').nth(2).waitFor();
    const late = addFinishedRun(writer, { label: 'late', n: 5, concurrency: 1 });
    await page.locator(`tr[data-run-row="${late}"]`).waitFor({ timeout: WAIT_MS });
  });

  test('every page at 1400 and 800 px: headline, no sideways scroll, ink in every chart', async () => {
    for (const [name, hash] of [
      ['home', '#/'],
      ['experiment', `#/experiment/${expId}`],
      ['run', `#/run/${runB}`],
      ['compare', `#/compare/${runA},${runB}`],
    ] as const) {
      await page.goto(`${dash.url}${hash}`);
      if (name === 'home') await page.locator('#runs tbody tr').first().waitFor();
      else {
        await page.locator('#headline').first().waitFor();
        await page.waitForFunction(
          () => {
            const boxes = [...document.querySelectorAll('.chart[data-chart]')];
            return boxes.length > 0 && boxes.every((b) => b.querySelector('canvas'));
          },
          undefined,
          { timeout: WAIT_MS },
        );
      }
      await shotsAt(page, name);
    }
  });

  test('an unknown run shows the error and its hint', async () => {
    await page.goto(`${dash.url}#/run/zzzzzzzz`);
    const err = await text(page, '.error');
    assert.match(err, /no run zzzzzzzz/);
    assert.match(err, /api\/runs/);
    // The 404 itself is logged by the browser as a failed resource load; that one is expected.
    const unexpected = consoleErrors.filter((e) => !/404/.test(e));
    assert.deepEqual(unexpected, []);
    consoleErrors.length = 0;
  });

  test('no console errors', () => {
    assert.deepEqual(consoleErrors, []);
  });
});
