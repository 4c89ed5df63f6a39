/**
 * The kinds' answers (`report/answer`), built from real results: each shipped template
 * (`servelab exp init KIND`), made small and run in virtual time against the built-in
 * simulator, its result taken back from the store, and the kind's `answer` held to its own
 * table: the verdict names what the table shows.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { wilsonInterval } from '../../src/analysis/binomial.js';
import { KINDS } from '../../src/exp/kinds/index.js';
import type { MatrixResult } from '../../src/exp/kinds/matrix.js';
import type { MixedInputResult } from '../../src/exp/kinds/mixed-input.js';
import type { PrefixCacheResult } from '../../src/exp/kinds/prefix-cache.js';
import { concludeSweep } from '../../src/exp/kinds/sweep.js';
import { type SweepPoint, type SweepResult, sweepAnswer } from '../../src/exp/kinds/sweep-report.js';
import type { TeamResult } from '../../src/exp/kinds/team-assistant-report.js';
import { experimentTemplate } from '../../src/exp/templates.js';
import { translator } from '../../src/i18n/index.js';
import type { AnswerCell, ExperimentAnswer } from '../../src/report/answer.js';
import { exp, run, tempStore } from './helpers.js';

const EN = translator('en');
const ZH = translator('zh-CN');
const { store, cleanup } = tempStore();
after(cleanup);

/**
 * A template in virtual time (as shipped) with a fixed seed: the checks below read numbers of
 * one reproducible run (a template left alone draws a fresh seed each time).
 */
