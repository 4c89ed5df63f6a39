/**
 * The report's charts show their data, checked on the drawn SVG in headless chromium: four real
 * reports, each measured by `servelab exp run` on the built-in simulator in virtual time and
 * rendered by `servelab report --html` (in-process through `main`): a concurrency sweep whose
 * latency spans two orders of magnitude (TTFT p99 from seconds to minutes), an A/B experiment
 * whose run labels are long, a baseline whose every run sits at one load level, and a small
 * team-assistant (SLO attainment against users); the sweep,
 * the A/B and the team also in Chinese (CJK text is twice as wide). At 800 and 1400 px, in every chart
 * (folded levels opened):
 *
 * - every drawn series (line, point, bar, mark line) lies inside the plot area, the rectangle
 *   the axis lines frame: a value off the axis would be clipped or drawn over the legend;
 * - legend items (icon and the text as the browser lays it out) are pairwise disjoint and
 *   clear of the plot area;
 * - no x axis has a single category label, and no chart has all its points at one x (a
 *   dimension with one value is no chart);
 * - every text lies inside its SVG (no clipped label);
 * - exactly one title, and no caption repeating it;
 * - axis names are human (`TTFT (ms)`, never a metric key such as `ttft_ms (ms)`).
 *
 * The A/B and the baseline record their engine steps, so their step timelines
 * (`report/step-timeline-chart`) are checked too.
 *
 * And at 800 px the results table shows TTFT, TPOT, E2E and output throughput, and the answer's
 * key table every column (an A/B's verdict included), without scrolling sideways; the answer's
 * chart is not drawn again below (a sweep's load curve, an A/B's TTFT CDF). Screenshots go to
 * test-results/report/. Skips with an install hint where
 * chromium is missing, except under CI=true.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { chromiumSkip, launchChromium } from '../helpers/browser.js';
import '../helpers/node-warnings.js';

/** The DOM the page callbacks touch (this file compiles without the DOM lib). */
interface Rect {
  left: number;
  top: number;
  right: number;
  bottom: number;
  width: number;
  height: number;
}
interface El {
  tagName: string;
  textContent: string | null;
  parentElement: El | null;
  open?: boolean;
  getAttribute(n: string): string | null;
  getBoundingClientRect(): Rect;
  querySelectorAll(sel: string): Iterable<El>;
  closest(sel: string): El | null;
}
declare const document: { querySelectorAll(sel: string): Iterable<El> };

const SHOTS = 'test-results/report';

/**
 * What is wrong with each chart on the page, as sentences (empty when nothing is). Runs in the
 * page: self-contained.
 */
