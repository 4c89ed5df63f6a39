/**
 * Reading `vllm bench serve --save-result` files (report/vllm-result): telling them from
 * servelab's report.json by shape, the summary built from vLLM's own numbers, the per-request
 * arrays cross-checked against numpy (the fixture's statistics were computed by numpy, see
 * test/fixtures/vllm/make-fixtures.py), vLLM's 0-for-no-data read as null, and the table, the
 * diagnosis and the HTML/Markdown renderers on a run without records.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { diagnose } from '../../src/analysis/diagnose/index.js';
import { comparisonTable, renderTableText } from '../../src/report/comparison-table.js';
import { renderHtmlReport } from '../../src/report/html.js';
import { renderMarkdownReport } from '../../src/report/markdown.js';
import {
  isVllmResult,
  loadedRunFromVllmResult,
  parseJsonText,
  parseRunFile,
  VLLM_DEFINITIONS_NOTE,
  type VllmResultFile,
} from '../../src/report/vllm-result.js';
import { sampleRuns } from './helpers.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'vllm');
/** vLLM's defaults (ttft,tpot,itl; p99), no --save-detailed, --max-concurrency 8, 2 of 200 failed. */
export const DEFAULT_FILE = join(FIXTURES, 'openai-chat-infqps-concurrency8-Qwen3-8B-20261201-120000.json');
/** --save-detailed, ttft,tpot,itl,e2el at p50,90,99.9, --request-rate 4, 1 of 12 failed. */
export const DETAILED_FILE = join(FIXTURES, 'openai-chat-4.0qps-Qwen3-8B-20261201-121500.json');
const read = (p: string) => JSON.parse(readFileSync(p, 'utf8')) as VllmResultFile;

describe('vLLM result files: shape', () => {
  it('tells a vLLM result from a servelab report.json, whatever the name', () => {
    const v = parseRunFile(readFileSync(DEFAULT_FILE, 'utf8'));
    assert.equal(v.kind, 'vllm');
    assert.equal(parseRunFile('{"summary": {}, "config": {}}').kind, 'report');
    // A report.json is never read as a vLLM file, even if it has the same keys beside its summary.
    assert.equal(isVllmResult({ ...read(DEFAULT_FILE), summary: {} }), false);
  });

  it('says what is wrong with a file of neither shape, or one cut short', () => {
    assert.throws(
      () => parseRunFile('{"foo": 1}'),
      /neither a servelab report\.json \(no "summary"\) nor a vLLM result .*found keys "foo"/,
    );
    assert.throws(() => parseRunFile('[1, 2]'), /found a JSON array/);
    const text = readFileSync(DEFAULT_FILE, 'utf8');
    assert.throws(() => parseRunFile(text.slice(0, text.length / 2)), /not valid JSON .*truncated/);
    assert.throws(() => parseRunFile(''), /the file is empty/);
    const one = JSON.stringify(read(DEFAULT_FILE));
    assert.throws(() => parseRunFile(`${one}\n${one}`), /2 JSON documents, one per line .*--append-result/);
  });

  it("reads Python's bare NaN and Infinity as null, but not inside strings", () => {
    assert.deepEqual(
      parseJsonText('{"burstiness": Infinity, "x": -Infinity, "y": NaN, "s": "NaN Infinity"}'),
      {
        burstiness: null,
        x: null,
        y: null,
        s: 'NaN Infinity',
      },
    );
  });
});