function virtual(kind: string): string {
  const text = experimentTemplate(kind).replace(/^# seed: 1$/m, 'seed: 1');
  assert.match(text, /^seed: 1$/m, 'the template seeds its run');
  assert.match(text, /\n\s+clock: virtual/, 'the template has a simulator target');
  return text;
}

/** Run a file into the store; return the kind's result as stored, and the experiment's run ids. */
async function stored<R>(text: string): Promise<{ res: R; runIds: string[] }> {
  const { result } = await run(exp(text), store);
  const id = result.experiment_id as string;
  const row = store.getExperiment(id);
  const res = (row?.summary as { results: R } | null)?.results;
  assert.ok(res, 'the result is stored with the experiment');
  return { res, runIds: store.listRuns({ experimentId: id }).map((r) => r.id) };
}

/** Build the kind's answer from a stored result, in English and Chinese, and check its shape. */
function answerOf(kind: keyof typeof KINDS, res: unknown, runIds: string[]): ExperimentAnswer {
  const build = KINDS[kind].answer as ((r: unknown, t: typeof EN) => ExperimentAnswer) | undefined;
  assert.ok(build, `${kind} has an answer`);
  const a = build(res, EN);
  assert.equal(a.kind, kind);
  assert.ok(a.question.endsWith('?') || a.question.endsWith('.'), a.question);
  assert.ok(a.verdict.length > 0);
  assert.ok(a.table.rows.length > 0);
  for (const r of a.table.rows) assert.equal(r.length, a.table.columns.length, 'every row fills the columns');
  // The runs it rests on are the experiment's runs, each in the store.
  assert.ok(a.run_ids.length > 0);
  for (const id of a.run_ids) assert.ok(runIds.includes(id), `run ${id} is stored`);
  // Plain data: the store and report --json carry it as it is.
  assert.deepEqual(JSON.parse(JSON.stringify(a)), a);
  // The same answer in Chinese: translated prose, the same table.
  const z = build(res, ZH);
  assert.match(z.verdict + z.question, /[\u4e00-\u9fff]/);
  assert.notEqual(z.question, a.question);
  assert.equal(z.table.rows.length, a.table.rows.length);
  return a;
}

const col = (a: ExperimentAnswer, name: string): number => {
  const i = a.table.columns.indexOf(name);
  assert.ok(i >= 0, `column ${name} in ${a.table.columns.join(' | ')}`);
  return i;
};
const num = (c: AnswerCell): number => {
  assert.equal(typeof c, 'number', `a number: ${c}`);
  return c as number;
};

test('team-assistant: the verdict names the largest number of users whose row meets the SLO, and the search brackets it', async () => {
  const text = virtual('team-assistant')
    .replace(/users: \[4, 8, 16, 32, 48, 64\]/, 'users: [1, 2, 4, 8, 16]')
    .replace(/turns: uniform:3-6/, 'turns: 2')
    .replace(/ramp_up_s: 60/, 'ramp_up_s: 2')
    .replace(/input_len: 100/, 'input_len: 32')
    .replace(/output_len: 200/, 'output_len: 24')
    .replace(/tokens: uniform:2000-8000/, 'tokens: uniform:200-400')
    .replace(/\n {2}time_scale: 1 /, '\n  time_scale: 10 ')
    .replace(/min_turns: 300/, 'min_turns: 1')
    .replace(/slo:\n {2}ttft_ms: 2000\n {2}tpot_ms: 100/, 'slo:\n  ttft_ms: 150\n  tpot_ms: 1000');
  const { res, runIds } = await stored<TeamResult>(text);
  const a = answerOf('team-assistant', res, runIds);
  const t = res.targets[0];
  assert.ok(t.largest !== null && t.largest > 0, 'a team of some users meets the SLO');
  const users = col(a, EN('team.col.users'));
  const meets = col(a, EN('answer.team.col.meets'));
  const met = a.table.rows.filter((r) => r[meets] === '✓').map((r) => num(r[users]));
  const largestRow = Math.max(...met);
  assert.equal(largestRow, t.largest);
  // The verdict's user count is that row's, and it is the first number the verdict says.
  const said = Number(/(\d+) users?\b/.exec(a.verdict)?.[1]);
  assert.equal(said, largestRow, a.verdict);
  // No row above it meets the SLO (each fails, ✗, or cannot tell, ?).
  for (const r of a.table.rows) if (num(r[users]) > largestRow) assert.match(String(r[meets]), /^[✗?]$/);
  // Each level's 95% Wilson interval of the turns that met the SLO, and the verdict states the answer's.
  const turns = col(a, EN('answer.team.col.turns_met'));
  const ci = col(a, EN('answer.team.col.ci95'));
  for (const r of a.table.rows) {
    const [k, n] = String(r[turns]).split('/').map(Number);
    const w = wilsonInterval(k, n);
    assert.ok(w);
    // Shares are cut down, never rounded up, to the target's one decimal (a failing 98.96% is 98.9%).
    const cut = (x: number) => (Math.floor(x * 1000 + 1e-6) / 10).toFixed(1);
    assert.equal(r[ci], `${cut(w.low)}–${cut(w.high)}%`);
  }
  assert.match(a.verdict, /95% CI \d/);
  // The chart: attainment against users, with the required share.
  assert.equal(a.chart?.type, 'line');
  assert.equal(a.chart?.series.length, 2);
  const line = a.chart?.series[0].points ?? [];
  assert.deepEqual(
    line.map((p) => p[0]),
    a.table.rows.map((r) => num(r[users])),
  );
  // The interval is the search's bracket: met at the answer, missed just above it.
  if (t.bounded) {
    assert.ok(a.interval);
    assert.equal(a.interval.what, 'users');
    assert.equal(a.interval.low, largestRow);
    const firstMiss = Math.min(...a.table.rows.map((r) => num(r[users])).filter((u) => u > largestRow));
    assert.equal(a.interval.high, firstMiss - 1);
  }
  assert.deepEqual([...a.run_ids].sort(), t.levels.map((l) => l.run_id as string).sort());
});

test('concurrency-sweep: the verdict names the knee the table marks, with its throughput', async () => {
  const text = virtual('concurrency-sweep')
    .replace(/concurrency: \[1, 2, 4, 8, 16, 32\]/, 'concurrency: [1, 2, 4, 8, 16]')
    .replace(/requests: 32 /, 'requests: 16 ')
    .replace(/input_len: \d+/, 'input_len: 128')
    .replace(/output_len: \d+/, 'output_len: 32');
  const { res, runIds } = await stored<SweepResult>(text);
  const a = answerOf('concurrency-sweep', res, runIds);
  const t = res.targets[0];
  const level = col(a, EN('exp.sweep.concurrency'));
  const knee = col(a, EN('answer.sweep.col.knee'));
  const marked = a.table.rows.filter((r) => r[knee] !== '').map((r) => num(r[level]));
  if (t.knee_determined) {
    assert.deepEqual(marked, [t.knee]);
    assert.match(a.verdict, new RegExp(`concurrency ${t.knee}\\b`));
    assert.doesNotMatch(a.verdict, /extend/);
    // The knee is a vertical line on the throughput series, at that level.
    const tput = a.chart?.series.find((s) => s.name === EN('answer.sweep.series.throughput'));
    assert.deepEqual(tput?.marks, [{ at: 'x', value: t.knee, label: EN('answer.sweep.knee_mark') }]);
  } else {
    assert.deepEqual(marked, []);
    assert.doesNotMatch(a.verdict, /knee is/);
  }
  assert.equal(a.chart?.x.log, true);
  // Throughput on the left axis, latency in ms on the right; the report's load curve is not drawn twice.
  assert.equal(a.chart?.y.unit, 'tok/s');
  assert.equal(a.chart?.y2?.unit, 'ms');
  assert.deepEqual(
    a.chart?.series.map((s) => s.axis ?? 'y'),
    ['y', 'y2', 'y2'],
  );
  assert.deepEqual(a.chart?.replaces, ['load-curve']);
});

test('concurrency-sweep with a stop and an SLO search: the knee, the stop and the SLO answer agree', async () => {
  const text = virtual('concurrency-sweep')
    .replace(/requests: 32 /, 'requests: 16 ')
    .replace(/input_len: \d+/, 'input_len: 256')
    .replace(/output_len: \d+/, 'output_len: 32')
    .replace(/ttft_p99_factor: 10 /, 'ttft_p99_factor: 3 ')
    .replace(/find_max_concurrency: false/, 'find_max_concurrency: true')
    .replace(/max_num_seqs: 8/, 'max_num_seqs: 2');
  const { res, runIds } = await stored<SweepResult>(text);
  const a = answerOf('concurrency-sweep', res, runIds);
  const t = res.targets[0];
  const stopped = t.points.find((p) => p.stopped);
  assert.ok(stopped, `a level tripped the stop rule: ${t.points.map((p) => p.ttft_ms.p99)}`);
  // The sweep ended at a stop: the verdict says where and why, and never "extend the levels".
  assert.doesNotMatch(a.verdict, /extend/);
  assert.match(a.verdict, new RegExp(`concurrency ${stopped.level}\\b`));
  assert.match(a.verdict, /p99 TTFT reached/);
  const stopCol = col(a, EN('exp.col.stop'));
  assert.equal(a.table.rows.filter((r) => r[stopCol] !== '').length, 1);
  // The SLO answer: the verdict's number is the search's, its row (when a sweep level) passed.
  const mc = t.max_concurrency;
  assert.ok(mc && mc.concurrency !== null);
  assert.match(a.verdict, new RegExp(`(at most|at least) ${mc.concurrency} concurrent requests`));
  const slo = col(a, EN('answer.sweep.col.slo'));
  const level = col(a, EN('exp.sweep.concurrency'));
  for (const r of a.table.rows)
    if (r[slo] !== null) assert.equal(r[slo] === '✓', num(r[level]) <= (mc.concurrency as number));
  if (mc.bounded) {
    assert.equal(a.interval?.what, 'max_concurrency');
    assert.equal(a.interval?.low, mc.concurrency);
  }
  // Every probe's run is among the runs it rests on.
  for (const p of mc.probes) if (p.run_id) assert.ok(a.run_ids.includes(p.run_id));
});

test('rate-sweep: the answer speaks in requests per second, one row per rate, and its verdict agrees with the knee', async () => {
  const text = virtual('rate-sweep')
    .replace(/rates: \[10, 20, 40, 80, 160\]/, 'rates: [5, 10, 20, 40]')
    .replace(/requests: 100 /, 'requests: 16 ')
    .replace(/input_len: \d+/, 'input_len: 128')
    .replace(/output_len: \d+/, 'output_len: 32');
  const { res, runIds } = await stored<SweepResult>(text);
  const a = answerOf('rate-sweep', res, runIds);
  const t = res.targets[0];
  const rate = col(a, EN('exp.sweep.rate'));
  assert.deepEqual(
    a.table.rows.map((r) => r[rate]),
    t.points.map((p) => p.level),
  );
  assert.equal(a.chart?.x.unit, 'req/s');
  assert.equal(a.interval, null, 'a rate sweep has no SLO search to bracket');
  if (t.knee_determined) assert.match(a.verdict, new RegExp(`\\b${t.knee} req/s`));
  else if (!t.stopped_at) assert.match(a.verdict, /still rises/);
});

/** A level with throughput `tput`, p99 TTFT `ttft`, and the given validity codes. */
function point(level: number, tput: number, ttft: number, validity: string[] = []): SweepPoint {
  const pct = { p50: ttft / 2, p95: ttft, p99: ttft, n: 100 };
  return {
    run_id: `run-${level}`,
    requests: 100,
    error_rate: 0,
    request_throughput_rps: tput / 100,
    output_throughput_tok_s: tput,
    ttft_ms: pct,
    tpot_ms: pct,
    e2e_ms: pct,
    itl_ms: pct,
    validity: validity.map((code) => ({ code, message: code })),
    cache_hit_rate: null,
    server_tokens_per_s: null,
    level,
    achieved_rate_rps: null,
    stopped: null,
  };
}

test('sweep consistency: a stop at a level whose run is not valid still ends the sweep, and the knee says so', () => {
  // The sweep: throughput still rising over the valid levels, and the last level,
  // not valid, stopped the sweep with p99 TTFT 10312.4 ms > 10 × 587.6 ms.
  const points = [point(1, 100, 587.6), point(2, 190, 600), point(4, 350, 900), point(8, 600, 1500)];
  const last = { ...point(16, 900, 10312.4, ['event_loop_lag']) };
  last.stopped = "p99 TTFT 10312.4 ms > 10 × the first level's 587.6 ms";
  const t = concludeSweep('sim', 'concurrency', [...points, last]);
  assert.equal(t.stopped_at, 16);
  assert.equal(t.knee, 8, t.knee_reason);
  assert.ok(t.knee_determined);
  assert.match(t.knee_reason, /level 16 tripped a stop rule: p99 TTFT 10312\.4 ms/);
  assert.doesNotMatch(t.knee_reason, /still rising|extend/);
  const res: SweepResult = {
    kind: 'concurrency-sweep',
    prompts: 'fresh',
    stop: { error_rate: 0.05, ttft_p99_factor: 10, e2e_p99_factor: 10 },
    knee_min_gain: 0.1,
    targets: [t],
  };
  const a = sweepAnswer(res, EN);
  assert.equal(
    a.verdict,
    "The knee is concurrency 8 (600.0 output tok/s): at the next level, concurrency 16, p99 TTFT reached 10312.4 ms, over 10 × the first level's 587.6 ms, which ended the sweep",
  );
  // The console says the same.
  const lines = KINDS['concurrency-sweep'].format(res, EN).join('\n');
  assert.match(lines, /knee: 8 \(level 16 tripped a stop rule/);
  assert.doesNotMatch(lines, /not reached/);
  // Without a stop, throughput still rising is what the verdict says.
  const rising = sweepAnswer({ ...res, targets: [concludeSweep('sim', 'concurrency', points)] }, EN);
  assert.match(rising.verdict, /still rises at the last valid level, concurrency 8.*extend/);
  assert.equal(rising.interval, null);
});

test('prefix-cache: the answer is the phase table, and the verdict quotes its hits and TTFTs', async () => {
  const text = virtual('prefix-cache')
    .replace(/document_tokens: 2048/, 'document_tokens: 512')
    .replace(/requests_per_phase: 4/, 'requests_per_phase: 2')
    .replace(/output_len: 32/, 'output_len: 8');
  const { res, runIds } = await stored<PrefixCacheResult>(text);
  const a = answerOf('prefix-cache', res, runIds);
  const phase = col(a, EN('exp.col.phase'));
  assert.deepEqual(
    a.table.rows.map((r) => r[phase]),
    ['cold', 'exact repeat', 'shared document', 'scattered'],
  );
  const hit = col(a, `${EN('exp.prefix.hit')} %`);
  const ttft = col(a, 'TTFT p50 ms');
  const byPhase = new Map(a.table.rows.map((r) => [r[phase], r]));
  const repeat = byPhase.get('exact repeat') as AnswerCell[];
  const cold = byPhase.get('cold') as AnswerCell[];
  // The verdict's numbers are the table's.
  assert.ok(a.verdict.includes(`exact repeat ${num(repeat[hit]).toFixed(1)}%`), a.verdict);
  assert.ok(a.verdict.includes(`cold ${num(cold[ttft]).toFixed(1)} ms`), a.verdict);
  const prefill = col(a, 'prefill p50 ms');
  assert.ok(num(repeat[prefill]) < num(cold[prefill]), 'the repeat is served from the cache');
  assert.match(a.verdict, /every phase hit where expected/);
  assert.equal(a.chart?.type, 'bar');
  assert.equal(a.chart?.x.categories?.length, 4);
  assert.equal(a.run_ids.length, 4);
  assert.equal(a.interval, null);
});

test('mixed-input: the verdict names the order with the largest stall ratio in the table', async () => {
  const text = virtual('mixed-input')
    .replace(
      /long: \{input_len: 4096, output_len: 32, count: 4\}/,
      'long: {input_len: 4096, output_len: 16, count: 2}',
    )
    .replace(
      /short: \{input_len: 128, output_len: 128, count: 16\}/,
      'short: {input_len: 128, output_len: 96, count: 6}',
    );
  const { res, runIds } = await stored<MixedInputResult>(text);
  const a = answerOf('mixed-input', res, runIds);
  const order = col(a, EN('exp.col.order'));
  const ratio = col(a, EN('exp.mixed.stall_ratio'));
  const rows = a.table.rows.filter((r) => r[ratio] !== null);
  assert.ok(rows.length > 0, 'some order has a stall ratio');
  const worst = rows.reduce((x, y) => (num(y[ratio]) > num(x[ratio]) ? y : x));
  // The verdict names the worst order and quotes its ratio (as the table rounds it).
  if (num(worst[ratio]) <= 1) assert.match(a.verdict, /did not stall/);
  else if (rows.length === 1) assert.ok(a.verdict.startsWith(`In the ${worst[order]} order`), a.verdict);
  // Orders whose ratios tie as the table rounds them may each be the one the verdict names.
  else
    assert.ok(
      rows
        .filter((r) => num(r[ratio]) === num(worst[ratio]))
        .some((r) => a.verdict.includes(`most in the ${r[order]} order`)),
      a.verdict,
    );
  assert.ok(a.verdict.includes(`${num(worst[ratio]).toFixed(2)}×`), a.verdict);
  // The template's arrivals stall the decodes: short requests already decoding when a long arrives.
  assert.ok(num(worst[ratio]) > 1.5, a.verdict);
  // Bars: one per order, the table's ratios.
  assert.deepEqual(
    a.chart?.series[0].points.map((p) => p[1]),
    a.table.rows.map((r) => r[ratio]),
  );
});

test('matrix: the grid with TTFR beside TTFT, the verdict names its best and slowest cells, and says TTFT includes thinking', async () => {
  const text = virtual('matrix')
    .replace(/input_len: 2048/g, 'input_len: 512')
    .replace(/output_len: 256/, 'output_len: 64')
    .replace(/requests: 16 /, 'requests: 8 ');
  const { res, runIds } = await stored<MatrixResult>(text);
  const a = answerOf('matrix', res, runIds);
  assert.equal(a.table.rows.length, 6, 'three cells × two concurrency levels');
  const cellCol = col(a, EN('exp.col.cell'));
  const conc = col(a, EN('exp.col.conc'));
  const tput = col(a, 'out tok/s');
  const ttfr = col(a, 'TTFR p50 ms');
  const top = a.table.rows.reduce((x, y) => (num(y[tput]) > num(x[tput]) ? y : x));
  assert.ok(
    a.verdict.startsWith(`The most throughput is ${top[cellCol]} at concurrency ${top[conc]}`),
    a.verdict,
  );
  // The template's model thinks before it answers: TTFR is measured and the verdict says TTFT includes it.
  const reasoned = res.targets[0].cells.some((c) => c.ttfr_ms.n > 0);
  assert.ok(reasoned, 'qwen3 reasons by default');
  assert.ok(a.table.rows.every((r) => typeof r[ttfr] === 'number'));
  for (const r of a.table.rows) assert.ok(num(r[ttfr]) <= num(r[col(a, 'TTFT p50 ms')]));
  assert.match(a.verdict, /TTFT includes its thinking/);
  // The answer's grid carries every number; the kind's own console lines do not repeat it.
  const lines = KINDS.matrix.format(res, EN).join('\n');
  assert.doesNotMatch(lines, /TTFR p50 ms/);
});
