/**
 * The HTML report in a real browser: headless Debian chromium through playwright-core loads a
 * demo-like report (a closed-loop and a Poisson run, varied lengths) and a concurrency sweep's
 * report (one level invalid), each in English and the sweep also in Chinese, from files with the
 * network blocked, at 1400 and 800 px. Each page leads with its headline (the sweep's first chart
 * is its load curve), does not scroll sideways, logs no console error, makes no request, and
 * every chart draws marks (series-coloured SVG shapes with a size, below the title and legend).
 * Screenshots go to test-results/report/. One browser for the file, one page reused. Skips with
 * an install hint where chromium is missing, except under CI=true.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { diagnose } from '../../src/analysis/diagnose/index.js';
import type { LoadedRun } from '../../src/analysis/loaded-run.js';
import { parseSlo } from '../../src/analysis/slo.js';
import { translator } from '../../src/i18n/index.js';
import { renderHtmlReport } from '../../src/report/html.js';
import { simRun } from '../diagnose/helpers.js';
import { chromiumSkip, launchChromium } from '../helpers/browser.js';

/** The DOM the page callbacks touch (this file compiles without the DOM lib). */
interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
interface SvgEl {
  getAttribute(n: string): string | null;
  getBoundingClientRect(): Box & { top: number };
  querySelectorAll(sel: string): Iterable<SvgEl>;
  closest(sel: string): SvgEl | null;
}
declare const document: {
  querySelectorAll(sel: string): Iterable<SvgEl>;
  documentElement: { scrollWidth: number; clientWidth: number };
};

const SHOTS = 'test-results/report';

/** Colours of a chart's frame (background, grid, axes, text), not of its data. */
const CHROME = [
  'none',
  '#54555a',
  '#dbdee4',
  '#000',
  'rgb(0,0,0)',
  '#3c3c41',
  '#ffffff',
  '#fff',
  '#b7b9be',
  '#333',
  '#6e7079',
  'transparent',
  'rgb(255,255,255)',
  '#eee',
];

/**
 * Per figure: how many drawn marks it has: paths and rects with an on-screen size that echarts
 * tags as the chart's (`ecmeta_ssr_type="chart"`), or that are series-coloured; a legend's
 * icons (`ecmeta_ssr_type="legend"`) and the frame (axes, grid, background) never count.
 */
function marksByFigure(chrome: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const svg of document.querySelectorAll('figure[data-chart] > svg')) {
    let n = 0;
    for (const e of svg.querySelectorAll('path, rect')) {
      const tag = e.getAttribute('ecmeta_ssr_type');
      if (tag === 'legend') continue;
      const colours = [e.getAttribute('fill'), e.getAttribute('stroke')].filter(
        (c): c is string => c !== null,
      );
      if (tag !== 'chart' && colours.every((c) => chrome.includes(c))) continue;
      const b = e.getBoundingClientRect();
      if (b.width <= 0 && b.height <= 0) continue;
      n += 1;
    }
    out[svg.closest('figure')?.getAttribute('data-chart') ?? '?'] = n;
  }
  return out;
}

const shapes = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => ({
    input: 256 + ((i * 37 + seed) % 768),
    output: 64 + ((i * 13 + seed) % 128),
  }));

/** What `servelab demo` reports: a closed loop of 8 and a Poisson run, varied lengths, an SLO. */
function demoRuns(): LoadedRun[] {
  const slo = parseSlo('ttft_ms=500,tpot_ms=50');
  const engine = { model: 'llama-3.1-8b', gpu: 'h100' } as const;
  return [
    simRun({
      label: 'demo closed',
      engine,
      shapes: shapes(48, 1),
      load: { kind: 'closed', concurrency: 8 },
      ctx: { slo },
    }),
    simRun({
      label: 'demo poisson',
      engine,
      shapes: shapes(36, 2),
      load: { kind: 'open', arrivalsMs: Array.from({ length: 36 }, (_, i) => i * 160 + ((i * 53) % 90)) },
      ctx: { slo },
      seriesPoints: 40,
    }),
  ];
}

