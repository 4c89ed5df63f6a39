/**
 * The report's headline and its CDFs speak for the right runs. An A/B (`servelab exp init ab`,
 * on the simulator in virtual time with a fixed seed) stores every block as a run: the cards set
 * side A against side B, each pooled over its blocks, and the TTFT/E2E CDFs draw one line per
 * side. A baseline's cards show the cold first request apart from the warm ones. The page is
 * titled with the experiment's name; a list of plain runs keeps the run labels.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { diagnose } from '../../src/analysis/diagnose/index.js';
import type { LoadedRun } from '../../src/analysis/loaded-run.js';
import { e2eMs, ttftMs } from '../../src/analysis/request.js';
import { percentile } from '../../src/analysis/stats.js';
import { measuredSuccesses } from '../../src/analysis/summary.js';
import { loadRuns } from '../../src/cli/commands/resolve-refs.js';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { translator } from '../../src/i18n/index.js';
import { cdfOption, ttftVsInputOption } from '../../src/report/charts.js';
import { headlineOf } from '../../src/report/html.js';
import { renderMarkdownReport } from '../../src/report/markdown.js';
import '../helpers/node-warnings.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-headline-groups-'));
const db = join(dir, 'x.db');
after(() => rmSync(dir, { recursive: true, force: true }));

/** Run the CLI in-process; fail with its stderr when it does not exit 0. */
async function cli(args: string[]): Promise<{ out: string; err: string }> {
  const io = memoryIo({}, dir);
  const code = await main(args, io);
  assert.equal(code, 0, `servelab ${args.join(' ')}\n${io.err().slice(-3000)}`);
  return { out: io.out(), err: io.err() };
}