function chartProblems(): Record<string, string[]> {
  const TOL = 2;
  const out: Record<string, string[]> = {};
  const box = (e: El) => {
    const r = e.getBoundingClientRect();
    return { l: r.left, t: r.top, r: r.right, b: r.bottom };
  };
  type B = ReturnType<typeof box>;
  const fmt = (b: B) => `[${Math.round(b.l)},${Math.round(b.t)} → ${Math.round(b.r)},${Math.round(b.b)}]`;
  const inside = (a: B, g: B) => a.l >= g.l - TOL && a.r <= g.r + TOL && a.t >= g.t - TOL && a.b <= g.b + TOL;
  const overlap = (a: B, b: B) =>
    Math.min(a.r, b.r) - Math.max(a.l, b.l) > TOL && Math.min(a.b, b.b) - Math.max(a.t, b.t) > TOL;
  const union = (bs: B[]): B => ({
    l: Math.min(...bs.map((x) => x.l)),
    t: Math.min(...bs.map((x) => x.t)),
    r: Math.max(...bs.map((x) => x.r)),
    b: Math.max(...bs.map((x) => x.b)),
  });
  for (const svg of document.querySelectorAll('figure[data-chart] > svg')) {
    const fig = svg.closest('figure');
    const id = fig?.getAttribute('data-chart') ?? '?';
    const p: string[] = [];
    out[id] = p;
    const all = [...svg.querySelectorAll('*')];
    const sb = box(svg);
    // The plot area: what the axis lines frame (echarts draws them with round caps).
    const axes = all.filter((e) => e.tagName === 'path' && e.getAttribute('stroke-linecap') === 'round');
    const series = all.filter(
      (e) =>
        (e.tagName === 'path' || e.tagName === 'rect') &&
        (e.getAttribute('ecmeta_ssr_type') === 'chart' || e.parentElement?.getAttribute('clip-path')),
    );
    if (axes.length === 0) {
      if (series.length) p.push('draws series but no axis');
    } else {
      const grid = union(axes.map(box));
      if (grid.r - grid.l < 10 || grid.b - grid.t < 10)
        p.push(`the axis lines frame no plot area ${fmt(grid)}`);
      const points: number[] = [];
      for (const e of series) {
        const b = box(e);
        if (b.r - b.l <= 0 && b.b - b.t <= 0) continue;
        const small = b.r - b.l <= 20 && b.b - b.t <= 20;
        const c = { l: (b.l + b.r) / 2, r: (b.l + b.r) / 2, t: (b.t + b.b) / 2, b: (b.t + b.b) / 2 };
        if (!inside(small ? c : b, grid)) p.push(`a series mark ${fmt(b)} leaves the plot area ${fmt(grid)}`);
        if (
          e.getAttribute('ecmeta_data_index') !== null &&
          (small || e.tagName === 'rect' || /^M[-\d.]+ [-\d.]+l/.test(e.getAttribute('d') ?? ''))
        )
          points.push(Math.round((b.l + b.r) / 2));
      }
      if (points.length >= 2 && new Set(points).size === 1)
        p.push(`all ${points.length} points sit at one x (a dimension with one value)`);
      // Tick labels under the plot area, within its width: the x axis's categories.
      const ticks = new Set(
        all
          .filter((e) => e.tagName === 'text')
          .filter((e) => {
            const b = box(e);
            const cy = (b.t + b.b) / 2;
            return cy > grid.b && cy < grid.b + 22 && b.l >= grid.l - 40 && b.r <= grid.r + 40;
          })
          .map((e) => e.textContent ?? ''),
      );
      if (ticks.size === 1) p.push(`the x axis has a single label (${[...ticks][0]})`);
      // Legend items: the hit area echarts estimates, the icon and the text the browser laid out.
      const transforms = new Set(
        all
          .filter((e) => e.getAttribute('ecmeta_ssr_type') === 'legend')
          .map((e) => e.getAttribute('transform')),
      );
      const items = [...transforms].map((tr) => {
        // The legend's transparent background shares the first item's place: not an item.
        const parts = all.filter(
          (e) => e.getAttribute('transform') === tr && e.getAttribute('fill-opacity') !== '0',
        );
        const text = parts.find((e) => e.tagName === 'text');
        return { name: text?.textContent ?? '?', b: union(parts.map(box)) };
      });
      for (let i = 0; i < items.length; i++) {
        for (let j = i + 1; j < items.length; j++)
          if (overlap(items[i].b, items[j].b))
            p.push(
              `legend items overlap: "${items[i].name}" ${fmt(items[i].b)} and "${items[j].name}" ${fmt(items[j].b)}`,
            );
        if (overlap(items[i].b, grid)) p.push(`legend item "${items[i].name}" lies on the plot area`);
      }
    }
    // Text: inside the SVG, one title, human axis names.
    const texts = all.filter((e) => e.tagName === 'text' && (e.textContent ?? '').trim() !== '');
    for (const e of texts)
      if (!inside(box(e), sb))
        p.push(`text "${e.textContent}" ${fmt(box(e))} is clipped by the chart ${fmt(sb)}`);
    const titles = texts.filter((e) => /font-weight:\s*bold/.test(e.getAttribute('style') ?? ''));
    // A wrapped title is one text per line, all at the title's place.
    const titleCount = new Set(titles.map((e) => e.getAttribute('transform'))).size;
    if (titleCount !== 1) p.push(`${titleCount} titles`);
    const caption = fig ? [...fig.querySelectorAll('figcaption')].map((c) => c.textContent ?? '') : [];
    for (const c of caption)
      if (titles.some((x) => (x.textContent ?? '').trim() === c.trim()))
        p.push(`caption repeats the title "${c}"`);
    for (const e of texts)
      if (/\b[a-z]+_(ms|s|rps|tok_s)\b.*\(/.test(e.textContent ?? ''))
        p.push(`axis or label names a metric key: "${e.textContent}"`);
  }
  return out;
}

/** At 800 px: the key columns' headers, and whether each is visible without scrolling the table. */
function keyColumnsVisible(names: string[]): Record<string, boolean> {
  const scroll = [...document.querySelectorAll('.table-scroll')][0];
  const s = scroll?.getBoundingClientRect();
  const out: Record<string, boolean> = {};
  const ths = [...document.querySelectorAll('table.comparison th')];
  for (const n of names) {
    const th = ths.find((x) => (x.textContent ?? '').trim() === n);
    const b = th?.getBoundingClientRect();
    out[n] = !!(s && b && b.right <= s.right + 1 && b.left >= s.left - 1);
  }
  return out;
}

/** The answer table's headers that lie outside its scroll box (hidden until one scrolls sideways). */
function answerColumnsHidden(): string[] {
  const out: string[] = [];
  for (const table of document.querySelectorAll('table.answer-table')) {
    const s = table.closest('.table-scroll')?.getBoundingClientRect();
    for (const th of table.querySelectorAll('th')) {
      const b = th.getBoundingClientRect();
      if (s && b.right > s.right + 1) out.push(th.textContent ?? '?');
    }
  }
  return out;
}

/** A concurrency sweep whose queue grows: TTFT p99 from seconds at c=1 to minutes at c=64. */
const SWEEP = `kind: concurrency-sweep
seed: 7
name: big-range
targets:
  sim:
    sim: {model: qwen3-8b, gpu: l4, max_num_seqs: 4, clock: virtual}
sweep:
  stop: {error_rate: 1, ttft_p99_factor: 100000, e2e_p99_factor: 100000}
workload: {input_len: 512, output_len: 128}
load: {concurrency: [1, 4, 16, 64], requests: 64}
warmup: 0
slo: {ttft_ms: 1000, tpot_ms: 50, e2e_ms: 20000}
`;

/** An A/B experiment whose targets have long names (its runs are `NAME side=a block=1/4`). */
const AB = `kind: ab
seed: 7
name: ab-long
targets:
  llama-3.1-8b-instruct-bf16-kv-cache:
    sim: {model: qwen3-0.6b, gpu: h100, clock: virtual, record_steps: true}
  llama-3.1-8b-instruct-fp8-kv-cache:
    sim: {model: qwen3-0.6b, gpu: h100, kv_cache_dtype: fp8, clock: virtual, record_steps: true}
ab: {a: llama-3.1-8b-instruct-bf16-kv-cache, b: llama-3.1-8b-instruct-fp8-kv-cache, bootstrap_resamples: 200}
workload: {input_len: 256, output_len: 48}
load: {concurrency: 4, requests: 24}
warmup: 0
`;

/** A small team: attainment against users, the lead chart of a team-assistant answer. */
const TEAM = `kind: team-assistant
seed: 7
name: small-team
targets:
  sim:
    sim: {model: qwen3-0.6b, gpu: l4, max_num_seqs: 4, clock: virtual}
team: {colleagues: 8, bisect: false, time_scale: 10, min_turns: 1}
workload: {input_len: 32, output_len: 24, documents: {count: 2, tokens: 'uniform:200-400'}}
load: {users: [1, 2, 4, 8], turns: 2, think_time_s: 'uniform:1-3', ramp_up_s: 2}
slo: {ttft_ms: 150, tpot_ms: 1000}
`;

/** A baseline repeated: three runs, all at one request at a time. */
const SINGLE = `kind: baseline
seed: 7
name: single-level
targets:
  sim:
    sim: {model: qwen3-0.6b, gpu: h100, clock: virtual, record_steps: true}
workload: {input_len: 256, output_len: 64}
load: {requests: 16}
repeats: 3
warmup: 0
`;

describe('the report charts show their data (headless chromium)', { skip: chromiumSkip() }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'servelab-charts-'));
  const reports: Record<string, string> = {};
  let browser: Browser;
  let page: Page;

  async function cli(args: string[]): Promise<string> {
    const io = memoryIo({}, dir);
    const code = await main(args, io);
    assert.equal(code, 0, `servelab ${args.join(' ')}: ${io.err()}`);
    return io.out();
  }

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    for (const [name, yaml] of Object.entries({ sweep: SWEEP, ab: AB, single: SINGLE, team: TEAM })) {
      writeFileSync(join(dir, `${name}.yaml`), yaml);
      const out = await cli(['exp', 'run', `${name}.yaml`, '--db', 'x.db']);
      const id = /experiment (\w+):/.exec(out)?.[1];
      assert.ok(id, out);
      await cli(['report', id, '--html', `${name}.html`, '--db', 'x.db']);
      reports[name] = join(dir, `${name}.html`);
      // The same report in Chinese: CJK text is twice as wide.
      await cli(['report', id, '--html', `${name}-zh.html`, '--db', 'x.db', '--lang', 'zh-CN']);
      reports[`${name}-zh`] = join(dir, `${name}-zh.html`);
    }
    browser = await launchChromium();
    page = await browser.newPage();
    // tsx names the page callbacks' inner functions through esbuild's `__name` helper; the page has none.
    await page.addInitScript('globalThis.__name = (f) => f');
  });
  after(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const name of ['sweep', 'ab', 'single', 'team', 'sweep-zh', 'ab-zh', 'team-zh'])
    for (const width of [800, 1400])
      it(`the ${name} report at ${width} px: series inside the plot, legends apart, labels whole, one title`, async () => {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(pathToFileURL(reports[name]).href, { waitUntil: 'load' });
        await page.evaluate(() => {
          for (const d of document.querySelectorAll('details')) d.open = true;
        });
        const problems = await page.evaluate(chartProblems);
        await page.screenshot({ path: `${SHOTS}/charts-${name}-${width}.png`, fullPage: true });
        assert.ok(Object.keys(problems).length >= 3, `${name}: charts ${Object.keys(problems).join()}`);
        // Each chart once: the answer's lead chart replaces the report's own (load curve, CDF).
        const ids = Object.keys(problems);
        if (name.startsWith('sweep')) assert.ok(!ids.includes('load-curve'), ids.join());
        if (name.startsWith('ab')) assert.ok(!ids.includes('ttft-cdf'), ids.join());
        const bad = Object.entries(problems)
          .filter(([, p]) => p.length > 0)
          .map(([id, p]) => `${id}:\n  ${[...new Set(p)].slice(0, 6).join('\n  ')}`);
        assert.deepEqual(bad, [], `${name} at ${width} px:\n${bad.join('\n')}`);
        if (width === 800)
          // The answer's key table shows every column, its verdict and problems last, without scrolling sideways.
          assert.deepEqual(
            await page.evaluate(answerColumnsHidden),
            [],
            `${name}: answer columns off screen`,
          );
        if (width === 800 && !name.endsWith('-zh')) {
          const key = ['TTFT p50 ms', 'TPOT p50 ms', 'E2E p50 ms', 'out tok/s'];
          assert.deepEqual(
            await page.evaluate(keyColumnsVisible, key),
            Object.fromEntries(key.map((k) => [k, true])),
          );
        }
      });

  it('a dimension with one value draws no chart: the baseline (all at one level) has no load curve', async () => {
    await page.goto(pathToFileURL(reports.single).href, { waitUntil: 'load' });
    assert.equal(await page.locator('figure[data-chart="load-curve"]').count(), 0);
    assert.equal(await page.locator('figure[data-chart="goodput"]').count(), 0);
  });
});
