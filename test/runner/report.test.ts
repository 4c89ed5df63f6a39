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
import { summaryRows, summaryToCsv } from '../../src/report/run/csv.js';
import { describeEnvironment } from '../../src/report/run/environment.js';
import { buildRunReport, RECORDS_FILE, type RunReport } from '../../src/report/run/report.js';
import { formatSummaryTable } from '../../src/report/run/table.js';
import { toVllmResult } from '../../src/report/run/vllm.js';
import { writeRunOutputs } from '../../src/report/run/write.js';
import { type RunResult, runLoad } from '../../src/runner/loops.js';
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

test('summary.csv: one row per metric × stat, plus scalar keys; null is an empty cell', () => {
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
  // Quoting of free text (warnings contain commas).
  assert.deepEqual(summaryRows({ w: ['a,"b"'], x: null }), [
    { metric: 'w', stat: '0', value: 'a,"b"' },
    { metric: 'x', stat: 'value', value: null },
  ]);
  assert.equal(summaryToCsv({ w: ['a,"b"'] }), 'metric,stat,value\nw,0,"a,""b"""\n');
});

test('vllm.json: vllm bench serve field names and units', async () => {
  const out = join(dir, 'v');
  await writeRunOutputs(out, report, { vllm: true });
  const v = JSON.parse(readFileSync(join(out, 'vllm.json'), 'utf8'));
  assert.deepEqual(v, toVllmResult(report));
  const windowS = (res.window.end_ms - res.window.start_ms) / 1000;
  assert.equal(v.date, '20260101-000000');
  assert.equal(v.duration, windowS);
  assert.equal(v.completed, 8);
  assert.equal(v.failed, 2);
  assert.equal(v.total_output_tokens, 8 * 4);
  assert.equal(v.total_input_tokens, 8 * 20);
  assert.equal(v.request_throughput, summary.request_throughput_rps);
  assert.equal(v.output_throughput, summary.output_throughput_tok_s);
  assert.equal(v.total_token_throughput, summary.total_throughput_tok_s);
  assert.equal(v.request_goodput, summary.goodput.rps);
  for (const [name, key] of [
    ['ttft', 'ttft_ms'],
    ['tpot', 'tpot_ms'],
    ['itl', 'itl_ms'],
    ['e2el', 'e2e_ms'],
  ] as const) {
    assert.equal(v[`mean_${name}_ms`], summary[key].mean);
    assert.equal(v[`median_${name}_ms`], summary[key].p50);
    assert.equal(v[`std_${name}_ms`], summary[key].std);
    assert.equal(v[`p99_${name}_ms`], summary[key].p99);
  }
  // 400 ms requests with chunks at 80, 160, 240, 320 ms after sending.
  assert.equal(v.mean_ttft_ms, 80);
  assert.equal(v.mean_e2el_ms, 400);
  assert.equal(v.mean_itl_ms, 80);
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