describe('vLLM result files: the run', () => {
  it("keeps vLLM's numbers under servelab's keys, with vLLM's definitions and no records", () => {
    const f = read(DEFAULT_FILE);
    const run = loadedRunFromVllmResult('v.json', f);
    const s = run.summary;
    assert.equal(run.source?.tool, 'vllm');
    assert.deepEqual(run.records, []);
    assert.deepEqual(run.level, { concurrency: 8 });
    assert.deepEqual(run.window, { start_ms: 0, end_ms: (f.duration as number) * 1000 });
    assert.deepEqual(s.requests, { planned: 200, measured: 200, succeeded: 198, failed: 2 });
    assert.equal(s.error_rate, 2 / 200);
    assert.equal(s.ttft_ms.mean, f.mean_ttft_ms);
    assert.equal(s.ttft_ms.p50, f.median_ttft_ms);
    assert.equal(s.ttft_ms.std, f.std_ttft_ms);
    assert.equal(s.ttft_ms.p99, f.p99_ttft_ms);
    assert.equal(s.ttft_ms.p95, null, 'a percentile vLLM did not write is no data');
    assert.equal(s.ttft_ms.n, 198);
    assert.equal(s.metric_dialects.vllm_ttft_ms.p99, f.p99_ttft_ms);
    assert.equal(s.tpot_ms.p99, f.p99_tpot_ms);
    assert.equal(s.itl_ms.p50, f.median_itl_ms);
    assert.equal(s.request_throughput_rps, f.request_throughput);
    assert.equal(s.output_throughput_tok_s, f.output_throughput);
    assert.equal(s.total_throughput_tok_s, f.total_token_throughput);
    assert.equal(s.goodput.rps, null, 'vLLM writes null without --goodput');
    assert.equal(s.input_tokens.mean, 512);
    assert.equal(s.output_tokens.mean, 128);
    // No e2el statistics (vLLM's default), but 2 zero latencies = the 2 failed: the other 198
    // are the successes' E2EL.
    assert.equal(s.e2e_ms.n, 198);
    const lat = (f.latencies as number[]).filter((x) => x > 0).map((x) => x * 1000);
    assert.equal(s.e2e_ms.max, Math.max(...lat));
    assert.equal(s.e2e_ms.min, Math.min(...lat));
    // Client health, lateness and Little's law are not in the file.
    assert.equal(s.client.cpu_percent, null);
    assert.equal(s.littles_law.rel_gap, null);
    assert.equal(s.lateness_ms.n, 0);
  });

  it('derives the statistics vLLM did not write from --save-detailed arrays, with its formulas (numpy agrees)', () => {
    const f = read(DETAILED_FILE);
    // The file's own numbers stand; the arrays fill p95/p99, min and max and give exact n.
    const run = loadedRunFromVllmResult('d.json', f);
    assert.equal(run.summary.ttft_ms.p50, f.median_ttft_ms);
    assert.equal(run.summary.ttft_ms.p90, f.p90_ttft_ms);
    assert.equal(run.summary.ttft_ms.n, 11);
    assert.equal(run.summary.itl_ms.n, 11 * 31, '31 gaps in each of 11 successful 32-token answers');
    assert.notEqual(run.summary.ttft_ms.p99, null);
    assert.equal(run.source?.stats.ttft['p99.9'], f['p99.9_ttft_ms']);
    assert.deepEqual(run.level, { rate_rps: 4 });
    assert.ok(run.source?.notes.includes('error: 1 × Bad Request'), run.source?.notes.join('\n'));
    // Without the file's statistics, the arrays alone give what numpy gave vLLM.
    const bare = Object.fromEntries(Object.entries(f).filter(([k]) => !/_ms$/.test(k)));
    const fromArrays = loadedRunFromVllmResult('b.json', bare).summary;
    const close = (a: number | null, b: unknown, what: string) =>
      assert.ok(a !== null && Math.abs(a - (b as number)) < 1e-9, `${what}: ${a} vs numpy ${b}`);
    for (const [key, m] of [
      ['ttft_ms', 'ttft'],
      ['tpot_ms', 'tpot'],
      ['itl_ms', 'itl'],
      ['e2e_ms', 'e2el'],
    ] as const) {
      close(fromArrays[key].mean, f[`mean_${m}_ms`], `mean ${m}`);
      close(fromArrays[key].p50, f[`median_${m}_ms`], `median ${m}`);
      close(fromArrays[key].std, f[`std_${m}_ms`], `std ${m}`);
      close(fromArrays[key].p90, f[`p90_${m}_ms`], `p90 ${m}`);
    }
  });

  it("reads vLLM's 0 statistics as no data when no request completed", () => {
    const f = read(DEFAULT_FILE);
    for (const k of Object.keys(f)) if (/_ms$/.test(k)) f[k] = 0;
    Object.assign(f, { completed: 0, failed: 200, request_throughput: 0, output_throughput: 0 });
    f.latencies = (f.latencies as number[]).map(() => 0);
    const run = loadedRunFromVllmResult('z.json', f);
    for (const k of ['ttft_ms', 'tpot_ms', 'itl_ms', 'e2e_ms'] as const) {
      assert.equal(run.summary[k].n, 0, k);
      assert.equal(run.summary[k].p99, null, k);
      assert.equal(run.summary[k].mean, null, k);
    }
    assert.equal(run.source?.stats.ttft.p99, null);
    assert.equal(run.summary.input_tokens.mean, null);
    assert.ok(run.source?.notes.some((n) => n.startsWith('no request completed')));
    const [row] = comparisonTable([run]);
    assert.equal(row.ttft_ms_p99.value, null);
    assert.equal(row.succeeded.value, 0);
  });

  it('says when servelab wrote the file and its report.json lies next to it', () => {
    const f = { ...read(DEFAULT_FILE), servelab: { notes: ['rtfx: speech (ASR) runs only'] } };
    const run = loadedRunFromVllmResult('out/vllm.json', f, { reportNextToIt: 'out/report.json' });
    const notes = run.source?.notes.join('\n') ?? '';
    assert.match(notes, /written by servelab/);
    assert.match(notes, /out\/report\.json next to it is the same run with its records/);
    assert.match(notes, /servelab: rtfx/);
  });
});