/** The shipped template with a fixed seed (and `edit` applied), run; its experiment id. */
async function runTemplate(kind: string, edit: (yaml: string) => string = (y) => y): Promise<string> {
  const init = await cli(['exp', 'init', kind]);
  assert.match(init.out, /^# seed: 1$/m);
  assert.match(init.out, /clock: virtual/);
  writeFileSync(join(dir, `${kind}.yaml`), edit(init.out.replace(/^# seed: 1$/m, 'seed: 1')));
  const run = await cli(['exp', 'run', `${kind}.yaml`, '--db', db]);
  const id = /experiment ([a-z0-9]+):/.exec(run.err)?.[1];
  assert.ok(id, run.err);
  return id;
}

/** Sorted values of `of` over the successful measured requests of `runs`, pooled. */
function pooled(
  runs: readonly LoadedRun[],
  of: (r: (typeof runs)[number]['records'][number]) => number | undefined,
) {
  return runs
    .flatMap((r) => measuredSuccesses(r.records).map(of))
    .filter((v): v is number => v !== undefined)
    .sort((a, b) => a - b);
}

const sideOf = (r: LoadedRun) => (r.config.level as { side?: string } | undefined)?.side;

describe('an A/B report: A against B, each side pooled over its blocks', () => {
  let id = '';
  let runs: LoadedRun[] = [];
  before(async () => {
    id = await runTemplate('ab');
    runs = await loadRuns([id], { db, cwd: dir });
  });

  it('the stored runs are the blocks of both sides, with the experiment kind', () => {
    assert.ok(runs.length >= 4, `blocks: ${runs.map((r) => r.label).join(', ')}`);
    assert.ok(runs.every((r) => r.kind === 'ab'));
    assert.deepEqual([...new Set(runs.map(sideOf))].sort(), ['a', 'b']);
  });

  it('the cards show side A against side B, pooled over every block, not one block', () => {
    const h = headlineOf(runs, diagnose(runs));
    assert.equal(h.focus.why, 'sides');
    const blocks = runs.filter((r) => sideOf(r) === 'a').length;
    assert.deepEqual(h.sides, { a: 'bf16-kv', b: 'fp8-kv', blocks });
    for (const [name, of, p] of [
      ['ttft_ms p50', ttftMs, 50],
      ['ttft_ms p99', ttftMs, 99],
      ['e2e_ms p99', e2eMs, 99],
    ] as const) {
      const card = h.metrics.find((x) => x.name === name);
      assert.ok(card?.b, `${name} has both sides`);
      const a = pooled(
        runs.filter((r) => sideOf(r) === 'a'),
        of,
      );
      const b = pooled(
        runs.filter((r) => sideOf(r) === 'b'),
        of,
      );
      // Every measured request of the side (the template asks for 32), not one block's.
      assert.equal(a.length, 32);
      assert.equal(b.length, 32);
      assert.equal(card.value, percentile(a, p));
      assert.equal(card.b.value, percentile(b, p));
    }
    const tok = h.metrics.find((x) => x.name === 'output tok/s');
    assert.ok(tok?.b && tok.value !== null && tok.b.value !== null && tok.value > 0 && tok.b.value > 0);
    // Pooled throughput lies within the blocks' own (all tokens over all windows).
    const rates = runs.filter((r) => sideOf(r) === 'a').map((r) => r.summary.output_throughput_tok_s ?? 0);
    assert.ok(tok.value >= Math.min(...rates) - 1e-9 && tok.value <= Math.max(...rates) + 1e-9);
  });

  it('the TTFT and E2E CDFs draw one line per side, over all its requests', () => {
    for (const metric of ['ttft_ms', 'e2e_ms'] as const) {
      const o = cdfOption(runs, metric);
      assert.ok(o);
      const series = o.series as { name: string; data: [number, number][] }[];
      assert.deepEqual(
        series.map((s) => s.name),
        ['A · bf16-kv', 'B · fp8-kv'],
      );
      for (const s of series) {
        assert.ok(s.data.length >= 32, `${metric} ${s.name}: ${s.data.length} points`);
        assert.equal(s.data[0][1], 1 / 32);
        assert.equal(s.data[s.data.length - 1][1], 1);
      }
    }
  });

  it('the TTFT per request strip has one row per side, every request of it a point', () => {
    const o = ttftVsInputOption(runs);
    assert.ok(o);
    assert.deepEqual((o.yAxis as { data: string[] }).data, ['A · bf16-kv', 'B · fp8-kv']);
    for (const s of o.series as { data: unknown[] }[]) assert.equal(s.data.length, 32);
  });

  it('the page is titled with the experiment name, and its cards and CDF legends name the sides', async () => {
    await cli(['report', id, '--db', db, '--html', 'ab.html', '--md', 'ab.md']);
    const html = readFileSync(join(dir, 'ab.html'), 'utf8');
    assert.match(html, /<title>ab<\/title>/);
    assert.match(html, /<h1>ab<\/h1>/);
    const headline = html.slice(
      html.indexOf('id="headline"'),
      html.indexOf('</section>', html.indexOf('id="headline"')),
    );
    assert.match(headline, /A is bf16-kv and B is fp8-kv; each side pooled over its \d+ blocks/);
    assert.doesNotMatch(headline, /The numbers are those of/);
    assert.equal((headline.match(/data-side="a"/g) ?? []).length, 6);
    assert.equal((headline.match(/data-side="b"/g) ?? []).length, 6);
    const md = readFileSync(join(dir, 'ab.md'), 'utf8');
    assert.match(md, /\| ttft_ms p50 \| A \d+ ms · B \d+ ms \|/);
  });

  it('a list of plain runs keeps its run labels as the title', async () => {
    await cli(['report', runs[0].id, runs[1].id, '--db', db, '--html', 'two.html']);
    const html = readFileSync(join(dir, 'two.html'), 'utf8');
    const title = /<title>([^<]*)<\/title>/.exec(html)?.[1] ?? '';
    assert.ok(title.includes(runs[0].label) && title.includes(runs[1].label), title);
  });
});

describe('a baseline report: the cold first request apart from the warm ones', () => {
  let id = '';
  let runs: LoadedRun[] = [];
  before(async () => {
    // A 2 s cold start on every target, so that mixing the cold request into a percentile shows.
    id = await runTemplate('baseline', (y) =>
      y.replace(/^( {6})clock: virtual.*$/gm, '$1clock: virtual\n$1cold_start_ms: 2000'),
    );
    runs = await loadRuns([id], { db, cwd: dir });
  });

  it('the cold TTFT is its own card; warm p50/p99 leave the cold request out', () => {
    assert.ok(runs.every((r) => r.kind === 'baseline'));
    const h = headlineOf(runs, diagnose(runs));
    const run = h.focus.run;
    const measured = measuredSuccesses(run.records).sort((a, b) => a.index - b.index);
    const cold = ttftMs(measured[0]);
    const warm = measured
      .slice(1)
      .map((r) => ttftMs(r))
      .filter((v): v is number => v !== undefined)
      .sort((a, b) => a - b);
    assert.ok(cold !== undefined && cold > 2000, `cold TTFT ${cold}`);
    const card = (name: string, scope: string) => h.metrics.find((x) => x.name === name && x.scope === scope);
    assert.equal(card('ttft_ms', 'cold')?.value, cold);
    assert.equal(card('ttft_ms p50', 'warm')?.value, percentile(warm, 50));
    assert.equal(card('ttft_ms p99', 'warm')?.value, percentile(warm, 99));
    // The run's own p99 holds the cold start; the warm card does not.
    assert.ok((run.summary.ttft_ms.p99 ?? 0) > 1000);
    assert.ok((card('ttft_ms p99', 'warm')?.value ?? Infinity) < 1000);
  });

  it('the CDFs draw the warm requests only: the cold request is its own card', () => {
    const opt = cdfOption(runs, 'ttft_ms') as {
      title: { text: string };
      series: { data: [number, number][] }[];
    };
    assert.match(opt.title.text, /warm: the cold request left out/);
    for (const s of opt.series)
      assert.ok(
        s.data.every(([ms]) => ms < 2000),
        'no cold TTFT (> 2 s) drawn',
      );
  });

  it('the page says which card is cold and which warm, in English and in Chinese', async () => {
    await cli(['report', id, '--db', db, '--html', 'bl.html']);
    const html = readFileSync(join(dir, 'bl.html'), 'utf8');
    assert.match(html, /<title>baseline<\/title>/);
    assert.match(
      html,
      /data-metric="ttft_ms" data-scope="cold"><div class="k">ttft_ms<\/div><div class="s scope">cold: the first request/,
    );
    assert.match(html, /data-metric="ttft_ms p99" data-scope="warm">/);
    await cli(['report', id, '--db', db, '--html', 'bl-zh.html', '--lang', 'zh-CN']);
    const zh = readFileSync(join(dir, 'bl-zh.html'), 'utf8');
    assert.match(zh, /冷启动：第一个请求/);
    assert.match(zh, /预热后：不含冷启动请求/);
    const md = renderMarkdownReport(runs, diagnose(runs), { t: translator('zh-CN'), svgDir: 'bl.charts' });
    assert.match(md.markdown, /ttft_ms \(冷启动：第一个请求\)/);
  });
});