/** A concurrency sweep on one input length, the c=4 level invalid (its client lagged). */
function sweepRuns(): LoadedRun[] {
  const slo = parseSlo('ttft_ms=1000,tpot_ms=50');
  return [1, 2, 4, 8].map((c) => {
    const r = simRun({
      label: `sim c=${c}`,
      engine: { model: 'qwen3-0.6b', gpu: 'h100', maxNumSeqs: 8 },
      shapes: Array.from({ length: 32 }, () => ({ input: 256, output: 64 })),
      load: { kind: 'closed', concurrency: c },
      level: { concurrency: c },
      config: { target: 'sim', model: 'qwen3-0.6b' },
      ctx: { slo },
      seriesPoints: 40,
    });
    if (c === 4)
      r.summary = {
        ...r.summary,
        client: { event_loop_delay_ms: { p50: 1, p99: 40, max: 50 }, cpu_percent: 20 },
      };
    return r;
  });
}

describe('HTML report in headless chromium', { skip: chromiumSkip() }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'servelab-report-'));
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const requests: string[] = [];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    browser = await launchChromium();
    page = await browser.newPage();
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
  });
  after(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Open a report at both widths and check what every report page must do. */
  async function check(name: string, html: string): Promise<void> {
    const file = join(dir, `${name}.html`);
    writeFileSync(file, html);
    for (const width of [1400, 800]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      const [scroll, client] = await page.evaluate(() => [
        document.documentElement.scrollWidth,
        document.documentElement.clientWidth,
      ]);
      assert.ok(scroll <= client, `${name} at ${width}px scrolls sideways: ${scroll} > ${client}`);
      // The headline comes first, and is on screen without scrolling.
      const head = await page.locator('#headline').boundingBox();
      assert.ok(
        head && head.y < 200 && head.width > 0.8 * (width - 60),
        `${name} headline ${JSON.stringify(head)}`,
      );
      assert.equal(await page.locator('#headline #verdict').count(), 1);
      assert.equal(await page.locator('#headline .card').count(), 7);
      // Every chart has marks, including those folded in a closed level (open them all first).
      await page.evaluate(() => {
        for (const d of document.querySelectorAll('details')) (d as unknown as { open: boolean }).open = true;
      });
      const marks = await page.evaluate(marksByFigure, CHROME);
      assert.ok(Object.keys(marks).length >= 4, `${name}: charts ${Object.keys(marks).join()}`);
      for (const [id, n] of Object.entries(marks))
        assert.ok(n >= 1, `${name} ${width}px: chart ${id} draws no mark`);
      await page.screenshot({ path: `${SHOTS}/${name}-${width}.png`, fullPage: true });
    }
    assert.deepEqual(errors, []);
    assert.deepEqual(requests, []);
  }

  it('the demo report: headline first, no sideways scroll, every chart drawn', async () => {
    const runs = demoRuns();
    await check('demo', renderHtmlReport(runs, diagnose(runs)));
  });

  it("a sweep's report leads with its load curve (knee or greyed invalid level marked), in English and Chinese", async () => {
    const runs = sweepRuns();
    const d = diagnose(runs);
    const html = renderHtmlReport(runs, d);
    await check('sweep', html);
    // The first chart on the page is the load curve.
    const first = await page.locator('figure[data-chart]').first().getAttribute('data-chart');
    assert.equal(first, 'load-curve');
    // The invalid level is greyed in the chart and in the table.
    assert.ok(html.includes('fill="#b0b0b0"'));
    assert.equal(await page.locator('table.comparison tr.invalid').count(), 1);
    await check('sweep-zh', renderHtmlReport(runs, d, { t: translator('zh-CN') }));
    assert.match((await page.locator('h2').first().textContent()) ?? '', /指标结果/);
  });
});
