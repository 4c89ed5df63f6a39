/**
 * Run outputs: report.json, summary.csv, vllm.json and the console table, built from a real
 * (virtual-time) run summarised by analysis/summary.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parseSlo } from '../../src/analysis/slo.js';
import { type Summary, summarize } from '../../src/analysis/summary.js';
import { translator } from '../../src/i18n/index.js';
import { describeEnvironment } from '../../src/output/environment.js';
import { writeRunOutputs } from '../../src/output/write.js';
import { summaryRows, summaryToCsv } from '../../src/report/run/csv.js';
import { buildRunReport, RECORDS_FILE, type RunReport } from '../../src/report/run/report.js';
import { formatSummaryTable } from '../../src/report/run/summary-table.js';
import { toVllmResult } from '../../src/report/run/vllm.js';
import type { RunResult } from '../../src/runner/load.js';
import { runLoad } from '../../src/runner/loops.js';
import { VirtualClock } from '../../src/runtime/clock.js';
import { drive, VirtualTarget } from './virtual-target.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-report-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let res: RunResult;
let summary: Summary;
let report: RunReport;
const config = {
  target: { url: 'http://127.0.0.1:1/v1', model: 'm' },
  load: { concurrency: 2, requests: 10 },
};

before(async () => {
  const clock = new VirtualClock(1_767_225_600_000); // 2026-01-01T00:00:00Z
  // 10 requests: 400 ms each, 4 content chunks (1 token each); index 3 fails with a 500.
  const specs = Array.from({ length: 5 }, (_, index) => ({
    index,
    prompt: 'x',
    input_len: 20,
    output_len: 4,
  }));
  const target = new VirtualTarget(clock, (a) =>
    a.spec.index === 3
      ? { kind: 'ok', latencyMs: 50, outcome: 'http_error', http_status: 500 }
      : { kind: 'ok', latencyMs: 400, chunks: 4 },
  );
  res = await drive(
    clock,
    runLoad({ load: { kind: 'closed', concurrency: 2, requests: 10 }, specs, warmup: 1 }, { target, clock }),
  );
  summary = summarize(res.records, {
    window: res.window,
    slo: parseSlo('ttft_ms=100'),
    client: res.client_health,
  });
  report = buildRunReport({
    config,
    environment: describeEnvironment('0.0.0-test'),
    window: res.window,
    started_at_unix_ms: res.started_at_unix_ms,
    summary,
    end: res,
    records: res.records,
    embedRecords: false,
  });
});

test('report.json: versioned, anchored, names the records file, embeds records only when asked', async () => {
  const out = join(dir, 'a');
  const written = await writeRunOutputs(out, report);
  assert.deepEqual(
    written.map((p) => p.slice(out.length + 1)),
    ['report.json', 'summary.csv'],
  );
  const json = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
  assert.equal(json.schema_version, 1);
  assert.equal(json.kind, 'run');
  assert.equal(json.started_at_unix_ms, 1_767_225_600_000);
  assert.equal(json.records_file, RECORDS_FILE);
  assert.equal(json.records_file, 'requests.jsonl');
  assert.deepEqual(json.config, config);
  assert.equal(json.environment.servelab_version, '0.0.0-test');
  assert.equal(json.environment.node_version, process.version);
  assert.deepEqual(json.window, res.window);
  assert.deepEqual(json.end, { reason: 'completed', interrupted: false });
  assert.equal(json.summary.requests.measured, 10);
  assert.equal('records' in json, false);

  const embedded = buildRunReport({ ...report, records: res.records, embedRecords: true });
  assert.equal(embedded.records?.length, 11);
});

test('summary.csv: one row per numeric metric × stat, plus scalar keys; null is an empty cell', () => {
  const csv = summaryToCsv(summary);
  const lines = csv.trimEnd().split('\n');
  assert.equal(lines[0], 'metric,stat,value');
  for (const k of ['n', 'mean', 'std', 'min', 'p50', 'p90', 'p95', 'p99', 'max'])
    assert.ok(lines.includes(`ttft_ms,${k},${summary.ttft_ms[k as 'n']}`), `ttft_ms,${k}`);
  assert.ok(lines.includes(`requests,measured,10`));
  assert.ok(lines.includes(`error_rate,value,${summary.error_rate}`));
  assert.ok(lines.includes(`outcomes,http_error,2`));
  assert.ok(lines.includes('goodput.slo,ttft_ms,100'));
  // ttfr: no reasoning in this run, so every stat but n is null → empty.
  assert.ok(lines.includes('ttfr_ms,p99,'));
  // Text and booleans stay out; non-finite numbers are missing, not text.
  assert.deepEqual(
    summaryRows({ w: ['a,"b"'], d: { definition: 'x', n: 3 }, b: true, x: null, y: Infinity }),
    [
      { metric: 'd', stat: 'n', value: 3 },
      { metric: 'x', stat: 'value', value: null },
      { metric: 'y', stat: 'value', value: null },
    ],
  );
  assert.equal(summaryToCsv({ w: ['a,"b"'], 'a,b': { c: 1e-7 } }), 'metric,stat,value\n"a,b",c,1e-7\n');
});

/** Split one RFC 4180 line (no embedded newlines) into its fields. */
function csvFields(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

test('summary.csv as written: three columns, every value cell a finite number or empty; text stays in report.json', async () => {
  const out = join(dir, 'csv');
  await writeRunOutputs(out, report);
  const text = readFileSync(join(out, 'summary.csv'), 'utf8');
  const lines = text.trimEnd().split('\n');
  assert.equal(lines[0], 'metric,stat,value');
  assert.ok(lines.length > 50, `${lines.length} rows`);
  for (const line of lines.slice(1)) {
    const cells = csvFields(line);
    assert.equal(cells.length, 3, line);
    const v = cells[2];
    // The grammar pandas and DuckDB accept as a float: a decimal with optional exponent.
    assert.ok(v === '' || (/^-?\d+(\.\d+)?(e[+-]?\d+)?$/.test(v) && Number.isFinite(Number(v))), line);
  }
  assert.ok(
    lines.some((l) => /,\d/.test(l.slice(l.lastIndexOf(',')))),
    'some numeric values',
  );
  assert.ok(
    lines.some((l) => l.endsWith(',')),
    'some empty (null) values',
  );
  // Warnings and definitions are text: in report.json, not in the CSV.
  const json = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
  assert.ok(json.summary.warnings.length > 0);
  assert.equal(typeof json.summary.metric_dialects.vllm_ttft_ms.definition, 'string');
  assert.ok(!text.includes('warnings'), 'no warnings rows');
  assert.ok(!text.includes('definition'), 'no definition rows');
});

/**
 * The keys `vllm bench serve --save-result` writes for a generation run with a tokenizer and
 * the default `--percentile-metrics ttft,tpot,itl --metric-percentiles 99`, no
 * `--save-detailed`, no ramp-up, probes or speculative decoding: `main`'s `result_json` merged
 * with `benchmark`'s `result`, read from vllm-project/vllm@009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1
 * `vllm/benchmarks/serve.py` (its `--save-detailed` switch drops input_lens, output_lens,
 * start_times, ttfts, itls, generated_texts and errors, but keeps latencies and queue_times).
 */
const VLLM_KEYS = [
  'date',
  'endpoint_type',
  'backend',
  'label',
  'model_id',
  'tokenizer_id',
  'num_prompts',
  'request_rate',
  'burstiness',
  'max_concurrency',
  'duration',
  'completed',
  'failed',
  'total_input_tokens',
  'total_output_tokens',
  'request_throughput',
  'request_goodput',
  'output_throughput',
  'total_token_throughput',
  'latencies',
  'queue_times',
  'max_output_tokens_per_s',
  'max_concurrent_requests',
  'rtfx',
  'mean_ttft_ms',
  'median_ttft_ms',
  'std_ttft_ms',
  'p99_ttft_ms',
  'mean_tpot_ms',
  'median_tpot_ms',
  'std_tpot_ms',
  'p99_tpot_ms',
  'mean_itl_ms',
  'median_itl_ms',
  'std_itl_ms',
  'p99_itl_ms',
];

test('vllm.json: the key set and definitions of vllm bench serve --save-result', async () => {
  const out = join(dir, 'v');
  await writeRunOutputs(out, report, { vllm: true, records: res.records });
  const v = JSON.parse(readFileSync(join(out, 'vllm.json'), 'utf8'));
  assert.deepEqual(v, JSON.parse(JSON.stringify(toVllmResult(report, res.records))));
  assert.deepEqual(
    Object.keys(v)
      .filter((k) => k !== 'servelab')
      .sort(),
    [...VLLM_KEYS].sort(),
    "exactly vLLM's keys, plus one of servelab's own",
  );
  const windowS = (res.window.end_ms - res.window.start_ms) / 1000;
  assert.equal(v.date, '20260101-000000');
  assert.equal(v.duration, windowS);
  assert.equal(v.num_prompts, 10);
  assert.equal(v.completed, 8);
  assert.equal(v.failed, 2);
  assert.equal(v.total_output_tokens, 8 * 4);
  assert.equal(v.request_rate, 'inf');
  assert.equal(v.max_concurrency, 2);
  assert.equal(v.request_throughput, summary.request_throughput_rps);
  assert.equal(v.request_goodput, summary.goodput.rps);
  // 400 ms requests with chunks at 80, 160, 240, 320 ms after sending: vLLM's TTFT is the
  // first chunk of any kind, its E2EL the finish, its ITL the chunk gaps.
  assert.equal(v.mean_ttft_ms, 80);
  assert.equal(v.p99_ttft_ms, 80);
  assert.equal(v.mean_itl_ms, 80);
  assert.equal(v.std_itl_ms, 0);
  // Per request, in request order: E2E in seconds (null for the two that failed).
  assert.equal(v.latencies.length, 10);
  assert.deepEqual(
    v.latencies.filter((x: number | null) => x !== null),
    Array(8).fill(0.4),
  );
  assert.equal(v.latencies.filter((x: number | null) => x === null).length, 2);
  // At most two in flight (concurrency 2); the bucketing itself is table-tested in
  // test/analysis/peak.test.ts.
  assert.equal(v.max_concurrent_requests, 2);
  assert.ok(v.max_output_tokens_per_s > 0);
  // "No data" is null with its reason, where vLLM writes 0.
  assert.equal(v.rtfx, null);
  assert.ok(v.servelab.notes.some((n: string) => n.startsWith('rtfx')));
});

test('vllm.json: --percentile-metrics, --metric-percentiles and --save-detailed as vLLM reads them', () => {
  const v = toVllmResult(report, res.records, {
    percentileMetrics: ['ttft', 'e2el'],
    metricPercentiles: [50, 99.9],
    detailed: true,
  });
  for (const k of [
    'mean_ttft_ms',
    'median_ttft_ms',
    'std_ttft_ms',
    'p50_ttft_ms',
    'p99.9_ttft_ms',
    'p99.9_e2el_ms',
  ])
    assert.ok(k in v, k);
  assert.equal('mean_tpot_ms' in v, false);
  assert.equal('p99_ttft_ms' in v, false);
  assert.equal(v['p50_e2el_ms'], 400);
  for (const k of ['input_lens', 'output_lens', 'ttfts', 'itls', 'start_times', 'generated_texts', 'errors'])
    assert.equal((v[k] as unknown[]).length, 10, k);
  assert.deepEqual(
    (v.ttfts as (number | null)[]).filter((x) => x !== null),
    Array(8).fill(0.08),
  );
});

test('console table: outcomes, latency percentiles, throughput, goodput, Little, warnings', () => {
  const t = formatSummaryTable(summary);
  assert.match(t, /^Requests\n {2}planned +11\n/);
  assert.match(t, /Outcomes\n {2}http_error +2\n {2}ok +8\n/);
  assert.match(t, /Latency \(ms\)\n {2}metric +n +mean +p50 +p90 +p95 +p99 +max\n/);
  assert.match(t, /\n {2}ttft_ms +8 +80\.00 +80\.00 +80\.00 +80\.00 +80\.00 +80\.00\n/);
  assert.match(t, /\n {2}e2e_ms +8 +400\.00 /);
  assert.doesNotMatch(t, /ttfr_ms/, 'metrics without samples are left out');
  // The table prints the summary's own numbers. Every success met the SLO (TTFT 80 ms), so
  // goodput equals the request rate; each success carried 4 output tokens.
  const shown = (v: number | null, digits: number) => (v as number).toFixed(digits).replace('.', '\\.');
  assert.equal(summary.goodput.rps, summary.request_throughput_rps);
  assert.ok(
    Math.abs((summary.output_throughput_tok_s as number) - 4 * (summary.request_throughput_rps as number)) <
      1e-9,
  );
  assert.match(
    t,
    new RegExp(
      `Goodput \\(ttft_ms≤100\\)\\n {2}good requests/s +${shown(summary.goodput.rps, 3)}\\n {2}good fraction +80\\.0%`,
    ),
  );
  assert.match(
    t,
    new RegExp(
      `Little's law\\n {2}measured in flight +${shown(summary.littles_law.measured_in_flight, 2)}\\n`,
    ),
  );
  assert.match(
    t,
    new RegExp(`Throughput\\n {2}output tokens/s +${shown(summary.output_throughput_tok_s, 1)}\\n`),
  );
  assert.match(t, /Warnings\n {2}! p99 rests on fewer than 100 samples/);
  assert.ok(t.endsWith('\n') && !t.endsWith('\n\n'));
});

test('console table: the top errors, each with its hint, under the numbers', () => {
  const withErrors: Summary = {
    ...summary,
    errors: [
      {
        count: 300,
        outcome: 'http_error',
        http_status: 401,
        message: 'HTTP 401: Invalid or missing API key',
        hint: 'set INFERENCE_API_KEY (or name the variable with --api-key-env)',
      },
      { count: 2, outcome: 'stream_error', http_status: null, message: 'stream broken', hint: null },
    ],
  };
  const t = formatSummaryTable(withErrors);
  assert.match(
    t,
    /\nTop errors\n {2}300 × HTTP 401: Invalid or missing API key\n {4}hint: set INFERENCE_API_KEY \(or name the variable with --api-key-env\)\n {2}2 × stream broken\n\n/,
  );
  assert.ok(t.indexOf('Top errors') > t.indexOf('Client'));
  assert.doesNotMatch(formatSummaryTable({ ...summary, errors: [] }), /Top errors/);
});

test("console table: the client's set-up before the window, only when there was one", () => {
  assert.doesNotMatch(formatSummaryTable(summary), /set-up before the window/);
  const prepared = { connections: 100, warm_requests: 300 };
  const t = formatSummaryTable({ ...summary, client: { ...summary.client, prepared } });
  assert.match(
    t,
    /set-up before the window +100 connection\(s\) opened, 300 in-process warm-up\(s\), not recorded/,
  );
  const zh = formatSummaryTable({ ...summary, client: { ...summary.client, prepared } }, translator('zh-CN'));
  assert.match(zh, /打开 100 个连接，进程内预热 300 次/);
});