describe('vLLM result files: table, diagnosis and reports', () => {
  const vllm = () => loadedRunFromVllmResult('v.json', read(DEFAULT_FILE));

  it('marks the row as vLLM-defined, with unknown counts as no data, next to a servelab run', () => {
    const [ours] = sampleRuns();
    const rows = comparisonTable([ours, vllm()]);
    assert.equal(rows[0].definitions, 'servelab');
    assert.equal(rows[1].definitions, 'vllm');
    assert.equal(rows[1].truncated.value, null);
    assert.equal(rows[1].warmup.value, null);
    assert.equal(rows[1].input_tokens_p50.value, null);
    assert.equal(rows[1].verdict, 'partly checked');
    assert.equal(rows[0].verdict, 'valid');
    const text = renderTableText(rows);
    assert.match(text, /^definitions +servelab +vLLM$/m);
    assert.ok(text.includes(VLLM_DEFINITIONS_NOTE));
    const alone = renderTableText(rows.slice(0, 1));
    assert.ok(!alone.includes('definitions vLLM'), 'no footnote without a vLLM row');
    assert.doesNotMatch(alone, /^definitions/m, 'nor the column');
  });

  it('skips, with the reason, every check that needs what a vLLM file does not have', () => {
    const run = vllm();
    const d = diagnose([run]);
    const skipped = d.skipped.flatMap((s) => s.checks);
    for (const c of [
      'lateness',
      'client_cpu',
      'littles_law',
      'cold_start',
      'stall_batch_growth',
      'truncation',
    ])
      assert.ok(skipped.includes(c), c);
    assert.ok(d.skipped.every((s) => s.run === 'v.json' && s.reason.length > 20));
    assert.deepEqual(d.findings, []);
    // A high TTFT is in the summary; its cause is not, and the observation says so.
    run.summary.ttft_ms = { ...run.summary.ttft_ms, p50: 900, p90: 1200 };
    const high = diagnose([run]);
    assert.equal(high.unexplained.length, 1);
    assert.match(high.unexplained[0].observation, /without per-request records/);
    assert.ok(!high.skipped.some((s) => s.checks.includes('high_ttft')));
  });

  it('renders the HTML and Markdown reports for a run without records', () => {
    const runs = [sampleRuns()[0], vllm(), loadedRunFromVllmResult('d.json', read(DETAILED_FILE))];
    const d = diagnose(runs);
    const html = renderHtmlReport(runs, d);
    assert.match(html, /data-run="v\.json" data-definitions="vllm"/);
    assert.match(html, /<h3>Not checked<\/h3>/);
    assert.ok(html.includes((read(DEFAULT_FILE).p99_ttft_ms as number).toFixed(1)));
    assert.ok(
      html.includes((read(DETAILED_FILE)['p99.9_ttft_ms'] as number).toFixed(2)),
      'every statistic of the file',
    );
    const md = renderMarkdownReport(runs, d, { svgDir: 'charts' }).markdown;
    assert.match(md, /\| v\.json \| c=8 \| vLLM \|/);
    assert.match(md, /### Not checked/);
    assert.ok(md.includes("follow vLLM's definitions"));
  });
});
