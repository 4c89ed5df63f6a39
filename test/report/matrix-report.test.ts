/**
 * A matrix's report (the shipped template, virtual clock, seed 1): a grid of cells × levels has
 * no one knee. Before, the headline said "the knee (level 1)" and the load chart joined every
 * cell's c=1 and c=8 points into one zig-zag line with a "knee 1" marker; now the headline speaks
 * of the cell the answer names, and the chart draws one line per cell.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { diagnose } from '../../src/analysis/diagnose/index.js';
import type { LoadedRun } from '../../src/analysis/loaded-run.js';
import { loadRuns } from '../../src/cli/commands/resolve-refs.js';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { loadCurveOption } from '../../src/report/charts.js';
import { headlineOf } from '../../src/report/html.js';
import '../helpers/node-warnings.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-matrix-report-'));
const db = join(dir, 'x.db');
after(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[]): Promise<{ out: string; err: string }> {
  const io = memoryIo({}, dir);
  const code = await main(args, io);
  assert.equal(code, 0, `servelab ${args.join(' ')}\n${io.err().slice(-3000)}`);
  return { out: io.out(), err: io.err() };
}

const cellOf = (r: LoadedRun) => (r.config.level as { cell?: string } | undefined)?.cell;

describe('a matrix report: the grid, not a knee', () => {
  let id = '';
  let runs: LoadedRun[] = [];
  before(async () => {
    const init = await cli(['exp', 'init', 'matrix']);
    assert.match(init.out, /^# seed: 1$/m);
    assert.match(init.out, /clock: virtual/);
    writeFileSync(join(dir, 'matrix.yaml'), init.out.replace(/^# seed: 1$/m, 'seed: 1'));
    const run = await cli(['exp', 'run', 'matrix.yaml', '--db', db]);
    id = /experiment ([a-z0-9]+):/.exec(run.err)?.[1] ?? '';
    assert.ok(id, run.err);
    runs = await loadRuns([id], { db, cwd: dir });
  });

  it('the runs are three cells at two levels each', () => {
    assert.equal(new Set(runs.map(cellOf)).size, 3);
    assert.deepEqual([...new Set(runs.map((r) => r.level?.concurrency))].sort(), [1, 8]);
  });

  it('the headline speaks of the cell the answer names (the most throughput), with no knee', async () => {
    const h = headlineOf(runs, diagnose(runs));
    assert.equal(h.knee, null);
    assert.equal(h.curve, false);
    await cli(['report', id, '--db', db, '--html', 'r.html']);
    const html = readFileSync(join(dir, 'r.html'), 'utf8');
    const headline = /<section class="headline" id="headline">[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';
    assert.ok(headline, 'the report has a headline');
    assert.doesNotMatch(headline, /knee/i);
    const top = runs.reduce((a, b) =>
      (b.summary.output_throughput_tok_s ?? 0) > (a.summary.output_throughput_tok_s ?? 0) ? b : a,
    );
    assert.ok(headline.includes(`${top.label}, the run the answer above speaks of`), headline);
    assert.doesNotMatch(html, /knee/i, 'no knee anywhere, the chart marker included');
  });

  it('the load curve draws one line per cell: no series joins two cells', () => {
    const o = loadCurveOption(runs);
    assert.ok(o);
    const series = o.series as { name: string; data: [number, number | null][]; markLine?: unknown }[];
    const tput = series.filter((s) => s.name.endsWith('output tok/s'));
    assert.equal(tput.length, 3, series.map((s) => s.name).join(', '));
    for (const cell of new Set(runs.map(cellOf)))
      assert.equal(tput.filter((s) => s.name.includes(`${cell}:`)).length, 1, `one line for ${cell}`);
    for (const s of series) {
      const xs = s.data.map((p) => p[0]);
      // One cell's line has each level once; a line across cells repeats them (1, 1, 1, 8, 8, 8).
      assert.equal(new Set(xs).size, xs.length, `${s.name}: ${xs.join(', ')}`);
    }
  });
});
